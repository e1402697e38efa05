import HumCore

/// The one-shot events a built-in sound plays over its bed (thunder strokes, and later birdsong phrases, wave
/// slaps): how many distinct clips to render and how, and how the mixer is to scatter them (the manifest's
/// `events`). A bank may instead borrow another sound's clips (the storm plays the thunder's strokes), so the
/// library holds them once.
public struct EventRecipe: Sendable {
    /// Whose clips: this sound's own (`nil`) or another built-in's, by id.
    public var borrowedFrom: String?
    /// How many distinct clips (ignored when borrowed).
    public var count: Int
    public var channels: Int
    /// The longest a clip may last, in seconds.
    public var seconds: Double
    /// Loudness of a clip as written, relative to the library's target (LU): a clip at 0 dB gain sits this far
    /// over (or under) a bed, whose loudness is the target. See docs/sounds.md, "Events".
    public var levelLU: Double
    /// Mean events per hour, the shortest gap between two starts, and the gain and pan ranges the mixer draws from.
    public var perHour: Double
    public var minGapSeconds: Double
    public var gainDB: ClosedRange<Double>
    public var pan: ClosedRange<Double>
    /// Renders clip `index` (0-based): one array per channel, starting and ending in silence, any length.
    let renderer: (@Sendable (inout RenderContext, Int) -> [[Float]])?

    public init(
        count: Int, channels: Int, seconds: Double, levelLU: Double, perHour: Double, minGapSeconds: Double,
        gainDB: ClosedRange<Double>, pan: ClosedRange<Double>,
        render: @escaping @Sendable (inout RenderContext, Int) -> [[Float]]
    ) {
        self.borrowedFrom = nil
        self.count = count
        self.channels = channels
        self.seconds = seconds
        self.levelLU = levelLU
        self.perHour = perHour
        self.minGapSeconds = minGapSeconds
        self.gainDB = gainDB
        self.pan = pan
        self.renderer = render
    }

    /// A bank that plays another sound's clips at its own rate, gains and pans.
    public static func borrowing(
        _ id: String, perHour: Double, minGapSeconds: Double, gainDB: ClosedRange<Double>,
        pan: ClosedRange<Double>
    ) -> EventRecipe {
        EventRecipe(
            borrowedFrom: id, perHour: perHour, minGapSeconds: minGapSeconds, gainDB: gainDB, pan: pan)
    }

    private init(
        borrowedFrom: String, perHour: Double, minGapSeconds: Double, gainDB: ClosedRange<Double>,
        pan: ClosedRange<Double>
    ) {
        self.borrowedFrom = borrowedFrom
        self.count = 0
        self.channels = 0
        self.seconds = 0
        self.levelLU = 0
        self.perHour = perHour
        self.minGapSeconds = minGapSeconds
        self.gainDB = gainDB
        self.pan = pan
        self.renderer = nil
    }

    /// The clip files of a bank of `count` clips of sound `id`, relative to the manifest's folder.
    public static func files(of id: String, count: Int, fileExtension: String = "ogg") -> [String] {
        guard count > 0 else { return [] }
        return (1...count).map { k in "events/\(id)/" + (k < 10 ? "0\(k)" : "\(k)") + ".\(fileExtension)" }
    }

    /// Renders clip `index` of this bank for sound `id` seeded `seed`: each clip has its own random stream, so
    /// changing one clip's recipe leaves the others alone. The context's frames are `seconds` long; the renderer may
    /// return fewer.
    public func render(index: Int, seed: UInt64, sampleRate: Int = 48_000) -> [[Float]] {
        guard let renderer else { return [] }
        var stream = SplitMix64(seed: seed ^ 0x4556_454E_5453_0000)
        for _ in 0...index { _ = stream.next() }
        var context = RenderContext(
            sampleRate: Double(sampleRate), frames: Int(seconds * Double(sampleRate)),
            rng: SplitMix64(seed: stream.next()))
        let out = renderer(&context, index)
        precondition(
            out.count == channels && out.allSatisfy { $0.count == out[0].count && !$0.isEmpty },
            "event recipe rendered the wrong shape")
        return out
    }
}
