/// The one place the mix becomes 16-bit, for every 16-bit output (WAV, FLAC, an ALSA device that takes only s16):
/// the same float mix gives the same samples whatever the container.
///
/// With dither (the default), each sample gets TPDF noise (the difference of two uniform values, spanning ±1 step
/// of 16 bits, triangular) before rounding: the rounding error becomes a steady hiss at −96.3 dBFS RMS instead of
/// distortion that follows the signal (which fades and quiet sounds make audible as grain). The figure: rounding's
/// error is uniform over one step (1/12 step²) and the dither adds two uniform steps' variance (2/12), 1/4 step²
/// in all, an RMS of half a step: 20·log10(0.5/32768) = −96.3 dBFS (rounding alone would be −101.1). Without
/// dither, it rounds to nearest (halves away from zero) and clamps, as `LoopBuffer.quantize` does, for tests that
/// compare samples. Full scale is 32768 (the float 1.0 is just over the largest sample, as libsndfile and ALSA
/// take it).
///
/// The noise is read from a table of 65,536 TPDF values made once from a fixed seed, at a place in it drawn anew
/// for each call (a 64-bit linear congruential step): the pattern never repeats from one block to the next, a
/// render is the same file every time, and the loop is a plain pass over three arrays, which vectorizes. Nothing
/// allocates: the audio thread may use it.
public struct SixteenBit: @unchecked Sendable {
    // @unchecked: `noise` points at the shared table, which is never written after it is made.
    public let dither: Bool
    private var state: UInt64
    /// The shared table (scaled to float full scale: ±1 step is ±1/32768), made once and never freed.
    private let noise: UnsafePointer<Float>

    public init(dither: Bool, seed: UInt64 = 0x6875_6D5F_6469_7468) {
        self.dither = dither
        state = seed
        noise = UnsafePointer(DitherNoise.table.pointer)
    }

    /// Converts `count` samples.
    public mutating func convert(
        _ source: UnsafePointer<Float>, count: Int, into destination: UnsafeMutablePointer<Int16>
    ) {
        guard dither else {
            for i in 0..<count { destination[i] = LoopBuffer.quantize(source[i]) }
            return
        }
        // Knuth's MMIX constants; the upper bits are the good ones.
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        var position = Int(truncatingIfNeeded: state >> 48)
        var done = 0
        while done < count {
            let run = min(count - done, DitherNoise.size - position)
            let s = source + done
            let d = destination + done
            let n = noise + position
            for i in 0..<run { d[i] = LoopBuffer.quantize(s[i] + n[i]) }
            done += run
            position = 0
        }
    }
}

/// The dither's noise: 65,536 values, each the difference of two uniform values in [0, 1) steps of 16 bits
/// (triangular over ±1 step), scaled to float full scale.
final class DitherNoise: @unchecked Sendable {
    // @unchecked: written once in init, only read afterwards.
    static let size = 65536
    static let table = DitherNoise()
    let pointer: UnsafeMutablePointer<Float>

    private init() {
        pointer = .allocate(capacity: DitherNoise.size)
        var state: UInt64 = 0x7470_6466_5F68_756D
        for i in 0..<DitherNoise.size {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let bits = state >> 16
            let a = Float(UInt32(truncatingIfNeeded: bits >> 24) & 0xFFFFFF) / 16_777_216
            let b = Float(UInt32(truncatingIfNeeded: bits) & 0xFFFFFF) / 16_777_216
            pointer[i] = (a - b) / 32768
        }
    }
}
