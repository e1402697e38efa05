/// Keeps the summed mix within full scale without touching ordinary levels.
///
/// Below the threshold (−1 dBFS) it does nothing at all. A frame that would exceed it pulls the gain down at
/// once, exactly enough; the gain then recovers smoothly (about 250 ms to −1 dB of recovery). A final clamp to
/// ±1 guards against anything the envelope misses (it never does by construction, but the output must be bounded).
public struct SoftLimiter: Sendable {
    public static let threshold: Float = 0.891  // −1 dBFS
    public private(set) var gain: Float = 1
    private let release: Float

    public init(sampleRate: Int) {
        // One-pole recovery toward unity with a time constant of 100 ms.
        release = 1 - Float(FadeEnvelope.pow10(-1 / (0.1 * Double(sampleRate) * 2.302585092994046)))
    }

    /// Limits interleaved stereo in place.
    @inline(__always)
    public mutating func process(_ buffer: UnsafeMutablePointer<Float>, frames: Int) {
        var g = gain
        let t = SoftLimiter.threshold
        // The usual case: the gain is at rest (at 1, or where recovery no longer moves it) and no sample would
        // reach the threshold. Then the loop below would only scale and clamp every sample by the same gain; that
        // is done here in passes that vectorize, after one pass that checks the condition (a NaN fails it).
        if g == 1 || (g < 1 && g + (1 - g) * release == g) {
            if SoftLimiter.allWithin(buffer, count: 2 * frames, gain: g, threshold: t) {
                if g != 1 {
                    for i in 0..<(2 * frames) { buffer[i] = max(-1, min(1, buffer[i] * g)) }
                }
                return
            }
        }
        for i in 0..<frames {
            let l = buffer[2 * i]
            let r = buffer[2 * i + 1]
            let peak = max(abs(l), abs(r))
            if g < 1 { g += (1 - g) * release }
            if peak * g > t { g = t / peak }
            buffer[2 * i] = max(-1, min(1, l * g))
            buffer[2 * i + 1] = max(-1, min(1, r * g))
        }
        gain = g
    }

    /// True when every |sample| · gain is at most the threshold (false for a NaN). Kept out of line: inlined into
    /// the mixer, the compiler turns this loop into a scalar one that stops at the first sample over.
    @inline(never)
    static func allWithin(_ buffer: UnsafeMutablePointer<Float>, count: Int, gain: Float, threshold: Float) -> Bool {
        var over: UInt8 = 0
        for i in 0..<count { over |= abs(buffer[i]) * gain <= threshold ? 0 : 1 }
        return over == 0
    }
}
