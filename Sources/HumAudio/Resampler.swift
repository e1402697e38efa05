import CSoxr
import HumCore

/// Sample-rate conversion with libsoxr, done once when a sound is loaded, never on the audio thread.
public enum Resampler {
    /// How many frames of the loop's end are read before it, and of its start after it: about 50 ms, a whole
    /// number of rate units so it maps to a whole number of output frames.
    public static func paddingFrames(_ frames: Int, from inputRate: Int, to outputRate: Int) -> Int {
        let unitIn = inputRate / gcd(inputRate, outputRate)
        let units = max(1, (inputRate / 20) / unitIn)
        return min(unitIn * units, frames)
    }

    /// The length of a loop of `frames` frames after resampling.
    public static func loopFrames(_ frames: Int, from inputRate: Int, to outputRate: Int) -> Int {
        Int((Double(frames) * Double(outputRate) / Double(inputRate)).rounded())
    }

    /// Resamples a loop streamed in and out in blocks, so no copy of the whole sound is ever made.
    ///
    /// A loop is periodic, so it is resampled as one: the input is padded with its own tail before and head after,
    /// and the output is cut back to the loop, so the filter sees the wrap as it will be played and the seam stays
    /// seamless. The loop's length becomes round(L · out / in).
    ///
    /// - Parameters:
    ///   - frames: the loop's length.
    ///   - read: writes the loop's frames [start, start + count) as interleaved float to the destination.
    ///   - write: receives the resampled loop in order, in blocks (`loopFrames(frames, …)` frames in all, unless
    ///     the resampler gives fewer).
    public static func resampleLoop(
        frames: Int, channels: Int, from inputRate: Int, to outputRate: Int,
        read: (_ start: Int, _ count: Int, _ destination: UnsafeMutablePointer<Float>) -> Void,
        write: (UnsafeBufferPointer<Float>) -> Void
    ) throws(ResamplingError) {
        let g = gcd(inputRate, outputRate)
        let unitIn = inputRate / g
        let unitOut = outputRate / g
        let padIn = paddingFrames(frames, from: inputRate, to: outputRate)
        let exactPad = padIn % unitIn == 0
        let padOut =
            exactPad
            ? padIn / unitIn * unitOut : Int((Double(padIn) * Double(outputRate) / Double(inputRate)).rounded())
        let loopOut = loopFrames(frames, from: inputRate, to: outputRate)

        // 16-bit quality (soxr's MQ: 16-bit precision, flat to 91 % of Nyquist): the loops are held as 16-bit, so
        // the 20-bit HQ recipe would only cost time.
        var quality = soxr_quality_spec(UInt(SOXR_MQ), 0)
        var error: soxr_error_t?
        guard
            let soxr = soxr_create(Double(inputRate), Double(outputRate), UInt32(channels), &error, nil, &quality, nil),
            error == nil
        else {
            throw failure("soxr_create", error, inputRate, outputRate)
        }
        defer { soxr_delete(soxr) }

        let block = 8192
        let outBlock = block * (outputRate + inputRate - 1) / inputRate + 64
        let input = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: outBlock * channels)
        defer {
            input.deallocate()
            output.deallocate()
        }
        var produced = 0  // output frames so far, padding included
        let wanted = padOut + loopOut
        // Keeps the output frames that belong to the loop: [padOut, padOut + loopOut).
        func keep(_ n: Int) {
            let from = max(produced, padOut)
            let to = min(produced + n, wanted)
            if from < to {
                write(UnsafeBufferPointer(start: output + (from - produced) * channels, count: (to - from) * channels))
            }
            produced += n
        }
        // The loop's frames [start, start + count), through the resampler.
        func feed(_ start: Int, _ count: Int) throws(ResamplingError) {
            var done = 0
            while done < count, produced < wanted {
                let n = min(block, count - done)
                read(start + done, n, input)
                var offset = 0
                while offset < n {
                    var used = 0
                    var made = 0
                    if let e = soxr_process(soxr, input + offset * channels, n - offset, &used, output, outBlock, &made)
                    {
                        throw failure("soxr_process", e, inputRate, outputRate)
                    }
                    keep(made)
                    offset += used
                }
                done += n
            }
        }
        try feed(frames - padIn, padIn)  // the tail, before the loop
        try feed(0, frames)
        try feed(0, padIn)  // the head, after it
        while produced < wanted {  // what the filter still holds
            var made = 0
            if let e = soxr_process(soxr, nil, 0, nil, output, outBlock, &made) {
                throw failure("soxr_process", e, inputRate, outputRate)
            }
            if made == 0 { break }
            keep(made)
        }
    }

    static func failure(_ call: String, _ error: soxr_error_t?, _ inputRate: Int, _ outputRate: Int)
        -> ResamplingError
    {
        ResamplingError(
            inputRate: inputRate, outputRate: outputRate, call: call,
            detail: error.map { String(cString: $0) } ?? "no resampler")
    }

    static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}

/// Why a sound could not be resampled: the rates and the libsoxr call that failed, with libsoxr's words.
public struct ResamplingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var inputRate: Int
    public var outputRate: Int
    /// The libsoxr function that failed, e.g. "soxr_create".
    public var call: String
    public var detail: String

    public init(inputRate: Int, outputRate: Int, call: String, detail: String) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.call = call
        self.detail = detail
    }

    /// One line for people, e.g. "resampling from 44100 Hz to 48000 Hz failed (soxr_process: …)".
    public var message: String {
        "resampling from \(inputRate) Hz to \(outputRate) Hz failed (\(call): \(detail))"
    }

    public var description: String { message }
}
