/// A sound's bank of one-shot events, loaded and ready for the mixer: the clips at the output rate and how they
/// are scattered (a mean rate, a minimum gap, gain and pan ranges; see `SoundManifest.EventBank`).
///
/// Immutable once made. The mixer reads it from the audio thread through `table`, plain memory allocated here,
/// so it never touches this object or its clips' reference counts; the owner keeps it alive (with the sound's
/// `Mixer.Track`) until the audio thread has let go of the sound, as it does the bed's samples.
public final class SoundEvents: @unchecked Sendable {
    // @unchecked: immutable after init; the audio thread reads only `table` and the clips' samples.

    /// One clip as the audio thread sees it.
    struct Clip {
        var samples: UnsafePointer<Int16>
        var frames: Int
        var channels: Int
        /// The clip's own gain (loudness matching), before the event's random gain and pan.
        var gain: Float
    }

    /// Everything the audio thread needs, in one block of plain memory.
    struct Table {
        var clips: UnsafePointer<Clip>
        var clipCount: Int
        /// The shortest time from one event's start to the next's, in frames.
        var minimumGapFrames: Int64
        /// The mean of the exponential time added to the minimum gap, in frames (0: events every minimum gap).
        var meanExtraFrames: Double
        var gainDBMin: Double
        var gainDBSpan: Double
        var panMin: Double
        var panSpan: Double
        /// FNV-1a of the sound's name: each sound draws its own sequence from the session's seed.
        var nameHash: UInt64
    }

    /// The most events of one sound that sound at once; one more is skipped (its random draws still taken, so
    /// the schedule does not depend on how long the clips are).
    public static var maximumOverlap: Int { MixerEvents.overlap }

    public let name: String
    public let clips: [LoopBuffer]
    public let clipGains: [Float]
    public let perHour: Double
    public let minimumGapSeconds: Double
    public let gainDB: ClosedRange<Double>
    public let pan: ClosedRange<Double>
    public let sampleRate: Int
    let table: UnsafeMutablePointer<Table>
    private let clipTable: UnsafeMutablePointer<Clip>

    /// - Parameters:
    ///   - name: the sound's name, which picks its own random sequence from the session's seed.
    ///   - clips: the one-shots, mono or stereo at `sampleRate` (the mixer's); at least one.
    ///   - clipGains: a gain per clip (loudness matching); 1 each when empty.
    ///   - perHour: mean events per hour (above 0).
    ///   - minimumGapSeconds: no event starts sooner than this after the previous one started.
    ///   - gainDB: each event's gain is drawn uniformly from this range, in dB.
    ///   - pan: each event's pan is drawn uniformly from this range (−1 left … 1 right), equal power.
    public init(
        name: String, clips: [LoopBuffer], clipGains: [Float] = [], perHour: Double, minimumGapSeconds: Double,
        gainDB: ClosedRange<Double>, pan: ClosedRange<Double>, sampleRate: Int
    ) {
        precondition(!clips.isEmpty, "an event bank has at least one clip")
        precondition(clipGains.isEmpty || clipGains.count == clips.count, "a gain per clip")
        precondition(perHour > 0 && perHour.isFinite, "events come at a positive rate")
        self.name = name
        self.clips = clips
        self.clipGains = clipGains.isEmpty ? Array(repeating: 1, count: clips.count) : clipGains
        self.perHour = perHour
        self.minimumGapSeconds = max(0, minimumGapSeconds)
        self.gainDB = gainDB
        self.pan = max(-1, pan.lowerBound)...min(1, max(pan.upperBound, max(-1, pan.lowerBound)))
        self.sampleRate = sampleRate
        clipTable = .allocate(capacity: clips.count)
        for (i, clip) in clips.enumerated() {
            (clipTable + i).initialize(
                to: Clip(
                    samples: UnsafePointer(clip.samples), frames: clip.frames, channels: clip.channels,
                    gain: self.clipGains[i]))
        }
        let rate = Double(sampleRate)
        let minimumGap = max(1, (self.minimumGapSeconds * rate).rounded())
        let mean = 3600 / perHour * rate
        table = .allocate(capacity: 1)
        table.initialize(
            to: Table(
                clips: UnsafePointer(clipTable), clipCount: clips.count, minimumGapFrames: Int64(minimumGap),
                meanExtraFrames: max(0, mean - minimumGap), gainDBMin: gainDB.lowerBound,
                gainDBSpan: gainDB.upperBound - gainDB.lowerBound, panMin: self.pan.lowerBound,
                panSpan: self.pan.upperBound - self.pan.lowerBound, nameHash: SoundEvents.fnv1a(name)))
    }

    deinit {
        clipTable.deinitialize(count: clips.count)
        clipTable.deallocate()
        table.deinitialize(count: 1)
        table.deallocate()
    }

    /// Sample memory held by the clips, in bytes.
    public var memoryBytes: Int { clips.reduce(0) { $0 + $1.memoryBytes } }

    /// FNV-1a, 64-bit, of the name's UTF-8 bytes.
    public static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}

/// The few functions of real numbers the event scheduler needs, in plain Swift (HumCore has no libm), cheap and
/// free of allocation for the audio thread.
enum EventMath {
    /// ln x for x > 0: x = m·2^e with m in [1, 2), ln m = 2·atanh((m − 1)/(m + 1)) by its series (|z| ≤ 1/3).
    @inline(__always)
    static func log(_ x: Double) -> Double {
        guard x > 0, x.isFinite else { return x == 0 ? -.infinity : x.isNaN || x < 0 ? .nan : x }
        let e = Double(Int(x.exponent))
        let m = x.significand
        let z = (m - 1) / (m + 1)
        let z2 = z * z
        var term = z
        var sum = z
        var k = 3.0
        for _ in 0..<20 {
            term *= z2
            sum += term / k
            k += 2
        }
        return 2 * sum + e * 0.6931471805599453
    }

    /// A uniform number in [0, 1) from 53 random bits.
    @inline(__always)
    static func unit(_ random: inout SplitMix64) -> Double { Double(random.next() >> 11) * 0x1p-53 }
}
