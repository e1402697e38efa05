/// One looping sound, decoded and resampled to the output rate, held in memory as 16-bit PCM.
///
/// 16-bit keeps memory at half of float (5.5 MB per stereo minute at 48 kHz) with a noise floor at −96 dBFS,
/// below anything ambient material holds. The samples are immutable after init and freed in deinit; the mixer
/// reads them through a raw pointer, so the audio thread never touches this object's reference count.
public final class LoopBuffer: @unchecked Sendable {
    // @unchecked: immutable after init.
    public let channels: Int
    public let frames: Int
    let samples: UnsafeMutablePointer<Int16>

    /// Converts interleaved float (1 or 2 channels) to 16-bit with rounding and clamping.
    public init(interleaved: [Float], channels: Int) {
        precondition(channels == 1 || channels == 2, "a loop has 1 or 2 channels")
        self.channels = channels
        self.frames = interleaved.count / channels
        precondition(frames > 0, "a loop has at least one frame")
        samples = .allocate(capacity: frames * channels)
        interleaved.withUnsafeBufferPointer { LoopBuffer.convert($0, into: samples) }
    }

    deinit { samples.deallocate() }

    /// Float to 16-bit, rounding to nearest and clamping, NaN to 0; written so it vectorizes (no libm call).
    @inline(__always)
    static func convert(_ source: UnsafeBufferPointer<Float>, into destination: UnsafeMutablePointer<Int16>) {
        for i in 0..<source.count {
            var v = source[i] * 32768
            v = v.isNaN ? 0 : min(max(v, -32768), 32767)
            destination[i] = Int16(v + (v >= 0 ? 0.5 : -0.5))
        }
    }

    public var memoryBytes: Int { frames * channels * MemoryLayout<Int16>.size }

    /// The sample at a frame and channel, as float in [−1, 1]; for tests and analysis, not for the audio thread.
    public func sample(frame: Int, channel: Int) -> Float {
        Float(samples[frame * channels + min(channel, channels - 1)]) / 32768
    }
}
