import HumCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Where a playable sound comes from.
public enum SoundSource: String, Sendable, Codable {
    case builtin = "built-in"
    case user
    case file
}

/// A sound that can be played: a built-in one, a user sound, or a path given on the command line.
public struct SoundReference: Sendable, Equatable {
    public var name: String
    public var title: String
    public var path: String
    public var source: SoundSource
    public var loop: SoundManifest.LoopMode?
    /// The loudness recorded in the manifest (built-in sounds), if known.
    public var loudnessLUFS: Double?
    /// One-shot events scattered over the sound (their files as paths), if it has any.
    public var events: SoundManifest.EventBank? = nil
    /// How the bed plays in segments taken at random from its loop (nil: round and round).
    public var segments: SoundManifest.Segments? = nil
    /// Events alone: `path` is not played as a bed (`NAME~N`, or a user folder without `bed.*`).
    public var bedless = false

    /// What makes two sounds of a mix the same sound: the file, and for events alone their rate too (`thunder`
    /// and `thunder~20` are two sounds, `thunder~20` and `thunder~6` too).
    public var identity: String {
        guard bedless, let events else { return path }
        return path + "\u{0}~" + String(events.perHour)
    }
}

/// The sounds hum knows: the built-in library (Sounds/ with its manifest) and the user's folder.
public struct SoundCatalog: Sendable {
    public var builtinDirectory: String?
    public var manifest: SoundManifest?
    public var userDirectory: String
    /// A manifest that exists but could not be read, for people.
    public var manifestProblem: String?

    /// File extensions recognised as user sounds.
    public static let audioExtensions: Set<String> = [
        "wav", "flac", "ogg", "oga", "opus", "mp3", "aiff", "aif", "caf", "w64",
    ]

    /// Extensions of audio formats hum cannot decode (libsndfile reads none of them), with what they hold: such
    /// files in the user folder are listed by `hum sounds` with the reason, not hidden.
    public static let unplayableFormats: [String: String] = [
        "m4a": "MP4 audio (AAC or ALAC)", "m4b": "an MP4 audiobook (AAC)", "mp4": "MP4", "aac": "raw AAC",
        "wv": "WavPack", "mka": "Matroska audio", "webm": "WebM", "wma": "Windows Media Audio", "ape": "Monkey's Audio",
        "ac3": "AC-3", "dts": "DTS", "mpc": "Musepack", "tta": "TTA", "amr": "AMR",
    ]

    public init(builtinDirectory: String?, userDirectory: String) {
        self.builtinDirectory = builtinDirectory
        self.userDirectory = userDirectory
        if let dir = builtinDirectory {
            let path = dir + "/sounds.json"
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                manifest = try JSONDecoder().decode(SoundManifest.self, from: data)
            } catch {
                manifestProblem = "cannot read the built-in sound list \(path): \(fileErrorText(error))"
            }
        }
    }

    /// Finds the built-in library: the first of `searchedPlaces` that holds a `sounds.json`.
    public static func locateBuiltins(environment: [String: String]) -> String? {
        if let dir = environment["HUM_SOUNDS_DIR"], !dir.isEmpty { return dir }
        return searchedPlaces(environment: environment).first {
            FileManager.default.fileExists(atPath: $0 + "/sounds.json")
        }
    }

    /// Where the built-in library is looked for, in order: `$HUM_SOUNDS_DIR` alone when it is set; else
    /// `BIN/../share/hum/sounds` beside the binary (what `make install`, install.sh and the unpacked release
    /// make), then a `Sounds` folder beside the binary or above it (a build in the source tree), then
    /// `DIR/hum/sounds` for each DIR of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`, where
    /// `make install` and the .deb put it), so that a binary copied alone (`cp hum ~/bin`) still finds the
    /// library a package installed. `$XDG_DATA_HOME/hum/sounds` is not among them: it is the user's own folder.
    public static func searchedPlaces(environment: [String: String]) -> [String] {
        if let dir = environment["HUM_SOUNDS_DIR"], !dir.isEmpty { return [dir] }
        var places: [String] = []
        if let exe = executablePath() {
            var dir = PathText.directory(exe)
            places.append(PathText.appending(PathText.directory(dir), "share/hum/sounds"))
            while dir != "/" && !dir.isEmpty {
                places.append(dir + "/Sounds")
                dir = PathText.directory(dir)
            }
        }
        for dir in dataDirectories(environment: environment) where !places.contains(dir + "/hum/sounds") {
            places.append(dir + "/hum/sounds")
        }
        return places
    }

    /// `$XDG_DATA_DIRS` as the base directory specification reads it: absolute paths only (a relative one is
    /// ignored), and `/usr/local/share:/usr/share` when it is unset or names none.
    static func dataDirectories(environment: [String: String]) -> [String] {
        let given = (environment["XDG_DATA_DIRS"] ?? "").split(separator: ":").map(String.init).filter {
            $0.hasPrefix("/")
        }
        let dirs = given.isEmpty ? ["/usr/local/share", "/usr/share"] : given
        return dirs.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var builtins: [SoundReference] {
        guard let manifest, let dir = builtinDirectory else { return [] }
        return manifest.sounds.map {
            var events = $0.events
            if let files = events?.files { events?.files = files.map { dir + "/" + $0 } }
            return SoundReference(
                name: $0.id, title: $0.title, path: dir + "/" + $0.file, source: .builtin,
                loop: $0.loop, loudnessLUFS: $0.loudnessLUFS, events: events, segments: $0.segments)
        }
    }

    /// A file of the user folder that cannot be played, or not by its name, and why (said by `hum sounds`, never
    /// silent): a format hum cannot decode (`unplayableFormats`), or a name another sound has.
    public struct UnnamedUserSound: Sendable, Equatable {
        /// The name the file would have: its file name without the extension.
        public var name: String
        public var path: String
        /// Why, for people: what takes the name and what to do.
        public var reason: String
    }

    /// The user folder read once: the sounds played by their names, and the files that cannot be.
    public struct UserFolder: Sendable, Equatable {
        public var sounds: [SoundReference] = []
        public var unnamed: [UnnamedUserSound] = []
    }

    /// Whether two folder paths name the same folder (links and `..` resolved); false when either is missing.
    static func samePlace(_ a: String, _ b: String) -> Bool {
        var first = stat()
        var second = stat()
        guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino
    }

    /// User sounds: every audio file in the user folder, named by its file name without extension, sorted. Files of
    /// a format hum cannot decode (`.m4a`, `.wv`, `.mka`, …) are listed as `unnamed`, with the reason. A name
    /// is never taken silently from a file: a file named like a built-in sound (the built-in wins), a second file
    /// with the name of one before it (`rain.flac` after `rain.wav`), and a file whose name reads as another
    /// sound with a volume (`rain=40.wav`, which `hum play rain=40` must keep meaning rain at 40) are listed as
    /// `unnamed`, with the reason. A name that holds `=` otherwise is played by writing it as it is
    /// (`hum play 'a=b'`, or `'a=b=40'` with a volume).
    public var userFolder: UserFolder {
        // hum installed into ~/.local puts its own library where the user folder is (both are
        // ~/.local/share/hum/sounds): those files are the built-in sounds, not the user's, and never clash with
        // themselves.
        if let builtinDirectory, Self.samePlace(builtinDirectory, userDirectory) { return UserFolder() }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: userDirectory) else {
            return UserFolder()
        }
        let builtinNames = Set(builtins.map(\.name))
        var folder = UserFolder()
        var taken: [String: String] = [:]  // name -> the file that has it
        for file in names.sorted() {
            if let sound = userFolderSound(file) {
                switch sound {
                case .success(let sound) where builtinNames.contains(sound.name):
                    folder.unnamed.append(
                        UnnamedUserSound(
                            name: sound.name, path: userDirectory + "/" + file,
                            reason: "has the name of the built-in sound \"\(sound.name)\"; rename the folder to "
                                + "play it by name"))
                case .success(let sound):
                    if let first = taken[sound.name] {
                        folder.unnamed.append(
                            UnnamedUserSound(
                                name: sound.name, path: userDirectory + "/" + file,
                                reason: "has the same name as \(first), which plays as \"\(sound.name)\"; rename one "
                                    + "of them"))
                    } else {
                        taken[sound.name] = file + "/"
                        folder.sounds.append(sound)
                    }
                case .failure(let problem):
                    folder.unnamed.append(
                        UnnamedUserSound(name: file, path: userDirectory + "/" + file, reason: problem.reason))
                }
                continue
            }
            let ext = PathText.extension(file).lowercased()
            let name = PathText.removingExtension(file)
            let path = userDirectory + "/" + file
            if let format = SoundCatalog.unplayableFormats[ext], !name.isEmpty, !name.hasPrefix(".") {
                folder.unnamed.append(
                    UnnamedUserSound(
                        name: name, path: path,
                        reason:
                            "is \(format), which hum cannot play; convert it to FLAC, Ogg Vorbis, Opus or MP3 "
                            + "(e.g. ffmpeg -i '\(file)' '\(name).flac')"))
                continue
            }
            guard SoundCatalog.audioExtensions.contains(ext), !name.isEmpty, !name.hasPrefix(".") else { continue }
            if builtinNames.contains(name) {
                folder.unnamed.append(
                    UnnamedUserSound(
                        name: name, path: path,
                        reason: "has the name of the built-in sound \"\(name)\"; rename the file to play it by name"))
            } else if let first = taken[name] {
                folder.unnamed.append(
                    UnnamedUserSound(
                        name: name, path: path,
                        reason: "has the same name as \(first), which plays as \"\(name)\"; rename one of them"))
            } else {
                taken[name] = file
                folder.sounds.append(
                    SoundReference(
                        name: name, title: name, path: path, source: .user, loop: nil, loudnessLUFS: nil))
            }
        }
        // A name that is also a mix word for another sound: the mix word keeps its meaning.
        let known = builtinNames.union(folder.sounds.map(\.name))
        folder.sounds.removeAll { sound in
            guard sound.name.contains("="), let token = try? MixSpec.parse(sound.name), token.name != sound.name,
                known.contains(token.name)
            else { return false }
            folder.unnamed.append(
                UnnamedUserSound(
                    name: sound.name, path: sound.path,
                    reason:
                        "its name reads as \"\(token.name)\" at volume \(MixSpec.formatVolume(token.volume)); rename "
                        + "the file to play it by name"
                ))
            return true
        }
        return folder
    }

    public var userSounds: [SoundReference] { userFolder.sounds }

    public var all: [SoundReference] { builtins + userSounds }

    /// Whether a name on the command line means a file path rather than a library name.
    public static func looksLikePath(_ name: String) -> Bool {
        name.contains("/") || audioExtensions.contains(PathText.extension(name).lowercased())
    }

    /// Resolves a name to a sound: a library name first, then a path. Nil when it is neither.
    public func resolve(_ name: String) -> SoundReference? {
        if let known = all.first(where: { $0.name == name }) { return known }
        if let mark = MixSpec.eventMark(name), let sound = resolve(mark.sound) {
            return SoundCatalog.eventsAlone(sound, name: name, perHour: mark.perHour)
        }
        if SoundCatalog.looksLikePath(name) || FileManager.default.fileExists(atPath: name) {
            let base = PathText.removingExtension(PathText.base(name))
            return SoundReference(name: name, title: base, path: name, source: .file, loop: nil, loudnessLUFS: nil)
        }
        return nil
    }
}
