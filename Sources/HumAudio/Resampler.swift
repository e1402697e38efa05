import CSoxr
import HumCore

/// Sample-rate conversion with libsoxr, done once when a sound is loaded, never on the audio thread.
public enum Resampler {
    /// Resamples interleaved float from `inputRate` to `outputRate`.
    ///
    /// A loop is periodic, so it is resampled as one: the input is padded with its own tail before and head after,
    /// and the output is cut back to the loop, so the filter sees the wrap as it will be played and the seam stays
    /// seamless. The loop's length becomes round(L · out / in).
    public static func resampleLoop(_ samples: [Float], channels: Int, from inputRate: Int, to outputRate: Int) throws(AudioSinkError) -> [Float] {
        guard inputRate != outputRate else { return samples }
        let frames = samples.count / channels
        let g = gcd(inputRate, outputRate)
        let unitIn = inputRate / g, unitOut = outputRate / g
        // Padding of about 50 ms, a whole number of rate units so it maps to a whole number of output frames.
        let units = max(1, (inputRate / 20) / unitIn)
        let padIn = min(unitIn * units, frames)
        let exactPad = padIn % unitIn == 0
        var padded: [Float] = []
        padded.reserveCapacity((frames + 2 * padIn) * channels)
        padded += samples[((frames - padIn) * channels)...]
        padded += samples
        padded += samples[..<(padIn * channels)]
        let out = try oneshot(padded, channels: channels, from: inputRate, to: outputRate)
        let padOut = exactPad ? padIn / unitIn * unitOut : Int((Double(padIn) * Double(outputRate) / Double(inputRate)).rounded())
        let loopOut = Int((Double(frames) * Double(outputRate) / Double(inputRate)).rounded())
        let start = min(padOut, out.count / channels)
        let end = min(start + loopOut, out.count / channels)
        return Array(out[(start * channels)..<(end * channels)])
    }

    /// One-shot conversion of a whole buffer.
    public static func oneshot(_ samples: [Float], channels: Int, from inputRate: Int, to outputRate: Int) throws(AudioSinkError) -> [Float] {
        let frames = samples.count / channels
        let capacity = Int((Double(frames) * Double(outputRate) / Double(inputRate)).rounded(.up)) + 16
        var out = [Float](repeating: 0, count: capacity * channels)
        var done = 0
        // 16-bit quality (soxr's MQ: 16-bit precision, flat to 91 % of Nyquist): the loops are held as 16-bit, so
        // the 20-bit HQ recipe would only cost time.
        var quality = soxr_quality_spec(UInt(SOXR_MQ), 0)
        let error: soxr_error_t? = samples.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                soxr_oneshot(Double(inputRate), Double(outputRate), UInt32(channels),
                             input.baseAddress, frames, nil, output.baseAddress, capacity, &done,
                             nil, &quality, nil)
            }
        }
        if let error {
            throw AudioSinkError("resampling from \(inputRate) Hz to \(outputRate) Hz failed (soxr_oneshot: \(String(cString: error)))")
        }
        out.removeLast((capacity - done) * channels)
        return out
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
