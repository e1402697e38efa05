/// The mix-wide fade the timer drives: to silence and back over seconds, on a natural curve.
///
/// The curve is exponential in amplitude (linear in dB): gain(p) = (10^(−3p) − 10^(−3)) / (1 − 10^(−3)) for a
/// position p from 0 (full) to 1 (silent). It falls 60 dB at an even pace and still lands exactly on zero. A fade
/// is a motion of p toward 0 or 1 that reaches its end after exactly the requested number of frames, wherever it
/// started; reversing, re-timing or holding a fade midway continues from the current p, so the gain never jumps.
public struct FadeEnvelope: Sendable {
    public enum Direction: Sendable, Equatable { case none, toSilence, toFull }

    /// 0 = full volume, 1 = silence.
    public private(set) var position: Double
    public private(set) var direction: Direction = .none
    private var stepPerFrame: Double = 0
    private var framesRemaining = 0
    private var target = 0.0

    static let floor = 0.001  // −60 dB, where the curve meets zero

    public init(silent: Bool = false) { position = silent ? 1 : 0 }

    public var isSilent: Bool { position >= 1 }
    public var isMoving: Bool { framesRemaining > 0 }

    /// Starts moving to silence (or to full) so that the end is reached after exactly `frames` frames.
    public mutating func start(toSilence: Bool, frames: Int) {
        start(toPosition: toSilence ? 1 : 0, frames: frames)
    }

    /// Starts moving to a position on the curve (0 full … 1 silent), reached after exactly `frames` frames.
    public mutating func start(toPosition requested: Double, frames: Int) {
        let end = min(1, max(0, requested))
        if frames <= 0 || position == end {
            position = end
            hold()
            return
        }
        direction = end > position ? .toSilence : .toFull
        target = end
        framesRemaining = frames
        stepPerFrame = (end - position) / Double(frames)
    }

    /// Stops where it is (a fade cancelled midway holds its level).
    public mutating func hold() {
        direction = .none
        stepPerFrame = 0
        framesRemaining = 0
    }

    /// The gain at a position on the curve.
    @inline(__always)
    public static func gain(at position: Double) -> Float {
        if position <= 0 { return 1 }
        if position >= 1 { return 0 }
        return Float((pow10(-3 * position) - floor) / (1 - floor))
    }

    public var gain: Float { FadeEnvelope.gain(at: position) }

    /// Fills `out[0..<frames]` with the gain of each of the next frames and advances.
    /// Returns false, writing only `out[0]`, when the gain is constant over the span (the caller can skip work).
    @inline(__always)
    public mutating func fill(_ out: UnsafeMutablePointer<Float>, frames: Int) -> Bool {
        guard framesRemaining > 0 else {
            out[0] = gain
            return false
        }
        let moving = min(frames, framesRemaining)
        // e = 10^(−3p) changes by a constant factor per frame: one series per span, one multiply per frame.
        var e = FadeEnvelope.pow10(-3 * position)
        let factor = FadeEnvelope.pow10(-3 * stepPerFrame)
        let scale = 1 / (1 - FadeEnvelope.floor)
        for i in 0..<moving {
            e *= factor
            out[i] = Float(max(0, min(1, (e - FadeEnvelope.floor) * scale)))
        }
        framesRemaining -= moving
        if framesRemaining == 0 {
            position = target
            let g = gain
            out[moving - 1] = g
            for i in moving..<frames { out[i] = g }
            hold()
        } else {
            position += stepPerFrame * Double(moving)
        }
        return true
    }

    /// `x.rounded()` (to nearest, halves away from zero), exactly, for |x| < 2⁶³, written without the rounding-rule
    /// enum, which the compiler's no-allocation check on the audio thread's code refuses.
    @inline(__always)
    static func roundedHalfAway(_ x: Double) -> Double {
        guard abs(x) < 4e18 else { return x }  // NaN, infinities and huge values are already whole (or NaN)
        let whole = Double(Int(x))  // toward zero; x − whole is exact
        return abs(x - whole) >= 0.5 ? whole + (x < 0 ? -1 : 1) : whole
    }

    /// 10^x for x ≤ 0 without libm's pow: e^y by range reduction to |r| ≤ ln2/2 and a short series.
    @inline(__always)
    static func pow10(_ x: Double) -> Double {
        let y = x * 2.302585092994046  // ln 10
        let k = FadeEnvelope.roundedHalfAway(y / 0.6931471805599453)
        let r = y - k * 0.6931471805599453
        var term = 1.0
        var sum = 1.0
        for n in 1...12 {
            term *= r / Double(n)
            sum += term
        }
        return sum * Double(sign: .plus, exponent: Int(k), significand: 1)
    }
}
