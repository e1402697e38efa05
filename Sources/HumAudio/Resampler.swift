import CSoxr
import HumCore

/// Sample-rate conversion with libsoxr, done once when a sound is loaded, never on the audio thread.
public enum Resampler {
    /// How many frames of the loop's start are read after it: about 50 ms, for the filter's reach past the wrap.
    public static func paddingFrames(_ frames: Int, from inputRate: Int, to outputRate: Int) -> Int {
        let unitIn = inputRate / gcd(inputRate, outputRate)
        let units = max(1, (inputRate / 20) / unitIn)
        return min(unitIn * units, frames)
    }

    /// How many frames of the loop's end are read before it: at least what `paddingFrames` says, and a whole
    /// number of frames at the loop's own ratio (`loopFrames` / `frames`), so the loop's first frame falls on an
    /// output frame. Where the two lengths share no factor, that is the whole loop.
    public static func tailPaddingFrames(_ frames: Int, from inputRate: Int, to outputRate: Int) -> Int {
        let unit = frames / gcd(frames, loopFrames(frames, from: inputRate, to: outputRate))
        let wanted = paddingFrames(frames, from: inputRate, to: outputRate)
        return min(frames, unit * ((wanted + unit - 1) / unit))
    }

    /// The length of a loop of `frames` frames after resampling: round(L · out / in), a whole number of frames, and
    /// the loop is resampled by exactly that ratio (see `resampleLoop`).
    public static func loopFrames(_ frames: Int, from inputRate: Int, to outputRate: Int) -> Int {
        Int((Double(frames) * Double(outputRate) / Double(inputRate)).rounded())
    }

    /// Resamples a loop streamed in and out in blocks, so no copy of the whole sound is ever made.
    ///
    /// A loop is periodic, so it is resampled as one: the input is padded with its own tail before and head after,
    /// and the output is cut back to the loop, so the filter sees the wrap as it will be played and the seam stays
    /// seamless. The loop's length becomes Lout = round(L · out / in), and the ratio is Lout / L exactly, not
    /// out / in: a loop whose length at the output rate would not be whole (a 44.1 kHz loop not a multiple of 147
    /// frames) would otherwise be cut short or long by up to half a frame, a jump at every wrap (0.456 frames,
    /// 0.6 rad on a 10 kHz tone, for 44,173 frames). The pitch moves by at most 0.5 / Lout (10 ppm for a second).
    /// The tail read before the loop (`tailPaddingFrames`) is a whole number of output frames at that ratio.
    ///
    /// - Parameters:
    ///   - frames: the loop's length.
    ///   - read: writes the loop's frames [start, start + count) as interleaved float to the destination: first the
    ///     tail (`tailPaddingFrames`, up to the whole loop), then the loop, then its head (`paddingFrames`), each
    ///     in order.
    ///   - write: receives the resampled loop in order, in blocks (`loopFrames(frames, …)` frames in all, unless
    ///     the resampler gives fewer).
    public static func resampleLoop(
        frames: Int, channels: Int, from inputRate: Int, to outputRate: Int,
        read: (_ start: Int, _ count: Int, _ destination: UnsafeMutablePointer<Float>) -> Void,
        write: (UnsafeBufferPointer<Float>) -> Void
    ) throws(ResamplingError) {
        let loopOut = loopFrames(frames, from: inputRate, to: outputRate)
        // The output rate that makes the ratio Lout / L exactly (as exactly as a Double holds it); the given rates
        // where they make no loop (libsoxr says what is wrong with them).
        let loopRate =
            loopOut <= 0 || loopOut * inputRate == frames * outputRate
            ? Double(outputRate) : Double(inputRate) * Double(loopOut) / Double(frames)

        // 16-bit quality (soxr's MQ: 16-bit precision, flat to 91 % of Nyquist): the loops are held as 16-bit, so
        // the 20-bit HQ recipe would only cost time.
        var quality = soxr_quality_spec(UInt(SOXR_MQ), 0)
        var error: soxr_error_t?
        guard
            let soxr = soxr_create(Double(inputRate), loopRate, UInt32(channels), &error, nil, &quality, nil),
            error == nil
        else {
            throw failure("soxr_create", error, inputRate, outputRate)
        }
        defer { soxr_delete(soxr) }
        guard loopOut > 0 else { return }
        let padTail = tailPaddingFrames(frames, from: inputRate, to: outputRate)
        let padHead = paddingFrames(frames, from: inputRate, to: outputRate)
        let padOut = padTail / (frames / gcd(frames, loopOut)) * (loopOut / gcd(frames, loopOut))

        let block = 8192
        let outBlock = block * (loopOut + frames - 1) / frames + 64
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
        try feed(frames - padTail, padTail)  // the tail, before the loop
        try feed(0, frames)
        try feed(0, padHead)  // the head, after it
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
