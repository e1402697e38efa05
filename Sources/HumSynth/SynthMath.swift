import HumCore

/// The elementary functions the sound generator needs, in pure Swift.
///
/// HumCore imports no C module, so it cannot call libm's `sin` or `exp`. Writing them here has a second use: the
/// generator's float output is then the same bit for bit on every machine, whatever libm it has, so a recipe and
/// its seed really do pin down the samples. Accuracy is a few units in the last place of a Double over the ranges
/// audio needs (|x| up to about 1e6 for the trigonometric functions).
public enum SynthMath {
    public static let pi = Double.pi
    static let ln2Hi = 6.93147180369123816490e-01
    static let ln2Lo = 1.90821492927058770002e-10
    static let ln2 = 0.6931471805599453
    static let ln10 = 2.302585092994046
    static let halfPiHi = 1.5707963267948966
    static let halfPiLo = 6.123233995736766e-17

    /// sin and cos of `x` together (radians).
    @inline(__always)
    public static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        // Reduce to r in [-π/4, π/4] and a quadrant, with π/2 split in two so the reduction loses nothing.
        let k = (x * (2 / pi)).rounded()
        let r = (x - k * halfPiHi) - k * halfPiLo
        let r2 = r * r
        // Taylor series; at |r| = π/4 the first omitted terms are below 1e-18.
        var s = 1.0 / 355_687_428_096_000  // 1/17!
        s = s * r2 - 1.0 / 1_307_674_368_000  // 1/15!
        s = s * r2 + 1.0 / 6_227_020_800  // 1/13!
        s = s * r2 - 1.0 / 39_916_800  // 1/11!
        s = s * r2 + 1.0 / 362_880  // 1/9!
        s = s * r2 - 1.0 / 5_040
        s = s * r2 + 1.0 / 120
        s = s * r2 - 1.0 / 6
        s = r + r * r2 * s
        var c = 1.0 / 6_402_373_705_728_000  // 1/18!
        c = c * r2 - 1.0 / 20_922_789_888_000  // 1/16!
        c = c * r2 + 1.0 / 87_178_291_200  // 1/14!
        c = c * r2 - 1.0 / 479_001_600  // 1/12!
        c = c * r2 + 1.0 / 3_628_800
        c = c * r2 - 1.0 / 40_320
        c = c * r2 + 1.0 / 720
        c = c * r2 - 1.0 / 24
        c = c * r2 + 0.5
        c = 1 - r2 * c
        switch Int(k.truncatingRemainder(dividingBy: 4)) & 3 {
        case 0: return (s, c)
        case 1: return (c, -s)
        case 2: return (-s, -c)
        default: return (-c, s)
        }
    }

    @inline(__always) public static func sin(_ x: Double) -> Double { sinCos(x).sin }
    @inline(__always) public static func cos(_ x: Double) -> Double { sinCos(x).cos }

    public static func tan(_ x: Double) -> Double {
        let sc = sinCos(x)
        return sc.sin / sc.cos
    }

    /// sin(2π·x): exact periodicity for phases measured in cycles, however many cycles.
    @inline(__always)
    public static func sinCycles(_ cycles: Double) -> Double {
        sin(2 * pi * (cycles - cycles.rounded(.down)))
    }

    /// e^x.
    public static func exp(_ x: Double) -> Double {
        if x.isNaN { return x }
        if x > 709.78 { return .infinity }
        if x < -745.2 { return 0 }
        let k = (x / ln2).rounded()
        let r = (x - k * ln2Hi) - k * ln2Lo  // |r| <= ln2 / 2
        var p = 1.0 / 6_227_020_800  // 1/13!
        p = p * r + 1.0 / 479_001_600
        p = p * r + 1.0 / 39_916_800
        p = p * r + 1.0 / 3_628_800
        p = p * r + 1.0 / 362_880
        p = p * r + 1.0 / 40_320
        p = p * r + 1.0 / 5_040
        p = p * r + 1.0 / 720
        p = p * r + 1.0 / 120
        p = p * r + 1.0 / 24
        p = p * r + 1.0 / 6
        p = p * r + 0.5
        p = p * r + 1
        p = p * r + 1
        return scaleByPowerOfTwo(p, Int(k))
    }

    static func scaleByPowerOfTwo(_ x: Double, _ k: Int) -> Double {
        // Two steps so that neither factor overflows or underflows on its own near the ends of the range.
        let half = k / 2
        return x * Double(sign: .plus, exponent: half, significand: 1)
            * Double(sign: .plus, exponent: k - half, significand: 1)
    }

    /// Natural logarithm.
    public static func log(_ x: Double) -> Double {
        if x.isNaN || x < 0 { return .nan }
        if x == 0 { return -.infinity }
        if x.isInfinite { return x }
        var e = Double(x.exponent)
        var m = x.significand  // [1, 2)
        if m > 1.4142135623730951 {
            m *= 0.5
            e += 1
        }
        // log m = 2·atanh(z), z = (m-1)/(m+1), |z| <= 0.1716.
        let z = (m - 1) / (m + 1)
        let z2 = z * z
        var t = 1.0 / 23
        t = t * z2 + 1.0 / 21
        t = t * z2 + 1.0 / 19
        t = t * z2 + 1.0 / 17
        t = t * z2 + 1.0 / 15
        t = t * z2 + 1.0 / 13
        t = t * z2 + 1.0 / 11
        t = t * z2 + 1.0 / 9
        t = t * z2 + 1.0 / 7
        t = t * z2 + 1.0 / 5
        t = t * z2 + 1.0 / 3
        t = t * z2 + 1
        return e * ln2Hi + (e * ln2Lo + 2 * z * t)
    }

    public static func log10(_ x: Double) -> Double { log(x) / ln10 }

    /// x^y for x > 0 (and 0^y = 0 for y > 0), which is all audio asks of it.
    public static func pow(_ x: Double, _ y: Double) -> Double {
        if x == 0 { return y > 0 ? 0 : (y == 0 ? 1 : .infinity) }
        if y == 0 { return 1 }
        return exp(y * log(x))
    }

    /// Amplitude of a level in decibels.
    public static func amplitude(dB: Double) -> Double { exp(dB * (ln10 / 20)) }

    /// Level in decibels of an amplitude.
    public static func decibels(_ amplitude: Double) -> Double { 20 * log10(amplitude) }

    /// The hyperbolic tangent, for soft saturation.
    public static func tanh(_ x: Double) -> Double {
        if x > 20 { return 1 }
        if x < -20 { return -1 }
        let e2 = exp(2 * x)
        return (e2 - 1) / (e2 + 1)
    }
}
