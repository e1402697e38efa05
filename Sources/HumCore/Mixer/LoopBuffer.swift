/// Memory holding interleaved 16-bit samples, freed when the last loop that uses it goes away.
///
/// Whoever allocates it says how it is freed: plain heap memory by default, or memory the loader mapped itself
/// (large loops are mapped with huge pages, which are cheaper to fault in and give memory back when freed).
public final class SampleStorage: @unchecked Sendable {
    // @unchecked: the samples are written while the loop is being built, by the one thread that builds it, and
    // only read after it is handed to the mixer.
    public let base: UnsafeMutablePointer<Int16>
    /// Capacity in samples (not frames).
    public let count: Int
    private let release: (@Sendable (UnsafeMutablePointer<Int16>, Int) -> Void)?

    /// Heap memory for `count` samples, uninitialized.
    public init(count: Int) {
        base = .allocate(capacity: max(1, count))
        self.count = count
        release = nil
    }

    /// Takes over memory allocated elsewhere; `release` frees it (given the base and the count).
    public init(
        adopting base: UnsafeMutablePointer<Int16>, count: Int,
        release: @escaping @Sendable (UnsafeMutablePointer<Int16>, Int) -> Void
    ) {
        self.base = base
        self.count = count
        self.release = release
    }

    deinit {
        if let release { release(base, count) } else { base.deallocate() }
    }
}

/// One looping sound, decoded and resampled to the output rate, held in memory as 16-bit PCM.
///
/// 16-bit keeps memory at half of float (5.76 MB per mono and 11.52 MB per stereo minute at 48 kHz) with a noise
/// floor at −96 dBFS, below anything ambient material holds. A loop is a view of a `SampleStorage` from a start
/// frame on: the loader builds a loop in place in the memory it decoded into (the loop of a crossfaded file starts
/// at frame C), so no copy of the sound is ever made. The samples are immutable once the loop exists; the mixer
/// reads them through a raw pointer, so the audio thread never touches this object's reference count.
public final class LoopBuffer: @unchecked Sendable {
    // @unchecked: immutable after init.
    public let channels: Int
    public let frames: Int
    /// The memory the samples live in (kept alive by the loop).
    public let storage: SampleStorage
    let samples: UnsafeMutablePointer<Int16>

    /// The loop `frames` frames long starting at `startFrame` of `storage`.
    public init(storage: SampleStorage, startFrame: Int, frames: Int, channels: Int) {
        precondition(channels == 1 || channels == 2, "a loop has 1 or 2 channels")
        precondition(frames > 0, "a loop has at least one frame")
        precondition(
            startFrame >= 0 && (startFrame + frames) * channels <= storage.count, "the loop lies within its storage")
        self.channels = channels
        self.frames = frames
        self.storage = storage
        samples = storage.base + startFrame * channels
    }

    /// Converts interleaved float (1 or 2 channels) to 16-bit with rounding and clamping.
    public convenience init(interleaved: [Float], channels: Int) {
        precondition(channels == 1 || channels == 2, "a loop has 1 or 2 channels")
        let frames = interleaved.count / channels
        precondition(frames > 0, "a loop has at least one frame")
        let storage = SampleStorage(count: frames * channels)
        interleaved.withUnsafeBufferPointer {
            LoopBuffer.convert(UnsafeBufferPointer(rebasing: $0[..<(frames * channels)]), into: storage.base)
        }
        self.init(storage: storage, startFrame: 0, frames: frames, channels: channels)
    }

    /// Float to 16-bit, `quantize` sample by sample; the loop vectorizes.
    @inline(__always)
    public static func convert(_ source: UnsafeBufferPointer<Float>, into destination: UnsafeMutablePointer<Int16>) {
        guard let s = source.baseAddress else { return }
        for i in 0..<source.count { destination[i] = quantize(s[i]) }
    }

    /// Float to 16-bit: ×32768, clamped, NaN to 0, then ±0.5 and truncated toward zero (so halves round away from
    /// zero), exactly as `Int16(v + (v >= 0 ? 0.5 : -0.5))` does for every float (v ± 0.5 rounded as a float).
    ///
    /// Written without a float-to-integer conversion (Swift checks those for overflow, which keeps a loop scalar)
    /// and with one compare and select per step, so it vectorizes well: the magnitude plus 0.5 is floored by adding
    /// 1.5·2²³ (which rounds it to an integer in the low bits of the float) and stepping down where that rounded
    /// up; the sign goes back on and the integer is read from the bits.
    @inline(__always)
    public static func quantize(_ x: Float) -> Int16 {
        let magic: Float = 12_582_912  // 1.5 · 2²³
        var v = x * 32768
        v = v < -32768 ? -32768 : v  // a NaN stays a NaN through both, and becomes 0 at the end
        v = v > 32767 ? 32767 : v
        let sign = v.bitPattern & 0x8000_0000
        let a = Float(bitPattern: v.bitPattern & 0x7FFF_FFFF) + 0.5
        let nearest = (a + magic) - magic  // ties to even
        let floor = nearest > a ? nearest - 1 : nearest
        let bits =
            Int32(bitPattern: (Float(bitPattern: floor.bitPattern | sign) + magic).bitPattern)
            &- Int32(bitPattern: magic.bitPattern)
        return x.isNaN ? 0 : Int16(truncatingIfNeeded: bits)
    }

    /// Bytes of sample memory this loop keeps alive (its storage, which may start before the loop).
    public var memoryBytes: Int { storage.count * MemoryLayout<Int16>.size }

    /// The sample at a frame and channel, as float in [−1, 1]; for tests and analysis, not for the audio thread.
    public func sample(frame: Int, channel: Int) -> Float {
        Float(samples[frame * channels + min(channel, channels - 1)]) / 32768
    }
}
