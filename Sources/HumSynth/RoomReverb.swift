import HumCore

/// A small room, a café or a wood around a sound: a Schroeder reverberator (four feedback combs in parallel, damped
/// so highs die first, then two all-passes in series). Its delays are set by `seed` so that two of them (left and
/// right) give decorrelated, spacious tails. Run it with `Loop.filtered` like any filter: its tail then wraps around
/// the loop as everything else does.
public struct RoomReverb: SampleProcessor, Sendable {
    var combs: [[Float]]
    var combIndex: [Int]
    var combFeedback: [Float]
    var combLowPass: [Float]
    var allPasses: [[Float]]
    var allPassIndex: [Int]
    let damping: Float
    let wet: Float
    let dry: Float

    /// - Parameters:
    ///   - size: the rooms' scale: 1 is a living room (comb delays around 30-40 ms), 2 a café, 4 a hall or a wood.
    ///   - decay: seconds for the tail to fall by 60 dB.
    ///   - damping: 0 (bright) to 0.9 (very dark): how much faster the highs die.
    ///   - wet: the tail's gain; the sound itself passes at `dry`.
    public init(
        sampleRate: Double, size: Double, decay: Double, damping: Double = 0.4, wet: Double, dry: Double = 1,
        seed: UInt64 = 0
    ) {
        var rng = SplitMix64(seed: 0x5245_5645_5242 ^ seed)
        let base = [0.0297, 0.0371, 0.0411, 0.0437]
        var combs: [[Float]] = []
        var feedback: [Float] = []
        for b in base {
            let delay = max(1, Int(b * size * rng.uniform(0.93...1.07) * sampleRate))
            combs.append([Float](repeating: 0, count: delay))
            // Gain per trip so that the loop falls 60 dB in `decay` seconds.
            feedback.append(Float(SynthMath.pow(10, -3 * Double(delay) / (decay * sampleRate))))
        }
        self.combs = combs
        combIndex = [Int](repeating: 0, count: combs.count)
        combFeedback = feedback
        combLowPass = [Float](repeating: 0, count: combs.count)
        allPasses = [0.005, 0.0017].map {
            [Float](repeating: 0, count: max(1, Int($0 * size * rng.uniform(0.9...1.1) * sampleRate)))
        }
        allPassIndex = [0, 0]
        self.damping = Float(damping)
        self.wet = Float(wet / 4)
        self.dry = Float(dry)
    }

    @inline(__always)
    public mutating func process(_ x: Float) -> Float {
        var sum: Float = 0
        for k in 0..<combs.count {
            let i = combIndex[k]
            let y = combs[k][i]
            combLowPass[k] = y * (1 - damping) + combLowPass[k] * damping
            combs[k][i] = x + combLowPass[k] * combFeedback[k]
            combIndex[k] = i + 1 == combs[k].count ? 0 : i + 1
            sum += y
        }
        var v = sum
        for k in 0..<allPasses.count {
            let i = allPassIndex[k]
            let stored = allPasses[k][i]
            let out = -v + stored
            allPasses[k][i] = v + stored * 0.5
            allPassIndex[k] = i + 1 == allPasses[k].count ? 0 : i + 1
            v = out
        }
        return x * dry + v * wet
    }
}
