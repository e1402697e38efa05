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
        /// How the bed plays in segments taken at random from its loop, so it never comes round the same way
        /// (nil: it loops round and round).
        public var segments: Segments?

        public init(
            id: String, title: String, category: String, description: String, file: String,
            durationSeconds: Double, sampleRate: Int, channels: Int, loudnessLUFS: Double,
            truePeakDBTP: Double, loop: LoopMode, license: String, recipe: String, seed: UInt64,
            events: EventBank? = nil, segments: Segments? = nil
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
            self.segments = segments
        }

        enum CodingKeys: String, CodingKey {
            case id, title, category, description, file
            case durationSeconds = "duration_seconds"
            case sampleRate = "sample_rate"
            case channels
            case loudnessLUFS = "loudness_lufs"
            case truePeakDBTP = "true_peak_dbtp"
            case loop, license, recipe, seed, events, segments
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

    /// A bed played as a chain of segments of its loop, each from a random place, joined by equal-power crossfades
    /// (see `BedSegments`): with every segment shorter than 10 s, no 10 s of it ever comes back the same. For a
    /// steady texture any place will do; a rhythmic bed gives its beat (`gridSeconds`), so that segments are whole
    /// beats and each crossfade starts `gridOffsetSeconds` into one, between two strokes. A beat that is not even
    /// (a heart whose rate breathes) gives the list of its beats instead (`beats`): segments then run from just
    /// after one beat to just after another, and every interval heard is one of the loop's own.
    public struct Segments: Codable, Sendable, Equatable {
        /// Each segment's length, from one crossfade's start to the next's, is drawn between these, in seconds.
        public var minSeconds: Double
        public var maxSeconds: Double
        /// The length of each crossfade, in seconds.
        public var crossfadeSeconds: Double
        /// The beat of a rhythmic bed, in seconds (nil: none); its loop should hold a whole number of beats.
        public var gridSeconds: Double?
        /// Where in a beat a crossfade starts, in seconds from the beat (with a grid, the loop's first frame is on
        /// one).
        public var gridOffsetSeconds: Double?
        /// The beats of a bed whose beat is not even, in seconds from the loop's start, rising (nil: none). Every
        /// crossfade starts `gridOffsetSeconds` after one of them, and every jump lands as far after another.
        public var beats: [Double]?
        /// With a grid or beats: a jump lands up to this far before or after its place, at random, in seconds (nil:
        /// exactly on it). A rhythmic bed's joins then have many more places to land than its beats, so no stretch
        /// of it comes back the same. A segment then sits up to that far off the beats of the one before, so an
        /// interval across a join is up to twice that longer or shorter.
        public var jitterSeconds: Double?

        /// The most jitter a jump may have, in seconds.
        public static let maximumJitterSeconds = 0.05
        /// The most beats a loop may list.
        public static let maximumBeats = 100_000

        public init(
            minSeconds: Double, maxSeconds: Double, crossfadeSeconds: Double, gridSeconds: Double? = nil,
            gridOffsetSeconds: Double? = nil, beats: [Double]? = nil, jitterSeconds: Double? = nil
        ) {
            self.minSeconds = minSeconds
            self.maxSeconds = maxSeconds
            self.crossfadeSeconds = crossfadeSeconds
            self.gridSeconds = gridSeconds
            self.gridOffsetSeconds = gridOffsetSeconds
            self.beats = beats
            self.jitterSeconds = jitterSeconds
        }

        enum CodingKeys: String, CodingKey {
            case minSeconds = "min_seconds"
            case maxSeconds = "max_seconds"
            case crossfadeSeconds = "crossfade_seconds"
            case gridSeconds = "grid_seconds"
            case gridOffsetSeconds = "grid_offset_seconds"
            case beats
            case jitterSeconds = "jitter_seconds"
        }

        /// Why these settings cannot be used, for people (nil: they can).
        public var problem: String? {
            let values = [
                minSeconds, maxSeconds, crossfadeSeconds, gridSeconds ?? 1, gridOffsetSeconds ?? 0, jitterSeconds ?? 0,
            ]
            guard values.allSatisfy({ $0.isFinite }) else { return "segments: every length must be a number" }
            guard crossfadeSeconds >= BedSegments.shortestCrossfadeSeconds, crossfadeSeconds <= 10 else {
                return "segments: crossfade_seconds must be from 0.01 to 10"
            }
            guard minSeconds > crossfadeSeconds, maxSeconds >= minSeconds, maxSeconds <= 3600 else {
                return "segments: need crossfade_seconds < min_seconds <= max_seconds <= 3600"
            }
            if let gridSeconds {
                guard gridSeconds > 0, gridSeconds <= maxSeconds else {
                    return "segments: grid_seconds must be above 0 and at most max_seconds"
                }
            }
            if let jitterSeconds {
                guard jitterSeconds >= 0, jitterSeconds <= Self.maximumJitterSeconds else {
                    return "segments: jitter_seconds must be from 0 to \(Self.maximumJitterSeconds)"
                }
                guard gridSeconds != nil || beats != nil else {
                    return "segments: jitter_seconds needs grid_seconds or beats"
                }
                guard jitterSeconds <= gridOffsetSeconds ?? 0 else {
                    return "segments: jitter_seconds must be at most grid_offset_seconds (a jump lands after the beat)"
                }
            }
            if let beats { return beatsProblem(beats) }
            if let gridOffsetSeconds {
                guard gridOffsetSeconds >= 0, gridOffsetSeconds < (gridSeconds ?? 0) else {
                    return "segments: grid_offset_seconds must be from 0 to below grid_seconds"
                }
            }
            if let gridSeconds, let jitterSeconds,
                (gridOffsetSeconds ?? 0) + jitterSeconds + crossfadeSeconds >= gridSeconds
            {
                return "segments: grid_offset_seconds + jitter_seconds + crossfade_seconds must be below grid_seconds"
            }
            return nil
        }

        /// Why a list of beats cannot be used (nil: it can): a crossfade must fit, with its offset, between any two
        /// beats, so that neither side of it plays a beat. (The gap from the last beat round to the first is
        /// checked where the loop's length is known: a loop it does not fit plays round and round.)
        func beatsProblem(_ beats: [Double]) -> String? {
            guard gridSeconds == nil else { return "segments: give grid_seconds or beats, not both" }
            guard beats.count >= 3, beats.count <= Self.maximumBeats else {
                return "segments: beats must list from 3 to \(Self.maximumBeats) times"
            }
            guard beats.allSatisfy({ $0.isFinite }), beats[0] >= 0, beats[beats.count - 1] <= 86400 else {
                return "segments: beats must be times from 0 to 86400 seconds"
            }
            var shortest = Double.infinity
            for k in 1..<beats.count {
                let gap = beats[k] - beats[k - 1]
                guard gap > 0 else { return "segments: beats must rise (beat \(k + 1) is not after beat \(k))" }
                shortest = min(shortest, gap)
            }
            let offset = gridOffsetSeconds ?? 0
            guard offset >= 0, offset + (jitterSeconds ?? 0) + crossfadeSeconds < shortest else {
                return "segments: grid_offset_seconds + jitter_seconds + crossfade_seconds must be from 0 to below "
                    + "the shortest gap between beats (\((shortest * 1000).rounded() / 1000) s)"
            }
            return nil
        }

        /// The mixer's plan for a sound named `name` at `sampleRate`.
        public func bed(name: String, sampleRate: Int) -> BedSegments {
            BedSegments(
                name: name, segmentSeconds: minSeconds...max(minSeconds, maxSeconds),
                crossfadeSeconds: crossfadeSeconds, gridSeconds: beats == nil ? gridSeconds : nil,
                gridOffsetSeconds: gridOffsetSeconds ?? 0, beats: beats, jitterSeconds: jitterSeconds ?? 0,
                sampleRate: sampleRate)
        }
    }
}
