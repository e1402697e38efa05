import HumAudio
import HumCore
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A sound of the mix, resolved: what the person typed and what it names.
public struct MixEntry: Sendable {
    public var token: MixToken
    public var sound: SoundReference

    public init(token: MixToken, sound: SoundReference) {
        self.token = token
        self.sound = sound
    }

    /// What the live line calls it: the name, or for a path its file name without folder and extension, with
    /// control characters shown escaped.
    public var displayName: String { (sound.source == .file ? sound.title : token.name).visible }
}

/// Turns mix words into sounds, and remembers the last mix played.
public enum MixSetup {
    /// The mix played when none is given and none was played before: about -30 LUFS as it plays, audible at an
    /// ordinary system volume and well under speech and music (docs/sounds.md, "Level").
    public static let defaultMix = [MixToken(name: "rain", volume: 75), MixToken(name: "brown", volume: 50)]

    public static func catalog(_ environment: PlayerEnvironment) -> SoundCatalog {
        SoundCatalog(
            builtinDirectory: SoundCatalog.locateBuiltins(environment: environment.variables),
            userDirectory: environment.paths.userSoundsDirectory)
    }

    /// The mix a command line asks for: its sounds, and the master volume and name of a saved mix it named.
    public struct Requested {
        public var entries: [MixEntry]
        public var master: Double? = nil
        public var name: String? = nil

        public init(entries: [MixEntry], master: Double? = nil, name: String? = nil) {
            self.entries = entries
            self.master = master
            self.name = name
        }
    }

    /// Parses and resolves the words: `SOUND[=VOLUME]`, a path (a word that is not a valid mix word but names an
    /// existing file is that file), and `@NAME` for a saved mix (the database is opened only for those).
    public static func resolve(words: [String], catalog: SoundCatalog, environment: PlayerEnvironment) throws
        -> Requested
    {
        var tokens: [(token: MixToken, word: String)] = []
        var master: Double? = nil
        var names: [String] = []
        // A user sound whose name holds "=" is played by that name as it is (names that would read as another
        // sound with a volume are not offered: SoundCatalog.userFolder).
        let equalNames = Set(catalog.userSounds.map(\.name).filter { $0.contains("=") })
        for word in words {
            if equalNames.contains(word) {
                tokens.append((MixToken(name: word, volume: Volume.default), word))
                continue
            }
            if word.hasPrefix("@") {
                let name = String(word.dropFirst())
                guard let mix = try LedgerAccess.open(environment).mix(named: name) else {
                    let hint =
                        (try? LedgerAccess.open(environment).savedMixes().map { "@" + $0.name })
                        .flatMap { Suggest.closest(to: word, in: $0) }.map { "did you mean \($0)? " } ?? ""
                    throw PlayerError.usage("there is no saved mix \(name.quoted); \(hint)see 'hum mix list'")
                }
                tokens += mix.tokens.map { ($0, word) }
                master = master ?? mix.master
                names.append(name)
                continue
            }
            do throws(MixSpec.ParseError) {
                tokens.append((try MixSpec.parse(word), word))
            } catch {
                guard FileManager.default.fileExists(atPath: word) else { throw PlayerError.usage(error.message) }
                tokens.append((MixToken(name: word, volume: Volume.default), word))
            }
        }
        let name = names.count == 1 && words.count == 1 ? names[0] : nil
        return Requested(entries: try resolve(tokens, catalog: catalog), master: master, name: name)
    }

    /// The sounds the tokens name (`word` is what was typed, for messages).
    public static func resolve(_ tokens: [(token: MixToken, word: String)], catalog: SoundCatalog) throws(PlayerError)
        -> [MixEntry]
    {
        var entries: [MixEntry] = []
        for (token, word) in tokens {
            guard let sound = catalog.resolve(token.name) else {
                if let broken = catalog.userFolder.unnamed.first(where: { $0.name == token.name }) {
                    throw .failure(unplayable(broken))
                }
                let names = catalog.all.map(\.name)
                let hint = Suggest.closest(to: token.name, in: names).map { "did you mean \"\($0)\"? " } ?? ""
                let listing =
                    names.isEmpty
                    ? "no built-in sounds were found; give a path to an audio file" : "see 'hum sounds' for the list"
                throw .usage(
                    "unknown sound \(token.name.quoted) in \(word.quoted); "
                        + "\(hint)\(listing)"
                )
            }
            if entries.contains(where: { $0.sound.identity == sound.identity }) {
                throw .usage("\(token.name.quoted) is in the mix twice; give each sound once")
            }
            entries.append(MixEntry(token: token, sound: sound))
        }
        return entries
    }

    /// Why a user sound that is there cannot play, and what to do: a folder with a bad `sound.json`, a file of a
    /// format hum cannot decode, or one whose name another sound has (`SoundCatalog.userFolder`).
    static func unplayable(_ sound: SoundCatalog.UnnamedUserSound) -> String {
        let fix =
            sound.reason.hasPrefix("sound.json")
            ? "; correct \((sound.path + "/sound.json").visible) (see docs/sounds.md) or remove it"
            : sound.reason.contains(";") ? "" : "; see 'hum sounds'"
        return "the sound \(sound.name.quoted) (\(sound.path.visible)) cannot play: \(sound.reason)\(fix)"
    }

    /// The mix to play when the command line names none: the setting play.mix when set (it was chosen; the last mix
    /// played was only remembered), else the last one played, else the built-in default.
    /// A value that is wrong when it is used (a stored setting naming a sound that is gone, a bad `HUM_…`) says
    /// which value it is and how to change it or remove it.
    public static func defaultMix(_ settings: Settings, catalog: SoundCatalog, environment: PlayerEnvironment) throws
        -> Requested
    {
        let setting = settings.value(SettingCatalog.playMix)
        guard !setting.text.isEmpty else { return Requested(entries: try remembered(environment, catalog: catalog)) }
        do {
            return try resolve(words: settingWords(setting.text), catalog: catalog, environment: environment)
        } catch let error as PlayerError {
            let key = SettingCatalog.playMix
            let (whence, fix) =
                if case .environment(let name) = setting.source {
                    (name, "change it or unset it in the environment")
                } else {
                    (
                        "the setting \(key)",
                        "change it with 'hum config set \(key) …', or go back to the last mix played with "
                            + "'hum config unset \(key)'"
                    )
                }
            throw PlayerError.usage("\(whence) \(setting.text.quoted): \(error.message); \(fix)")
        }
    }

    /// The mix words of a mix setting's value (`play.mix`, a profile's), as they are played.
    public static func settingWords(_ text: String) -> [String] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// Checks mix words of a setting about to be stored by the rule that plays them (`resolve`: every sound in
    /// the library, or a file that exists; a saved mix's sounds). A saved mix not saved yet (`@night`) is let
    /// through: it may be saved later; its names are returned, for a warning.
    public static func checkSetting(_ words: [String], catalog: SoundCatalog, environment: PlayerEnvironment) throws
        -> [String]
    {
        var kept: [String] = []
        var unsaved: [String] = []
        for word in words {
            if word.hasPrefix("@"), try LedgerAccess.open(environment).mix(named: String(word.dropFirst())) == nil {
                unsaved.append(String(word.dropFirst()))
            } else {
                kept.append(word)
            }
        }
        _ = try resolve(words: kept, catalog: catalog, environment: environment)
        return unsaved
    }

    /// The mix to play when the command line names none: the last one played, else the default. Sounds of it that
    /// no longer exist (a user file that went away) are reported and left out; the saved mix itself is kept.
    public static func remembered(_ environment: PlayerEnvironment, catalog: SoundCatalog) throws(PlayerError)
        -> [MixEntry]
    {
        let saved = lastMix(environment) ?? defaultMix
        var entries: [MixEntry] = []
        for token in saved {
            if let sound = catalog.resolve(token.name), FileManager.default.fileExists(atPath: sound.path) {
                entries.append(MixEntry(token: token, sound: sound))
            } else {
                environment.warn(
                    "the sound \(token.name.quoted) of your last mix is missing; playing the rest (see 'hum sounds')")
            }
        }
        if entries.isEmpty {
            if catalog.builtins.isEmpty {
                throw .failure(
                    "no sounds to play: the built-in library was not found (set HUM_SOUNDS_DIR to its folder) and no "
                        + "sound was given; try 'hum play PATH-TO-AUDIO-FILE'"
                )
            }
            throw .failure("no sound of the saved mix can be found; name some, for example 'hum play rain=40'")
        }
        return entries
    }

    /// `last-mix.json`: the mix for the next bare `hum`, and, on a machine without a database, the last mixes played
    /// (`hum mix list`). Once there is a database the recents live there (they travel with sync: docs/sync.md); the
    /// file's are imported into it once.
    public struct SavedMix: Codable {
        public var mix: [MixToken]
        /// Newest first, at most `recentCount`, each mix once; nil once they moved into the database.
        public var recent: [RecentMix]?
    }

    public struct RecentMix: Codable, Equatable {
        public var mix: [MixToken]
        /// RFC 3339, local offset.
        public var playedAt: String
        enum CodingKeys: String, CodingKey {
            case mix
            case playedAt = "played_at"
        }
    }

    public static let recentCount = SyncRecents.count

    public static func lastMixPath(_ environment: PlayerEnvironment) -> String {
        environment.paths.stateDirectory + "/last-mix.json"
    }

    public static func savedState(_ environment: PlayerEnvironment) -> SavedMix? {
        guard let data = FileManager.default.contents(atPath: lastMixPath(environment)) else { return nil }
        return try? JSONDecoder().decode(SavedMix.self, from: data)
    }

    public static func lastMix(_ environment: PlayerEnvironment) -> [MixToken]? {
        guard let saved = savedState(environment), !saved.mix.isEmpty else { return nil }
        return saved.mix
    }

    /// The last mixes played, newest first: the database's when there is one (`database`, else opened when it
    /// exists; the file's recents imported into it once), else the file's. What the file holds is checked as it is
    /// read (a hand-edited entry with a volume off the scale, an empty name or a time that is not RFC 3339 is left
    /// out).
    public static func recentMixes(_ environment: PlayerEnvironment, database: HumDatabase? = nil) -> [RecentMix] {
        if let db = database ?? recentsDatabase(environment) {
            importFileRecents(db, environment: environment)
            if let plays = try? db.recents() { return plays.map { RecentMix(mix: $0.mix, playedAt: $0.at.rfc3339) } }
        }
        return fileRecents(environment)
    }

    /// The recents of the file, checked.
    static func fileRecents(_ environment: PlayerEnvironment) -> [RecentMix] {
        let recent = (savedState(environment)?.recent ?? []).filter { entry in
            !entry.mix.isEmpty && entry.mix.count <= Mix.maximumTracks
                && entry.mix.allSatisfy { !$0.name.isEmpty && Volume.range.contains($0.volume) }
                && Timestamp(rfc3339: entry.playedAt) != nil
        }
        return Array(recent.prefix(recentCount))
    }

    /// The database when there is one (playing never creates it).
    static func recentsDatabase(_ environment: PlayerEnvironment) -> HumDatabase? {
        guard access(environment.paths.databasePath, F_OK) == 0 else { return nil }
        return try? LedgerAccess.open(environment)
    }

    /// Moves the file's recents into the database, once.
    static func importFileRecents(_ db: HumDatabase, environment: PlayerEnvironment) {
        guard (try? db.recentsImported()) == false else { return }
        let plays = fileRecents(environment).compactMap { entry in
            Timestamp(rfc3339: entry.playedAt).map { (mix: entry.mix, at: $0) }
        }
        do {
            try db.importRecents(plays)
        } catch {
            environment.warn(
                "could not move the recent mixes into the ledger (\(errorText(error))); trying again later")
        }
    }

    /// Saves the mix for next time, and records it as played (the database's recents, a line of the sync journal;
    /// the file's without a database). Failing to save is not worth stopping the music for: a warning at most. Never
    /// on the audio thread: the commands and the player's loop call it.
    public static func remember(_ mix: [MixToken], environment: PlayerEnvironment) {
        let db = recentsDatabase(environment)
        do {
            try FileManager.default.createDirectory(
                atPath: environment.paths.stateDirectory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            var recent: [RecentMix]? = nil
            if db == nil {
                var kept = fileRecents(environment)
                if !mix.isEmpty {
                    kept.removeAll { $0.mix == mix }
                    kept.insert(RecentMix(mix: mix, playedAt: environment.calendar.now().rfc3339), at: 0)
                }
                recent = Array(kept.prefix(recentCount))
            } else if let db {
                importFileRecents(db, environment: environment)
                // Still in the file when the import failed: kept for the next try.
                if (try? db.recentsImported()) != true { recent = fileRecents(environment) }
            }
            let data = try JSONEncoder().encode(SavedMix(mix: mix, recent: recent))
            try data.write(to: URL(fileURLWithPath: lastMixPath(environment)), options: .atomic)
        } catch {
            environment.warn(
                "could not save the mix for next time (\(lastMixPath(environment)): \(fileErrorText(error)))")
        }
        guard let db else { return }
        do {
            try db.recordPlay(mix)
        } catch {
            environment.warn("could not add the mix to the recent ones (\(errorText(error)))")
        }
    }

    static func errorText(_ error: any Error) -> String {
        (error as? any UserFacingError)?.message ?? "\(error)"
    }

    /// Loads every sound at `rate` (through `cache` when given: see `LoopCache`; at `pace`, see `LoadingPace`).
    /// Sounds that cannot play are reported as warnings while others can; when none can, the failure names them.
    public static func loadTracks(
        _ entries: [MixEntry], rate: Int, raw: Bool, environment: PlayerEnvironment, cache: LoopCache? = nil,
        pace: LoadingPace = .leanest
    )
        throws(PlayerError) -> (
            tracks: [Mixer.Track], playing: [MixEntry]
        )
    {
        let matching = loudnessMatching(raw: raw, environment: environment)
        let speakers = speakers(environment)
        let results = LibraryNoise.silenced(if: environment.silencesLibraryNoise) {
            TrackLoader.loadAll(
                entries.map(\.sound), outputRate: rate, matching: matching, speakers: speakers, cache: cache,
                pace: pace)
        }
        let playable = try keepPlayable(entries, results, environment: environment)
        return (playable.map(\.1), playable.map(\.0))
    }

    /// The speakers the sounds are made for: the setting `play.speakers` (`HUM_SPEAKERS`, else the database, else
    /// full). Read quietly: a value that cannot be read is the commands' to report (`SettingsReader`).
    public static func speakers(_ environment: PlayerEnvironment) -> SpeakerSize {
        var settings = Settings(stored: [:], environment: environment.variables)
        if FileManager.default.fileExists(atPath: environment.paths.databasePath),
            let stored = try? LedgerAccess.open(environment, reading: true).settings(environment: environment.variables)
        {
            settings = stored
        }
        return SpeakerSize(rawValue: settings.text(SettingCatalog.playSpeakers)) ?? .full
    }

    /// The cache of finished loops (`$XDG_CACHE_HOME/hum/loops`).
    public static func loopCache(_ environment: PlayerEnvironment) -> LoopCache {
        LoopCache(cacheDirectory: environment.paths.cacheDirectory)
    }

    /// How sounds that are not built in are brought to the library's loudness (nil with --raw).
    public static func loudnessMatching(raw: Bool, environment: PlayerEnvironment) -> LoudnessMatching? {
        raw
            ? nil
            : LoudnessMatching(
                loudness: UserSoundLoudness(cacheDirectory: environment.paths.cacheDirectory),
                targetLUFS: catalog(environment).manifest?.targetLUFS ?? ReferenceLevel.loudnessLUFS)
    }

    /// Reads only the headers, so a bad file is reported before the audio device is opened.
    public static func checkHeaders(_ entries: [MixEntry], environment: PlayerEnvironment) throws(PlayerError)
        -> [MixEntry]
    {
        let results = LibraryNoise.silenced(if: environment.silencesLibraryNoise) {
            entries.map { entry -> Result<Void, AudioFileError> in
                do throws(AudioFileError) {
                    _ = try AudioFileReader.info(path: entry.sound.path)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
        }
        return try keepPlayable(entries, results, environment: environment).map(\.0)
    }

    private static func keepPlayable<T>(
        _ entries: [MixEntry], _ results: [Result<T, AudioFileError>], environment: PlayerEnvironment
    ) throws(PlayerError) -> [(MixEntry, T)] {
        var kept: [(MixEntry, T)] = []
        var problems: [String] = []
        for (entry, result) in zip(entries, results) {
            switch result {
            case .success(let value): kept.append((entry, value))
            case .failure(let error): problems.append("cannot play \(entry.token.name): \(describe(error, entry))")
            }
        }
        if kept.isEmpty { throw .failure(problems.joined(separator: "; ")) }
        for problem in problems { environment.warn(problem + "; playing the others") }
        return kept
    }

    public static func describe(_ error: AudioFileError, _ entry: MixEntry) -> String {
        entry.sound.path == entry.token.name ? error.reason : "\(error.path): \(error.reason)"
    }
}
