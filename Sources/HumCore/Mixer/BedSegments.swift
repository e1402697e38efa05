/// How a bed is played so that it never comes round the same way: as a chain of segments of its loop, each
/// taken from a random place and joined to the last by an equal-power crossfade, their lengths random within a
/// range (see `SoundManifest.Segments`). A loop of steady texture then never repeats a stretch longer than the
/// longest segment; a sound without segments plays its loop round and round, as it always did.
///
/// With a grid (a rhythmic bed: a clock, a train), every segment's length and every jump is a whole number of
/// grid steps, and each crossfade starts `phase` frames after a step, where the sound is between beats. With a
/// list of beats (a beat that is not even: a heart whose rate breathes), the steps are those beats: a segment runs
/// from `phase` after one beat to `phase` after a later one, and a jump lands `phase` after another, so every
/// interval between two beats heard is one of the loop's own.
///
/// Immutable once made. The mixer reads it from the audio thread through `table`, plain memory allocated here;
/// the owner keeps it alive (with the sound's `Mixer.Track`) until the audio thread has let go of the sound.
public final class BedSegments: @unchecked Sendable {
    // @unchecked: immutable after init; the audio thread reads only `table` and the weights.

    /// Everything the audio thread needs, in one block of plain memory.
    struct Table {
        /// A segment (from one crossfade's start to the next's) is `step` × (`shortestSteps` + a number drawn
        /// below `stepChoices`) frames long (1 frame without a grid; with one, the beat, stretched a little so
        /// that the loop holds a whole number of them).
        var step: Double
        var shortestSteps: Int
        var stepChoices: Int
        /// Frames from a grid step to the start of a crossfade (0 without a grid).
        var phase: Int
        /// A jump lands up to this many frames before or after its place (0: on it).
        var jitterFrames: Int
        /// The beats, in frames from the loop's start, rising (nil: the steps are even); `beatCount` of them.
        var beats: UnsafePointer<Int>?
        var beatCount: Int
        var crossfadeFrames: Int
        /// A jump lands at least this far (along the loop, either way) from where the bed was, so the two sides
        /// of a crossfade are not the same stretch of sound.
        var marginFrames: Int
        /// `crossfadeFrames` rising weights (sin), then as many falling ones (cos): their squares sum to 1.
        var weights: UnsafePointer<Float>
        /// FNV-1a of the sound's name: each sound draws its own sequence from the session's seed.
        var nameHash: UInt64
    }

    public let name: String
    public let segmentSeconds: ClosedRange<Double>
    public let crossfadeSeconds: Double
    public let gridSeconds: Double?
    public let gridOffsetSeconds: Double
    /// The beats in seconds from the loop's start, when the beat is not even (nil: none).
    public let beats: [Double]?
    /// With a grid or beats, how far before or after its place a jump may land, in seconds.
    public let jitterSeconds: Double
    public let sampleRate: Int
    let table: UnsafeMutablePointer<Table>
    private let weights: UnsafeMutablePointer<Float>
    private let beatFrames: UnsafeMutablePointer<Int>?

    /// The shortest crossfade, and the least distance a jump goes: a second, or the crossfade if longer.
    public static let shortestCrossfadeSeconds = 0.01
    public static let marginSeconds = 1.0

    /// - Parameters:
    ///   - name: the sound's name, which picks its own random sequence from the session's seed.
    ///   - segmentSeconds: each segment's length (from one crossfade's start to the next's) is drawn in this range;
    ///     with a grid, rounded to whole steps within it (at least one step, and longer than the crossfade).
    ///   - crossfadeSeconds: the length of each equal-power crossfade.
    ///   - gridSeconds: the beat of a rhythmic bed (nil: none).
    ///   - gridOffsetSeconds: where in a grid step a crossfade starts (between beats).
    ///   - beats: the beats of a bed whose beat is not even, in seconds from the loop's start, rising (checked by
    ///     `SoundManifest.Segments.problem`; a list that does not rise is not used); replaces the grid.
    ///   - jitterSeconds: with a grid or beats, a jump lands at random up to this far before or after its place
    ///     (at most the offset, and at most `SoundManifest.Segments.maximumJitterSeconds`).
    public init(
        name: String, segmentSeconds: ClosedRange<Double>, crossfadeSeconds: Double, gridSeconds: Double? = nil,
        gridOffsetSeconds: Double = 0, beats: [Double]? = nil, jitterSeconds: Double = 0, sampleRate: Int
    ) {
        self.name = name
        self.segmentSeconds = segmentSeconds
        self.crossfadeSeconds = max(BedSegments.shortestCrossfadeSeconds, crossfadeSeconds)
        self.gridSeconds = gridSeconds.flatMap { $0 > 0 ? $0 : nil }
        self.gridOffsetSeconds = max(0, gridOffsetSeconds)
        self.sampleRate = sampleRate
        let rate = Double(sampleRate)
        let crossfade = max(1, Int((self.crossfadeSeconds * rate).rounded()))
        // Beats in frames, kept only when a crossfade and its offset fit between every two (else the sound plays
        // as without them; `SoundManifest.Segments.problem` says why to people).
        let frames = (beats ?? []).map { $0.isFinite && $0 >= 0 && $0 < 1e7 ? Int(($0 * rate).rounded()) : -1 }
        let jitter =
            self.gridSeconds == nil && beats == nil
            ? 0.0
            : min(max(0, jitterSeconds), self.gridOffsetSeconds, SoundManifest.Segments.maximumJitterSeconds)
        self.jitterSeconds = jitter
        let room = Int((self.gridOffsetSeconds * rate).rounded()) + Int((jitter * rate).rounded()) + crossfade
        let rising =
            frames.count >= 2 && frames[0] >= 0 && zip(frames, frames.dropFirst()).allSatisfy { $1 - $0 > room }
        self.beats = rising ? beats : nil
        if rising {
            beatFrames = .allocate(capacity: frames.count)
            beatFrames?.initialize(from: frames, count: frames.count)
        } else {
            beatFrames = nil
        }
        // With beats, a step is their mean gap: what segment lengths are counted in.
        let step =
            rising
            ? Double(frames[frames.count - 1] - frames[0]) / Double(frames.count - 1)
            : max(1, (self.gridSeconds ?? 0) * rate)
        let shortest = max(Double(crossfade + 2), (segmentSeconds.lowerBound * rate).rounded())
        let longest = max(shortest, (segmentSeconds.upperBound * rate).rounded())
        var fewest = max(1, Int((shortest / step).rounded(.up)))
        while Double(fewest) * step < Double(crossfade + 2) { fewest += 1 }
        let most = max(fewest, Int((longest / step).rounded(.down)))
        weights = .allocate(capacity: 2 * crossfade)
        for k in 0..<crossfade {
            let angle = Double.pi / 2 * (Double(k) + 0.5) / Double(crossfade)
            (weights + k).initialize(to: Float(VoiceFade.sin(angle)))
            (weights + crossfade + k).initialize(to: Float(VoiceFade.cos(angle)))
        }
        table = .allocate(capacity: 1)
        table.initialize(
            to: Table(
                step: step, shortestSteps: fewest, stepChoices: most - fewest + 1,
                phase: rising
                    ? Int((self.gridOffsetSeconds * rate).rounded())
                    : step > 1 ? Int((self.gridOffsetSeconds * rate).rounded()) % Int(step.rounded()) : 0,
                jitterFrames: Int((jitter * rate).rounded()), beats: beatFrames.map { UnsafePointer($0) },
                beatCount: rising ? frames.count : 0,
                crossfadeFrames: crossfade, marginFrames: max(crossfade, Int(BedSegments.marginSeconds * rate)),
                weights: UnsafePointer(weights), nameHash: SoundEvents.fnv1a(name)))
    }

    deinit {
        weights.deinitialize(count: 2 * table.pointee.crossfadeFrames)
        weights.deallocate()
        beatFrames?.deinitialize(count: table.pointee.beatCount)
        beatFrames?.deallocate()
        table.deinitialize(count: 1)
        table.deallocate()
    }

    /// Whether a loop of `frames` frames is long enough to be played in segments: a jump of at least the margin
    /// either way must have somewhere to land; with beats, they must all lie in the loop, and a crossfade with its
    /// offset fit between the last and the first, round the wrap. A loop that does not fit plays round and round.
    public func fits(frames: Int) -> Bool { Mixer.Voice.segmentJumps(table, frames: frames) != nil }
}
