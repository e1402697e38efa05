import CEbur128
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why a loudness measurement failed: the libebur128 call and its result code.
public struct LoudnessError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The libebur128 function that failed, e.g. `ebur128_add_frames_float`.
    public var call: String
    /// libebur128's result code (`EBUR128_ERROR_*`), or -1 when no state could be made at all.
    public var code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    public var description: String {
        let reason: String
        switch code {
        case Int32(EBUR128_ERROR_NOMEM.rawValue): reason = "out of memory"
        case Int32(EBUR128_ERROR_INVALID_MODE.rawValue): reason = "invalid mode"
        case Int32(EBUR128_ERROR_INVALID_CHANNEL_INDEX.rawValue): reason = "invalid channel index"
        case Int32(EBUR128_ERROR_NO_CHANGE.rawValue): reason = "no change"
        case -1: reason = "cannot create a meter for this layout"
        default: reason = "error \(code)"
        }
        return "loudness measurement failed (\(call): \(reason))"
    }
}

/// What EBU R128 says about a signal.
public struct LoudnessMeasurement: Sendable, Equatable {
    /// Integrated (gated) loudness in LUFS; `-infinity` for silence.
    public var integratedLUFS: Double
    /// The highest true (inter-sample) peak over all channels, in dBTP; `-infinity` for silence.
    public var truePeakDBTP: Double
    /// The highest sample peak over all channels, in dBFS.
    public var samplePeakDBFS: Double

    public init(integratedLUFS: Double, truePeakDBTP: Double, samplePeakDBFS: Double) {
        self.integratedLUFS = integratedLUFS
        self.truePeakDBTP = truePeakDBTP
        self.samplePeakDBFS = samplePeakDBFS
    }
}

/// EBU R128 / ITU-R BS.1770 loudness and true peak of interleaved float audio, through libebur128.
///
/// Feed it with `add`, then read `measurement()`. A mono signal is counted as dual mono by default (its loudness
/// as heard when hum plays it on both speakers, 3 dB above a single-channel reading), so mono and stereo sounds
/// normalized to the same target sound equally loud.
public final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>
    public let channels: Int
    public let sampleRate: Int

    /// - Parameters:
    ///   - monoAsDualMono: count a single channel twice (see above); `false` gives the plain one-channel reading.
    ///   - histogram: keep block loudness in a histogram (constant memory, for long user files) instead of a list.
    public init(channels: Int, sampleRate: Int, monoAsDualMono: Bool = true, histogram: Bool = false)
        throws(LoudnessError)
    {
        guard channels > 0, sampleRate > 0 else { throw LoudnessError(call: "ebur128_init", code: -1) }
        var mode = Int32(EBUR128_MODE_I.rawValue) | Int32(EBUR128_MODE_TRUE_PEAK.rawValue)
        if histogram { mode |= Int32(EBUR128_MODE_HISTOGRAM.rawValue) }
        guard let state = ebur128_init(UInt32(channels), UInt(sampleRate), mode) else {
            throw LoudnessError(call: "ebur128_init", code: -1)
        }
        self.state = state
        self.channels = channels
        self.sampleRate = sampleRate
        if channels == 1 && monoAsDualMono {
            try check(ebur128_set_channel(state, 0, Int32(EBUR128_DUAL_MONO.rawValue)), "ebur128_set_channel")
        }
    }

    deinit {
        var pointer: UnsafeMutablePointer<ebur128_state>? = state
        ebur128_destroy(&pointer)
    }

    /// Every libebur128 result code passes through here, so an error names the call that failed.
    private func check(_ code: Int32, _ call: String) throws(LoudnessError) {
        if code != Int32(EBUR128_SUCCESS.rawValue) { throw LoudnessError(call: call, code: code) }
    }

    /// Adds interleaved frames (`samples.count` must be a multiple of `channels`).
    public func add(_ samples: UnsafeBufferPointer<Float>) throws(LoudnessError) {
        guard let base = samples.baseAddress else { return }
        let frames = samples.count / channels
        // In blocks, so a long file never asks libebur128 for one huge internal buffer.
        let block = 1 << 16
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            try check(ebur128_add_frames_float(state, base + done * channels, n), "ebur128_add_frames_float")
            done += n
        }
    }

    public func add(_ samples: [Float]) throws(LoudnessError) {
        var failure: LoudnessError?
        samples.withUnsafeBufferPointer { buffer in
            do throws(LoudnessError) { try add(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Integrated loudness of everything added so far, in LUFS (`-infinity` when all of it was below the gate).
    public func integratedLoudness() throws(LoudnessError) -> Double {
        var value: Double = 0
        try check(ebur128_loudness_global(state, &value), "ebur128_loudness_global")
        return value
    }

    /// The highest true peak over all channels, in dBTP.
    public func truePeak() throws(LoudnessError) -> Double {
        var peak: Double = 0
        for channel in 0..<channels {
            var value: Double = 0
            try check(ebur128_true_peak(state, UInt32(channel), &value), "ebur128_true_peak")
            peak = max(peak, value)
        }
        return Self.decibels(peak)
    }

    /// The highest sample peak over all channels, in dBFS.
    public func samplePeak() throws(LoudnessError) -> Double {
        var peak: Double = 0
        for channel in 0..<channels {
            var value: Double = 0
            try check(ebur128_sample_peak(state, UInt32(channel), &value), "ebur128_sample_peak")
            peak = max(peak, value)
        }
        return Self.decibels(peak)
    }

    public func measurement() throws(LoudnessError) -> LoudnessMeasurement {
        LoudnessMeasurement(
            integratedLUFS: try integratedLoudness(), truePeakDBTP: try truePeak(),
            samplePeakDBFS: try samplePeak())
    }

    /// Measures a whole buffer in one go.
    public static func measure(
        _ samples: [Float], channels: Int, sampleRate: Int,
        monoAsDualMono: Bool = true
    ) throws(LoudnessError) -> LoudnessMeasurement {
        let meter = try LoudnessMeter(channels: channels, sampleRate: sampleRate, monoAsDualMono: monoAsDualMono)
        try meter.add(samples)
        return try meter.measurement()
    }

    public static func measure(_ audio: DecodedAudio) throws(LoudnessError) -> LoudnessMeasurement {
        try measure(audio.samples, channels: audio.channels, sampleRate: audio.sampleRate)
    }

    static func decibels(_ amplitude: Double) -> Double {
        amplitude > 0 ? 20 * log10(amplitude) : -Double.infinity
    }
}
