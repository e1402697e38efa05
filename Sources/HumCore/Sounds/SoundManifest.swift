/// `Sounds/sounds.json`: the built-in sound library, written by `hum-soundgen` and read by `hum`.
public struct SoundManifest: Codable, Sendable, Equatable {
    /// Always `hum.sounds/1` for this layout.
    public var schema: String
    /// The integrated loudness every built-in sound is matched to, in LUFS.
    public var targetLUFS: Double
    public var sounds: [Entry]

    public static let currentSchema = "hum.sounds/1"

    public init(targetLUFS: Double, sounds: [Entry]) {
        self.schema = SoundManifest.currentSchema
        self.targetLUFS = targetLUFS
        self.sounds = sounds
    }

    enum CodingKeys: String, CodingKey {
        case schema
        case targetLUFS = "target_lufs"
        case sounds
    }

    /// How a sound loops.
    public enum LoopMode: String, Codable, Sendable {
        /// The file's end flows into its start: loop sample-exactly, no crossfade.
        case precut
        /// Loop with an equal-power crossfade of the tail into the head.
        case crossfade
    }

    public struct Entry: Codable, Sendable, Equatable {
        /// The name used on the command line: a short lowercase word.
        public var id: String
        public var title: String
        public var category: String
        /// One line saying what it sounds like.
        public var description: String
        /// File name relative to the manifest's folder.
        public var file: String
        public var durationSeconds: Double
        public var sampleRate: Int
        public var channels: Int
        public var loudnessLUFS: Double
        public var truePeakDBTP: Double
        public var loop: LoopMode
        public var license: String
        /// The generator recipe's name and its parameters, enough to re-create the file.
        public var recipe: String
        public var seed: UInt64

        public init(
            id: String, title: String, category: String, description: String, file: String,
            durationSeconds: Double, sampleRate: Int, channels: Int, loudnessLUFS: Double,
            truePeakDBTP: Double, loop: LoopMode, license: String, recipe: String, seed: UInt64
        ) {
            self.id = id
            self.title = title
            self.category = category
            self.description = description
            self.file = file
            self.durationSeconds = durationSeconds
            self.sampleRate = sampleRate
            self.channels = channels
            self.loudnessLUFS = loudnessLUFS
            self.truePeakDBTP = truePeakDBTP
            self.loop = loop
            self.license = license
            self.recipe = recipe
            self.seed = seed
        }

        enum CodingKeys: String, CodingKey {
            case id, title, category, description, file
            case durationSeconds = "duration_seconds"
            case sampleRate = "sample_rate"
            case channels
            case loudnessLUFS = "loudness_lufs"
            case truePeakDBTP = "true_peak_dbtp"
            case loop, license, recipe, seed
        }
    }
}
