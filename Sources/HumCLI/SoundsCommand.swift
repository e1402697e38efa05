import HumAudio
import HumCore
import HumPlayer

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `hum sounds`: what can be played.
struct SoundsCommand: HumCommand {
    static let name = "sounds"
    static let abstract = "list the sounds that can be played"
    static let discussion = """
        Built-in sounds come with hum. User sounds are the audio files in $XDG_DATA_HOME/hum/sounds
        (usually ~/.local/share/hum/sounds), each named by its file name without the extension: WAV, FLAC,
        Ogg Vorbis, Opus, MP3, AIFF, CAF or W64. Files that cannot play (among them formats hum cannot decode,
        such as .m4a, .aac, .wv or .mka), or cannot be played by their name, are listed apart at the end with the
        reason; in the JSON they carry a "problem". A sound with one-shot events scattered over its loop (thunder's
        strokes, a folder with an events/ folder, NAME~N) says how many clips it has and how many it plays an hour
        on average ("events" in the JSON). A bed played in random segments, so that it never comes round the same
        way, has "segments" in the JSON: their lengths and crossfade in seconds, and a rhythmic bed's beat
        ("grid_seconds", "grid_offset_seconds", or the list of its "beats") and "jitter_seconds".
        """
    static let examples = [
        "hum sounds",
        "hum sounds --json | jq -r '.[] | select(.problem == null) | .name'",
    ]
    static let names = Flag("names", help: "print only the names, one per line (for scripts and completions)")
    static let arguments: [any Declared] = [Flag.json, names]

    var json: Bool
    var namesOnly: Bool

    init(_ arguments: ParsedArguments) throws {
        json = arguments.flag(Flag.json)
        namesOnly = arguments.flag(Self.names)
        if json && namesOnly { throw HumError.usage("--json and --names cannot go together; choose one") }
    }

    struct Listing: Codable, Equatable {
        var name: String
        var title: String
        var source: SoundSource
        var path: String
        var durationSeconds: Double?
        var sampleRate: Int?
        var channels: Int?
        /// Why the file cannot be played, when it cannot.
        var problem: String?
        /// The one-shot events the mixer scatters over the sound, if it has any.
        var events: Events? = nil
        /// How its bed plays in random segments, as the manifest or its `sound.json` gives them (nil: it loops).
        var segments: SoundManifest.Segments? = nil

        enum CodingKeys: String, CodingKey {
            case name, title, source, path
            case durationSeconds = "duration_seconds"
            case sampleRate = "sample_rate"
            case channels, problem, events, segments
        }
    }

    /// A sound's bank of events as listed: how many clips, and how many an hour on average.
    struct Events: Codable, Equatable {
        var clips: Int
        var perHour: Double

        enum CodingKeys: String, CodingKey {
            case clips
            case perHour = "per_hour"
        }

        init?(_ bank: SoundManifest.EventBank?) {
            guard let bank else { return nil }
            clips = bank.files.count
            perHour = bank.perHour
        }

        /// "6 events, 36 an hour"
        var text: String {
            let tenths = (perHour * 10).rounded() / 10
            let rate = tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
            return "\(clips) event\(clips == 1 ? "" : "s"), \(rate) an hour"
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        let catalog = MixSetup.catalog(context.runtime)
        if namesOnly {
            // Names only: no file is opened, so a completion stays instant.
            context.stdout.write((catalog.builtins + catalog.userFolder.sounds).map { $0.name + "\n" }.joined())
            return ExitCode.success
        }
        if let problem = catalog.manifestProblem { context.warn(problem) }
        if catalog.builtinDirectory == nil {
            let places = SoundCatalog.searchedPlaces(environment: context.environment)
            context.warn(
                "no built-in sounds were found; looked in \(places.map(VisibleText.escape).joined(separator: ", ")) "
                    + "(set HUM_SOUNDS_DIR to the folder of sounds.json)"
            )
        }
        let folder = catalog.userFolder
        var listings = LibraryNoise.silenced(if: context.silencesLibraryNoise) {
            (catalog.builtins + folder.sounds).map { sound -> Listing in
                do throws(AudioFileError) {
                    let info = try AudioFileReader.inspect(path: sound.path)
                    return Listing(
                        name: sound.name, title: sound.title, source: sound.source, path: sound.path,
                        durationSeconds: (info.durationSeconds * 1000).rounded() / 1000,
                        sampleRate: info.sampleRate, channels: info.channels, problem: nil,
                        events: Events(sound.events), segments: sound.bedless ? nil : sound.segments)
                } catch {
                    return Listing(
                        name: sound.name, title: sound.title, source: sound.source, path: sound.path,
                        durationSeconds: nil, sampleRate: nil, channels: nil, problem: error.reason)
                }
            }
        }
        listings += folder.unnamed.map {
            Listing(
                name: $0.name, title: $0.name, source: .user, path: $0.path, durationSeconds: nil, sampleRate: nil,
                channels: nil, problem: $0.reason)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(listings)
            context.stdout.write(String(decoding: data, as: UTF8.self) + "\n")
            return ExitCode.success
        }
        context.stdout.write(Self.text(listings, userDirectory: catalog.userDirectory))
        return ExitCode.success
    }

    /// The listing for people: the sounds that play, by the names to type; then, apart and marked, the files that
    /// cannot play or cannot be played by their name, each with the reason and its file. Names, titles and paths
    /// are shown with control characters escaped.
    static func text(_ listings: [Listing], userDirectory: String) -> String {
        let playable = listings.filter { $0.problem == nil }
        let broken = listings.filter { $0.problem != nil }
        var out = ""
        if playable.isEmpty {
            out +=
                "no sounds to play: the built-in library is missing and \(userDirectory.visible) has no playable "
                + "audio files\n"
        }
        let nameWidth = playable.map(\.name.visible.count).max() ?? 0
        let titleWidth = min(28, playable.map(\.title.visible.count).max() ?? 0)
        for l in playable {
            let seconds = Int64((l.durationSeconds ?? 0).rounded())
            out +=
                "\(l.name.visible.padding(nameWidth))  \(l.title.visible.padding(titleWidth))  "
                + "\(l.source.rawValue.padding(8))  "
                + "\(DurationText.format(seconds: seconds).padding(6))  \(l.sampleRate ?? 0) Hz  "
                + "\(l.channels == 1 ? "mono" : "stereo")"
                + (l.events.map { "    + \($0.text)" } ?? "") + "\n"
        }
        if !broken.isEmpty {
            out += "\n\(broken.count) file\(broken.count == 1 ? "" : "s") left out:\n"
            for l in broken {
                out += "  \(l.path.visible): \(l.problem?.visible ?? "")\n"
            }
        }
        return out
    }
}
