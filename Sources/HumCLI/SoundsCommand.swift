import Foundation
import HumAudio
import HumCore

/// `hum sounds`: what can be played.
struct SoundsCommand: HumCommand {
    static let name = "sounds"
    static let abstract = "list the sounds that can be played"
    static let usage = ["sounds [--json]"]
    static let discussion = """
        Built-in sounds come with hum. User sounds are the audio files in $XDG_DATA_HOME/hum/sounds
        (usually ~/.local/share/hum/sounds), each named by its file name without the extension. Files that
        cannot play, or cannot be played by their name, are listed apart at the end with the reason; in the JSON
        they carry a "problem".

        Examples:
          hum sounds
          hum sounds --json | jq -r '.[] | select(.problem == null) | .name'
        """
    static let options = [OptionSpec.json]

    var json: Bool

    init(arguments: ParsedArguments, context: CommandContext) throws {
        json = arguments.flag("json")
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
        if let problem = catalog.manifestProblem { context.warn(problem) }
        let folder = catalog.userFolder
        var listings = LibraryNoise.silenced {
            (catalog.builtins + folder.sounds).map { sound -> Listing in
                do throws(AudioFileError) {
                    let info = try AudioFileReader.inspect(path: sound.path)
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
                "no sounds to play: the built-in library is missing and \(userDirectory.visible) has no playable audio files\n"
        }
        let nameWidth = playable.map(\.name.visible.count).max() ?? 0
        let titleWidth = min(28, playable.map(\.title.visible.count).max() ?? 0)
        for l in playable {
            let seconds = Int64((l.durationSeconds ?? 0).rounded())
            out +=
                "\(l.name.visible.padding(nameWidth))  \(l.title.visible.padding(titleWidth))  \(l.source.rawValue.padding(8))  "
                + "\(DurationText.format(seconds: seconds).padding(6))  \(l.sampleRate ?? 0) Hz  \(l.channels == 1 ? "mono" : "stereo")\n"
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
