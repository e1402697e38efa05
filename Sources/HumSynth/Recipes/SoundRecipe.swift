import HumCore

/// How to make one built-in sound: what the manifest says about it, and a function from a length and a seed to
/// the samples.
public struct SoundRecipe: Sendable {
    /// The command-line name: a short lowercase word.
    public var id: String
    public var title: String
    public var category: String
    /// One line saying what it sounds like.
    public var description: String
    /// Length of the loop in the library, in whole seconds.
    public var seconds: Int
    public var channels: Int
    public var seed: UInt64
    /// The recipe's name, version and parameters, as recorded in the manifest.
    public var recipe: String
    /// One-shot events the mixer scatters over this loop (its bed), if any.
    public var events: EventRecipe?
    /// Where the beats of a bed whose beat is not even fall in a loop of so many frames at a sample rate, in
    /// frames (nil: no such beat): written to the manifest as its segments' `beats`, so that joins fall between them.
    let beatFrames: (@Sendable (Int, Double) -> [Int])?
    let renderer: @Sendable (inout RenderContext) -> [[Float]]

    public init(
        id: String, title: String, category: String, description: String, seconds: Int, channels: Int,
        seed: UInt64, recipe: String, events: EventRecipe? = nil, beats: (@Sendable (Int, Double) -> [Int])? = nil,
        render: @escaping @Sendable (inout RenderContext) -> [[Float]]
    ) {
        self.beatFrames = beats
        self.id = id
        self.title = title
        self.category = category
        self.description = description
        self.seconds = seconds
        self.channels = channels
        self.seed = seed
        self.recipe = recipe
        self.events = events
        self.renderer = render
    }

    /// The beats of the library's loop in seconds from its start (to 0.1 ms), or nil when the sound has no uneven
    /// beat.
    public func beats(sampleRate: Int = 48_000) -> [Double]? {
        beatFrames.map { f in
            f(seconds * sampleRate, Double(sampleRate)).map {
                (Double($0) / Double(sampleRate) * 10_000).rounded() / 10_000
            }
        }
    }

    /// Renders a loop of `frames` frames (the library's length unless asked otherwise, e.g. a short one for a test):
    /// one array per channel, periodic in `frames`, at an arbitrary level (the generator normalizes it).
    public func render(sampleRate: Int = 48_000, frames: Int? = nil, seed: UInt64? = nil) -> [[Float]] {
        var context = RenderContext(
            sampleRate: Double(sampleRate), frames: frames ?? seconds * sampleRate,
            rng: SplitMix64(seed: seed ?? self.seed))
        let out = renderer(&context)
        precondition(
            out.count == channels && out.allSatisfy { $0.count == context.frames },
            "recipe \(id) rendered the wrong shape")
        return out
    }
}

/// What a recipe renders into: the sample rate, the loop's length and the random numbers.
public struct RenderContext: Sendable {
    public let sampleRate: Double
    public let frames: Int
    public var rng: SplitMix64

    public var seconds: Double { Double(frames) / sampleRate }

    /// White noise over the whole loop.
    public mutating func noise() -> [Float] { Loop.whiteNoise(frames: frames, rng: &rng) }

    /// Pink noise (-3 dB per octave) over the whole loop.
    public mutating func pinkNoise() -> [Float] {
        Loop.filtered(noise(), PinkingFilter(sampleRate: sampleRate))
    }

    /// Brown noise (-6 dB per octave above `corner` Hz, nothing much below 16 Hz) over the whole loop.
    public mutating func brownNoise(corner: Double = 20) -> [Float] {
        let lowPassed = Loop.filtered(noise(), OnePoleLowPass(corner, sampleRate: sampleRate))
        return Loop.filtered(lowPassed, Biquad.highPass(16, sampleRate: sampleRate))
    }

    /// A smooth random curve in [-1, 1], periodic in the loop, varying about `perMinute` times a minute (the
    /// number of cycles is rounded to a whole number per loop, at least one).
    public mutating func wander(perMinute: ClosedRange<Double>, tilt: Double = 1) -> [Float] {
        let low = max(1, Int((perMinute.lowerBound * seconds / 60).rounded()))
        let high = max(low, Int((perMinute.upperBound * seconds / 60).rounded()))
        return Loop.smoothRandom(frames: frames, cycles: low...high, tilt: tilt, rng: &rng)
    }

    /// Times of `rate` events per second on average, spread as a Poisson process over the loop.
    public mutating func eventTimes(rate: Double) -> [Int] {
        var times: [Int] = []
        var t = rng.exponential(mean: 1 / rate)
        while t < seconds {
            times.append(Int(t * sampleRate))
            t += rng.exponential(mean: 1 / rate)
        }
        return times
    }

    /// Equal-power pan gains for a position in [-1 (left), 1 (right)].
    public func pan(_ position: Double) -> (left: Float, right: Float) {
        let angle = (position + 1) * SynthMath.pi / 4
        let sc = SynthMath.sinCos(angle)
        return (Float(sc.cos), Float(sc.sin))
    }

    /// Two channels sharing `correlation` of their content: `common` in both, `left`/`right` apart (all of
    /// equal level in, equal level out).
    public func blend(common: [Float], left: [Float], right: [Float], correlation: Double) -> [[Float]] {
        let c = Float(correlation.squareRoot())
        let s = Float((1 - correlation).squareRoot())
        var l = Loop.scaled(common, c)
        var r = l
        Loop.mix(left, gain: s, into: &l)
        Loop.mix(right, gain: s, into: &r)
        return [l, r]
    }
}
