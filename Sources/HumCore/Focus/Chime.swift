/// hum's soft chime, made by code: a struck bell-like tone of a few inharmonic partials, each decaying at its own
/// rate, that marks a phase running out. Mono, 1.5 s, deterministic (no randomness), identical on every machine.
///
/// Shape: a 12 ms raised-cosine (sin²) attack (the first sample is exactly 0 and the envelope starts with zero
/// slope, so there is no click), exponential decays (the fundamental at τ = 0.35 s, higher partials faster: about
/// 30 dB under the peak by 1.25 s), and a 250 ms raised-cosine taper that ends on exactly 0.
///
/// Level: the rendering is scaled so its RMS over the whole 1.5 s is exactly `targetRMS` (−30 dBFS, unweighted),
/// whatever the sample rate; its peak then sits near −15 dBFS, well under the sounds' −6 dBTP ceiling. The core
/// cannot run EBU R128 (libebur128 is C), so this RMS is the fixed point the adapter works from. Measured once with
/// ffmpeg's ebur128 filter at 48 kHz: −29.9 LUFS integrated as mono, so −26.9 LUFS when the same samples feed both
/// channels of a stereo stream, which is the built-in sounds' −27 LUFS target. The adapter should confirm with
/// libebur128 (the mixer's own meter) and, if it differs, pass `gain` = 10^((−27 − measured) / 20).
public enum Chime {
    /// Length of the chime.
    public static let duration: Duration = .milliseconds(1500)
    /// RMS over the whole chime at `gain` 1, in dBFS (unweighted).
    public static let targetRMSdBFS: Double = -30
    /// `targetRMSdBFS` as a linear amplitude: 10^(−30/20).
    public static let targetRMS: Double = 0.031_622_776_601_683_79

    /// The fundamental, E5.
    static let fundamental = 659.25
    /// (frequency ratio, relative amplitude, decay time constant in seconds): the hum an octave below, the
    /// fundamental, and the octave, minor-third-ish and upper partials of a small bell.
    static let partials: [(ratio: Double, amplitude: Double, decay: Double)] = [
        (0.5, 0.18, 0.45),
        (1.0, 1.00, 0.35),
        (2.0, 0.45, 0.26),
        (2.76, 0.26, 0.19),
        (5.40, 0.10, 0.10),
    ]
    static let attack = 0.012
    static let taper = 0.250

    /// Renders the chime as mono float samples at `sampleRate` (frames per second), scaled by `gain` on top of the
    /// fixed RMS. Returns `1.5 × sampleRate` samples.
    public static func render(sampleRate: Int, gain: Float = 1) -> [Float] {
        precondition(sampleRate >= 8000, "the chime needs a sample rate of 8 kHz or more")
        let rate = Double(sampleRate)
        let count = Int((FocusTime.seconds(duration) * rate).rounded())
        // Each partial is a phasor turned by a fixed rotation per sample and shrunk by a fixed decay factor per
        // sample: a damped sine with no sine call per sample (drift over 1.5 s stays near 1e-11). Partials above
        // 0.45 × the sample rate are dropped.
        struct Voice { var re: Double, im: Double, cos: Double, sin: Double, decay: Double }
        var voices = partials.compactMap { p -> Voice? in
            let cycles = fundamental * p.ratio / rate
            guard cycles < 0.45 else { return nil }
            return Voice(
                re: p.amplitude, im: 0, cos: ChimeMath.cosTurns(cycles), sin: ChimeMath.sinTurns(cycles),
                decay: ChimeMath.exp(-1 / (p.decay * rate)))
        }
        var raw = [Double](repeating: 0, count: count)
        let attackSamples = attack * rate
        let taperSamples = taper * rate
        for n in 0..<count {
            var x = 0.0
            for v in voices.indices {
                let voice = voices[v]
                x += voice.im
                voices[v].re = (voice.re * voice.cos - voice.im * voice.sin) * voice.decay
                voices[v].im = (voice.re * voice.sin + voice.im * voice.cos) * voice.decay
            }
            let t = Double(n)
            // Raised cosines written as sin², which is exactly 0 at the ends (sin 0 is 0 in the series).
            if t < attackSamples {
                let s = ChimeMath.sinTurns(t / attackSamples / 4)
                x *= s * s
            }
            let fromEnd = Double(count - 1 - n)
            if fromEnd < taperSamples {
                let s = ChimeMath.sinTurns(fromEnd / taperSamples / 4)
                x *= s * s
            }
            raw[n] = x
        }
        var sumOfSquares = 0.0
        for x in raw { sumOfSquares += x * x }
        let rms = (sumOfSquares / Double(max(count, 1))).squareRoot()
        let scale = rms > 0 ? targetRMS / rms * Double(gain) : 0
        return raw.map { Float($0 * scale) }
    }
}

/// The little transcendental math the chime needs. The standard library has no `sin` or `exp` without importing a
/// C module, which HumCore does not; these are accurate to about 1e-15 over the ranges used.
enum ChimeMath {
    /// sin(2π · turns) for turns in [0, 1).
    static func sinTurns(_ turns: Double) -> Double {
        // Fold into [-1/4, 1/4] turn, where the series converges fast.
        var t = turns - turns.rounded()  // [-1/2, 1/2]
        if t > 0.25 { t = 0.5 - t } else if t < -0.25 { t = -0.5 - t }
        return sinSeries(2 * Double.pi * t)
    }

    /// cos(2π · turns).
    static func cosTurns(_ turns: Double) -> Double { sinTurns(turns + 0.25 - (turns + 0.25).rounded(.down)) }

    /// sin(x) for |x| ≤ π/2, by its Taylor series.
    private static func sinSeries(_ x: Double) -> Double {
        let x2 = x * x
        var term = x
        var sum = x
        var k = 1.0
        while abs(term) > 1e-18 * abs(sum) + 1e-300 {
            term *= -x2 / ((2 * k) * (2 * k + 1))
            sum += term
            k += 1
            if k > 30 { break }
        }
        return sum
    }

    /// e^x: x = k·ln 2 + r with |r| ≤ ln 2 / 2, e^r by its series, then scaled by 2^k.
    static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709 { return .infinity }
        if x < -745 { return 0 }
        let ln2 = 0.693_147_180_559_945_309_4
        let k = (x / ln2).rounded()
        let r = x - k * ln2
        var term = 1.0
        var sum = 1.0
        for i in 1...24 {
            term *= r / Double(i)
            sum += term
        }
        // 2^k in two steps so that neither factor overflows or underflows on its own.
        let half = Int(k) / 2
        return sum * Double(sign: .plus, exponent: half, significand: 1)
            * Double(sign: .plus, exponent: Int(k) - half, significand: 1)
    }
}
