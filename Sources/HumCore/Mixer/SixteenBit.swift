/// The one place the mix becomes 16-bit, for every 16-bit output (WAV, FLAC, an ALSA device that takes only s16):
/// the same float mix gives the same samples whatever the container.
///
/// With dither (the default), each sample gets TPDF noise (the difference of two uniform values, spanning ±1 step
/// of 16 bits, triangular) before rounding: the rounding error becomes a steady hiss at −101 dBFS instead of
/// distortion that follows the signal (which fades and quiet sounds make audible as grain). Without dither, it
/// rounds to nearest (halves away from zero) and clamps, as `LoopBuffer.quantize` does, for tests that compare
/// samples. Full scale is 32768 (the float 1.0 is just over the largest sample, as libsndfile and ALSA take it).
///
/// The noise comes from a fixed seed, so a render is the same file every time; one 64-bit step of the generator
/// serves two samples (four 16-bit uniform values). Nothing allocates: the audio thread may use it.
public struct SixteenBit: Sendable {
    public let dither: Bool
    private var state: UInt64

    public init(dither: Bool, seed: UInt64 = 0x6875_6D5F_6469_7468) {
        self.dither = dither
        state = seed
    }

    /// Converts `count` samples.
    public mutating func convert(
        _ source: UnsafePointer<Float>, count: Int, into destination: UnsafeMutablePointer<Int16>
    ) {
        guard dither else {
            for i in 0..<count { destination[i] = LoopBuffer.quantize(source[i]) }
            return
        }
        var s = state
        var i = 0
        let unit: Float = 1 / 65536
        while i < count {
            // A 64-bit linear congruential step (Knuth's MMIX constants); its upper bits are the good ones, and
            // each 16-bit quarter is uniform enough for dither.
            s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let bits = s ^ (s >> 29)
            let a = Float(UInt16(truncatingIfNeeded: bits >> 48)) - Float(UInt16(truncatingIfNeeded: bits >> 32))
            destination[i] = SixteenBit.round(source[i] * 32768 + a * unit)
            if i + 1 < count {
                let b = Float(UInt16(truncatingIfNeeded: bits >> 16)) - Float(UInt16(truncatingIfNeeded: bits))
                destination[i + 1] = SixteenBit.round(source[i + 1] * 32768 + b * unit)
            }
            i += 2
        }
        state = s
    }

    /// To the nearest integer (ties away from zero), clamped to 16 bits, NaN to 0, on an already scaled value.
    @inline(__always)
    static func round(_ v: Float) -> Int16 {
        LoopBuffer.quantize(v * (1 / 32768))
    }
}
