import CSoxr
import HumCore

/// Sample-rate conversion with libsoxr, done once when a sound is loaded, never on the audio thread.
public enum Resampler {
    /// About 50 ms of input at `inputRate`, a whole number of the rates' common unit: how far the filter reaches
    /// is well within it.
    public static func paddingFrames(from inputRate: Int, to outputRate: Int) -> Int {
        let unitIn = inputRate / gcd(inputRate, outputRate)
        return unitIn * max(1, (inputRate / 20) / unitIn)
    }

    /// How many of the loop's first frames are read again after it (`paddingFrames` twice; the loop again and
    /// again where it is shorter than that).
    public static func headPaddingFrames(from inputRate: Int, to outputRate: Int) -> Int {
        2 * paddingFrames(from: inputRate, to: outputRate)
    }

    /// How many output frames are made before the ones kept (see `resampleLoop`): about 50 ms, so every frame kept
    /// had the filter's whole reach of signal before it.
    public static func rotationFrames(_ frames: Int, from inputRate: Int, to outputRate: Int) -> Int {
        let loopOut = loopFrames(frames, from: inputRate, to: outputRate)
        guard frames > 0, loopOut > 0 else { return 0 }
        return paddingFrames(from: inputRate, to: outputRate) * loopOut / frames
    }

    /// The length of a loop of `frames` frames after resampling: round(L · out / in), a whole number of frames, and
    /// the loop is resampled by exactly that ratio (see `resampleLoop`).
    public static func loopFrames(_ frames: Int, from inputRate: Int, to outputRate: Int) -> Int {
        Int((Double(frames) * Double(outputRate) / Double(inputRate)).rounded())
    }

    /// Resamples a loop streamed in and out in blocks, so no copy of the whole sound is ever made.
    ///
    /// A loop is periodic, so it is resampled as one. The loop's length becomes Lout = round(L · out / in), and
    /// the ratio is Lout / L exactly, not out / in: a loop whose length at the output rate would not be whole (a
    /// 44.1 kHz loop not a multiple of 147 frames) would otherwise be cut short or long by up to half a frame, a
    /// jump at every wrap (0.456 frames, 0.6 rad on a 10 kHz tone, for 44,173 frames). The pitch moves by at most
    /// 0.5 / Lout (10 ppm for a second).
    ///
    /// The resampler reads the loop once and then its first `headPaddingFrames` again (the periodic signal from 0
    /// to L + P), and at that exact ratio output frame n + Lout is output frame n one period later. Its first K
    /// frames (`rotationFrames`, about 50 ms) are not kept, for the filter had nothing before them; frames [K,
    /// K + Lout) are, each as the loop's frame n mod Lout. So every frame kept had the signal on both sides of
    /// it, the wrap (Lout − 1 to 0) is two outputs in a row (where K < Lout), and the loop is read once:
    /// a loop whose length shares no factor with its length at the output rate used to be read twice, its whole
    /// self fed before it so that its first frame fell on an output frame.
    ///
    /// - Parameters:
    ///   - frames: the loop's length.
    ///   - read: writes the loop's frames [start, start + count) as interleaved float to the destination: the loop
    ///     in order, then its head again in order (from start 0, as often as `headPaddingFrames` needs).
    ///   - write: receives the resampled loop's frames [frame, frame + block.count / channels): [K, Lout) in
    ///     order, then [0, K) (for a loop shorter than K, from K mod Lout round); each of the
    ///     `loopFrames(frames, …)` frames once.
    public static func resampleLoop(
        frames: Int, channels: Int, from inputRate: Int, to outputRate: Int,
        read: (_ start: Int, _ count: Int, _ destination: UnsafeMutablePointer<Float>) -> Void,
        write: (_ frame: Int, _ block: UnsafeBufferPointer<Float>) -> Void
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
        guard loopOut > 0, frames > 0 else { return }
        let rotation = rotationFrames(frames, from: inputRate, to: outputRate)
        let padHead = headPaddingFrames(from: inputRate, to: outputRate)

        let block = 8192
        let outBlock = block * (loopOut + frames - 1) / frames + 64
        let input = UnsafeMutablePointer<Float>.allocate(capacity: block * channels)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: outBlock * channels)
        defer {
            input.deallocate()
            output.deallocate()
        }
        var produced = 0  // output frames so far
        let wanted = loopOut + rotation
        // Keeps output frames [rotation, loopOut + rotation) as the loop's frames (n mod Lout).
        func keep(_ n: Int) {
            var from = max(produced, rotation)
            let to = min(produced + n, wanted)
            while from < to {
                let part = min(to, (from / loopOut + 1) * loopOut)  // a block can hold a wrap
                write(
                    from % loopOut,
                    UnsafeBufferPointer(start: output + (from - produced) * channels, count: (part - from) * channels))
                from = part
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
        try feed(0, frames)
        var head = 0
        while head < padHead, produced < wanted {  // the head after the loop, round again if the loop is short
            let n = min(frames, padHead - head)
            try feed(0, n)
            head += n
        }
        while produced < wanted {  // what the filter still holds
            var made = 0
            if let e = soxr_process(soxr, nil, 0, nil, output, outBlock, &made) {
                throw failure("soxr_process", e, inputRate, outputRate)
            }
            if made == 0 { break }
            keep(made)
        }
        guard produced >= wanted else {
            throw ResamplingError(
                inputRate: inputRate, outputRate: outputRate, call: "soxr_process",
                detail: "gave \(produced) frames of \(wanted)")
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
