import Foundation
import HumAudio
import HumCore

/// `hum sounds`: what can be played.
struct SoundsCommand: HumCommand {
    static let name = "sounds"
    static let abstract = "list the sounds that can be played"
    static let discussion = """
        Built-in sounds come with hum. User sounds are the audio files in $XDG_DATA_HOME/hum/sounds
        (usually ~/.local/share/hum/sounds), each named by its file name without the extension.
        """
    static let examples = [
        "hum sounds",
        "hum sounds --json | jq -r '.[].name'",
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

        enum CodingKeys: String, CodingKey {
            case name, title, source, path
            case durationSeconds = "duration_seconds"
            case sampleRate = "sample_rate"
            case channels, problem
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        let catalog = MixSetup.catalog(context)
        if namesOnly {
            // Names only: no file is opened, so a completion stays instant.
            context.stdout.write(catalog.all.map { $0.name + "\n" }.joined())
            return ExitCode.success
        }
        if let problem = catalog.manifestProblem { context.warn(problem) }
        if catalog.builtinDirectory == nil {
            let places = SoundCatalog.searchedPlaces(environment: context.environment)
            context.warn(
                "no built-in sounds were found; looked in \(places.map(VisibleText.escape).joined(separator: ", ")) (set HUM_SOUNDS_DIR to the folder of sounds.json)"
            )
        }
        let listings = LibraryNoise.silenced {
            catalog.all.map { sound -> Listing in
                do throws(AudioFileError) {
                    let info = try AudioFileReader.info(path: sound.path)
                    return Listing(
                        name: sound.name, title: sound.title, source: sound.source, path: sound.path,
                        durationSeconds: (info.durationSeconds * 1000).rounded() / 1000,
                        sampleRate: info.sampleRate, channels: info.channels, problem: nil)
                } catch {
                    return Listing(
                        name: sound.name, title: sound.title, source: sound.source, path: sound.path,
                        durationSeconds: nil, sampleRate: nil, channels: nil, problem: error.reason)
                }
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(listings)
            context.stdout.write(String(decoding: data, as: UTF8.self) + "\n")
            return ExitCode.success
        }
        if listings.isEmpty {
            context.stdout.write(
                "no sounds found: the built-in library is missing and \(catalog.userDirectory) has no audio files\n")
            return ExitCode.success
        }
        let nameWidth = listings.map(\.name.count).max() ?? 0
        let titleWidth = min(28, listings.map(\.title.count).max() ?? 0)
        for l in listings {
            var line = "\(l.name.padding(nameWidth))  \(l.title.padding(titleWidth))  \(l.source.rawValue.padding(8))  "
            if let problem = l.problem {
                line += "cannot play: \(problem)"
            } else {
                let seconds = Int64((l.durationSeconds ?? 0).rounded())
                line +=
                    "\(DurationText.format(seconds: seconds).padding(6))  \(l.sampleRate ?? 0) Hz  \(l.channels == 1 ? "mono" : "stereo")"
            }
            context.stdout.write(line + "\n")
        }
        return ExitCode.success
    }
}
