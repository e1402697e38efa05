import HumCore

/// Anything that turns one sample into the next output sample, carrying state: the filters below.
public protocol SampleProcessor {
    mutating func process(_ x: Float) -> Float
}

/// A second-order IIR section (transposed direct form II, Double state so low cutoffs stay precise), with the
/// usual audio-EQ designs (bilinear transform with prewarping).
public struct Biquad: SampleProcessor, Sendable {
    var b0, b1, b2, a1, a2: Double
    var s1 = 0.0, s2 = 0.0

    public init(b0: Double, b1: Double, b2: Double, a0: Double, a1: Double, a2: Double) {
        self.b0 = b0 / a0
        self.b1 = b1 / a0
        self.b2 = b2 / a0
        self.a1 = a1 / a0
        self.a2 = a2 / a0
    }

    @inline(__always)
    public mutating func process(_ x: Float) -> Float {
        let xd = Double(x)
        let y = b0 * xd + s1
        s1 = b1 * xd - a1 * y + s2
        s2 = b2 * xd - a2 * y
        return Float(y)
    }

    /// ω0 and α of the design equations.
    static func design(_ frequency: Double, _ q: Double, _ sampleRate: Double) -> (cos: Double, alpha: Double) {
        let w0 = 2 * SynthMath.pi * min(frequency, sampleRate * 0.49) / sampleRate
        let sc = SynthMath.sinCos(w0)
        return (sc.cos, sc.sin / (2 * q))
    }

    public static func lowPass(_ frequency: Double, q: Double = 0.7071, sampleRate: Double) -> Biquad {
        let (c, a) = design(frequency, q, sampleRate)
        return Biquad(b0: (1 - c) / 2, b1: 1 - c, b2: (1 - c) / 2, a0: 1 + a, a1: -2 * c, a2: 1 - a)
    }

    public static func highPass(_ frequency: Double, q: Double = 0.7071, sampleRate: Double) -> Biquad {
        let (c, a) = design(frequency, q, sampleRate)
        return Biquad(b0: (1 + c) / 2, b1: -(1 + c), b2: (1 + c) / 2, a0: 1 + a, a1: -2 * c, a2: 1 - a)
    }

    /// Band-pass with 0 dB at the centre.
    public static func bandPass(_ frequency: Double, q: Double, sampleRate: Double) -> Biquad {
        let (c, a) = design(frequency, q, sampleRate)
        return Biquad(b0: a, b1: 0, b2: -a, a0: 1 + a, a1: -2 * c, a2: 1 - a)
    }

    /// Peaking EQ: `gainDB` at `frequency`, 0 dB far from it.
    public static func peak(_ frequency: Double, q: Double, gainDB: Double, sampleRate: Double) -> Biquad {
        let (c, a) = design(frequency, q, sampleRate)
        let g = SynthMath.pow(10, gainDB / 40)
        return Biquad(b0: 1 + a * g, b1: -2 * c, b2: 1 - a * g, a0: 1 + a / g, a1: -2 * c, a2: 1 - a / g)
    }

    /// High shelf: `gainDB` above `frequency`, 0 dB below (shelf slope 1).
    public static func highShelf(_ frequency: Double, gainDB: Double, sampleRate: Double) -> Biquad {
        let g = SynthMath.pow(10, gainDB / 40)
        let (c, a0) = design(frequency, 0.7071, sampleRate)
        let a = a0
        let sq = 2 * g.squareRoot() * a
        return Biquad(
            b0: g * ((g + 1) + (g - 1) * c + sq), b1: -2 * g * ((g - 1) + (g + 1) * c),
            b2: g * ((g + 1) + (g - 1) * c - sq), a0: (g + 1) - (g - 1) * c + sq,
            a1: 2 * ((g - 1) - (g + 1) * c), a2: (g + 1) - (g - 1) * c - sq)
    }

    /// Low shelf: `gainDB` below `frequency`, 0 dB above.
    public static func lowShelf(_ frequency: Double, gainDB: Double, sampleRate: Double) -> Biquad {
        let g = SynthMath.pow(10, gainDB / 40)
        let (c, a) = design(frequency, 0.7071, sampleRate)
        let sq = 2 * g.squareRoot() * a
        return Biquad(
            b0: g * ((g + 1) - (g - 1) * c + sq), b1: 2 * g * ((g - 1) - (g + 1) * c),
            b2: g * ((g + 1) - (g - 1) * c - sq), a0: (g + 1) + (g - 1) * c + sq,
            a1: -2 * ((g - 1) + (g + 1) * c), a2: (g + 1) + (g - 1) * c - sq)
    }

    /// The gain (linear) of this section at `frequency`: for tests and for levelling a recipe.
    public func magnitude(at frequency: Double, sampleRate: Double) -> Double {
        let w = 2 * SynthMath.pi * frequency / sampleRate
        let (s1, c1) = SynthMath.sinCos(w)
        let (s2, c2) = SynthMath.sinCos(2 * w)
        let nr = b0 + b1 * c1 + b2 * c2
        let ni = -(b1 * s1 + b2 * s2)
        let dr = 1 + a1 * c1 + a2 * c2
        let di = -(a1 * s1 + a2 * s2)
        return ((nr * nr + ni * ni) / (dr * dr + di * di)).squareRoot()
    }
}

/// A first-order low-pass (one pole, matched to the analogue time constant).
public struct OnePoleLowPass: SampleProcessor, Sendable {
    let a: Double
    var y = 0.0

    public init(_ frequency: Double, sampleRate: Double) {
        a = 1 - SynthMath.exp(-2 * SynthMath.pi * frequency / sampleRate)
    }

    @inline(__always)
    public mutating func process(_ x: Float) -> Float {
        y += a * (Double(x) - y)
        return Float(y)
    }
}

/// A run of filters one after the other.
public struct FilterChain: SampleProcessor, Sendable {
    public var sections: [Biquad]

    public init(_ sections: [Biquad]) { self.sections = sections }

    @inline(__always)
    public mutating func process(_ x: Float) -> Float {
        var v = x
        for i in sections.indices { v = sections[i].process(v) }
        return v
    }
}

/// Turns white noise pink (-3 dB per octave, equal energy per octave) from 10 Hz up: a cascade of first-order
/// pole/zero pairs, poles one octave apart and each zero half an octave above its pole, so the slope averages
/// -3 dB per octave with a ripple of a fraction of a dB. Unity gain at 1 kHz.
public struct PinkingFilter: SampleProcessor, Sendable {
    // Each section: y = b0·x + b1·x1 - a1·y1 (bilinear transform of (s/ωz + 1)/(s/ωp + 1)).
    var b0: [Double] = [], b1: [Double] = [], a1: [Double] = []
    var x1: [Double] = [], y1: [Double] = []
    var gain = 1.0

    public init(sampleRate: Double) {
        var pole = 10.0
        let k = 2 * sampleRate
        while pole < sampleRate * 0.45 {
            let zero = pole * 2.0.squareRoot()
            let wp = 2 * sampleRate * SynthMath.tan(SynthMath.pi * pole / sampleRate)
            let wz = 2 * sampleRate * SynthMath.tan(SynthMath.pi * min(zero, sampleRate * 0.49) / sampleRate)
            // H(s) = (s/wz + 1)/(s/wp + 1), s = k (1 - z^-1)/(1 + z^-1)
            let nb0 = k / wz + 1
            let nb1 = 1 - k / wz
            let na0 = k / wp + 1
            let na1 = 1 - k / wp
            b0.append(nb0 / na0)
            b1.append(nb1 / na0)
            a1.append(na1 / na0)
            pole *= 2
        }
        x1 = [Double](repeating: 0, count: b0.count)
        y1 = x1
        gain = 1 / magnitude(at: 1_000, sampleRate: sampleRate)
    }

    @inline(__always)
    public mutating func process(_ x: Float) -> Float {
        var v = Double(x)
        for i in 0..<b0.count {
            let y = b0[i] * v + b1[i] * x1[i] - a1[i] * y1[i]
            x1[i] = v
            y1[i] = y
            v = y
        }
        return Float(v * gain)
    }

    public func magnitude(at frequency: Double, sampleRate: Double) -> Double {
        let (s, c) = SynthMath.sinCos(2 * SynthMath.pi * frequency / sampleRate)
        var m = gain
        for i in 0..<b0.count {
            let nr = b0[i] + b1[i] * c
            let ni = -b1[i] * s
            let dr = 1 + a1[i] * c
            let di = -a1[i] * s
            m *= ((nr * nr + ni * ni) / (dr * dr + di * di)).squareRoot()
        }
        return m
    }
}

/// A state-variable filter (trapezoidal integrators) whose cutoff and resonance may change every sample without
/// clicks: the filter for wind gusts, waves washing in and out, and other sweeps.
public struct StateVariableFilter: Sendable {
    var ic1 = 0.0, ic2 = 0.0
    public let sampleRate: Double

    public init(sampleRate: Double) { self.sampleRate = sampleRate }

    public struct Outputs {
        public var lowPass: Float
        public var bandPass: Float
        public var highPass: Float
    }

    /// - Parameters:
    ///   - cutoff: Hz.
    ///   - q: resonance (0.5 gentle, 0.707 Butterworth-like, 10+ a whistle).
    @inline(__always)
    public mutating func process(_ x: Float, cutoff: Double, q: Double) -> Outputs {
        let g = SynthMath.tan(SynthMath.pi * min(cutoff, sampleRate * 0.45) / sampleRate)
        let k = 1 / q
        let a1 = 1 / (1 + g * (g + k))
        let a2 = g * a1
        let a3 = g * a2
        let v0 = Double(x)
        let v3 = v0 - ic2
        let v1 = a1 * ic1 + a2 * v3
        let v2 = ic2 + a2 * ic1 + a3 * v3
        ic1 = 2 * v1 - ic1
        ic2 = 2 * v2 - ic2
        return Outputs(lowPass: Float(v2), bandPass: Float(v1), highPass: Float(v0 - k * v1 - v2))
    }
}
