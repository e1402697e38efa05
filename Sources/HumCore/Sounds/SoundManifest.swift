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
        /// One-shot events scattered over the looping bed in `file`, if the sound has any.
        public var events: EventBank?

        public init(
            id: String, title: String, category: String, description: String, file: String,
            durationSeconds: Double, sampleRate: Int, channels: Int, loudnessLUFS: Double,
            truePeakDBTP: Double, loop: LoopMode, license: String, recipe: String, seed: UInt64,
            events: EventBank? = nil
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
            self.events = events
        }

        enum CodingKeys: String, CodingKey {
            case id, title, category, description, file
            case durationSeconds = "duration_seconds"
            case sampleRate = "sample_rate"
            case channels
            case loudnessLUFS = "loudness_lufs"
            case truePeakDBTP = "true_peak_dbtp"
            case loop, license, recipe, seed, events
        }
    }

    /// A bank of one-shot events (thunder strokes, birdsong phrases, cups, wave slaps) that the mixer schedules
    /// itself over a sound's steady bed: arrival times at random from a mean rate, a random level and pan within
    /// ranges, never the same file twice in a row, all drawn from the session's seed. Built-in banks live in
    /// `Sounds/events/ID/*.ogg`; the rate and spread are facts of the sound, kept here beside its others.
    public struct EventBank: Codable, Sendable, Equatable {
        /// The one-shot files, relative to the manifest's folder (`events/thunder/01.ogg`).
        public var files: [String]
        /// Mean events per hour.
        public var perHour: Double
        /// No event starts sooner than this after the previous one began, in seconds.
        public var minGapSeconds: Double
        /// Each event's gain relative to its file, drawn uniformly between these, in dB.
        public var gainDBMin: Double
        public var gainDBMax: Double
        /// Each event's pan, drawn uniformly between these: -1 left, 0 centre, 1 right.
        public var panMin: Double
        public var panMax: Double

        public init(
            files: [String], perHour: Double, minGapSeconds: Double, gainDBMin: Double, gainDBMax: Double,
            panMin: Double, panMax: Double
        ) {
            self.files = files
            self.perHour = perHour
            self.minGapSeconds = minGapSeconds
            self.gainDBMin = gainDBMin
            self.gainDBMax = gainDBMax
            self.panMin = panMin
            self.panMax = panMax
        }

        enum CodingKeys: String, CodingKey {
            case files
            case perHour = "per_hour"
            case minGapSeconds = "min_gap_seconds"
            case gainDBMin = "gain_db_min"
            case gainDBMax = "gain_db_max"
            case panMin = "pan_min"
            case panMax = "pan_max"
        }
    }
}
