import CALSA
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Plays interleaved stereo float through an ALSA PCM.
///
/// Opened through hw_params/sw_params so it can fall back: float32 first, then s16; the rate nearest 48 kHz
/// (alsa-lib's own resampling turned off: hum resamples with libsoxr when it loads a sound). The buffer holds about
/// 80 ms in four 20 ms periods: a volume change is heard within 100 ms, and routes through PulseAudio or
/// PipeWire, which underrun below about 20 ms, stay fed. An underrun plays silence (silence_size = boundary) and
/// is recovered; a device that goes away reports `.lost` so the engine can reopen it.
public final class AlsaSink: AudioSink, @unchecked Sendable {
    // @unchecked: used by one thread at a time (opened by the frontend, then driven by the engine thread).

    public enum SampleFormat: String, Sendable { case float32, s16 }

    public let device: String
    public let preferredRate: Int
    public private(set) var sampleRate: Int = 0
    public private(set) var periodFrames: Int = 0
    public private(set) var bufferFrames: Int = 0
    public private(set) var format: SampleFormat = .float32
    private var pcm: OpaquePointer?
    /// Conversion buffer for s16 devices, allocated once at open.
    private var s16: UnsafeMutablePointer<Int16>?
    private var s16Capacity = 0

    static let bufferMicroseconds: UInt32 = 80_000
    static let periodMicroseconds: UInt32 = 20_000

    public init(device: String, preferredRate: Int = 48000) {
        self.device = device
        self.preferredRate = preferredRate
        AlsaSink.silenceLibrary
    }

    deinit {
        close()
        s16?.deallocate()
    }

    /// ALSA prints its own errors to stderr; hum reports them itself, once, for people.
    private static let silenceLibrary: Void = { hum_alsa_silence_errors() }()

    private func check(_ result: Int32, _ call: String) throws(AudioSinkError) {
        if result < 0 { throw AudioSinkError(AlsaSink.describe(result, call: call, device: device)) }
    }

    /// One line for people: what failed, on which device, and what to try.
    static func describe(_ code: Int32, call: String, device: String) -> String {
        let reason = String(cString: snd_strerror(code))
        switch -code {
        case EBUSY:
            return
                "the audio device \"\(device)\" is busy (another program holds it; \(call)); close that program, or play through the sound server with --device default"
        case ENOENT, ENODEV, ENXIO, EINVAL:
            return
                "no audio device \"\(device)\" (\(call): \(reason)); list devices with 'aplay -L' and pick one with --device, or set HUM_DEVICE"
        default:
            return
                "cannot use the audio device \"\(device)\" (\(call): \(reason)); try --device default, or another device from 'aplay -L'"
        }
    }

    public func open() throws(AudioSinkError) {
        close()
        var handle: OpaquePointer?
        // Non-blocking open so a busy hw device fails at once instead of sleeping; retry that for about a second.
        var result: Int32 = 0
        for attempt in 0..<10 {
            result = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
            if result != -EBUSY || attempt == 9 { break }
            usleep(100_000)
        }
        try check(result, "snd_pcm_open")
        guard let handle else { throw AudioSinkError("cannot open the audio device \"\(device)\"") }
        pcm = handle
        do throws(AudioSinkError) {
            try check(snd_pcm_nonblock(handle, 0), "snd_pcm_nonblock")
            try configure(handle)
        } catch {
            close()
            throw error
        }
    }

    private func configure(_ pcm: OpaquePointer) throws(AudioSinkError) {
        var hw: OpaquePointer?
        try check(snd_pcm_hw_params_malloc(&hw), "snd_pcm_hw_params_malloc")
        defer { snd_pcm_hw_params_free(hw) }
        try check(snd_pcm_hw_params_any(pcm, hw), "snd_pcm_hw_params_any")
        _ = snd_pcm_hw_params_set_rate_resample(pcm, hw, 0)
        try check(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "snd_pcm_hw_params_set_access")
        if snd_pcm_hw_params_test_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE) == 0 {
            format = .float32
            try check(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_FLOAT_LE), "snd_pcm_hw_params_set_format")
        } else {
            format = .s16
            try check(
                snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE), "snd_pcm_hw_params_set_format(S16_LE)")
        }
        try check(snd_pcm_hw_params_set_channels(pcm, hw, 2), "snd_pcm_hw_params_set_channels(2)")
        var rate = UInt32(preferredRate)
        var dir: Int32 = 0
        try check(snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &dir), "snd_pcm_hw_params_set_rate_near")
        var bufferTime = AlsaSink.bufferMicroseconds
        try check(
            snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &bufferTime, &dir), "snd_pcm_hw_params_set_buffer_time_near"
        )
        var periodTime = AlsaSink.periodMicroseconds
        try check(
            snd_pcm_hw_params_set_period_time_near(pcm, hw, &periodTime, &dir), "snd_pcm_hw_params_set_period_time_near"
        )
        try check(snd_pcm_hw_params(pcm, hw), "snd_pcm_hw_params")
        var period: snd_pcm_uframes_t = 0
        var buffer: snd_pcm_uframes_t = 0
        try check(snd_pcm_hw_params_get_period_size(hw, &period, &dir), "snd_pcm_hw_params_get_period_size")
        try check(snd_pcm_hw_params_get_buffer_size(hw, &buffer), "snd_pcm_hw_params_get_buffer_size")
        sampleRate = Int(rate)
        periodFrames = max(1, min(Int(period), Mixer.maximumBlock))
        bufferFrames = Int(buffer)

        var sw: OpaquePointer?
        try check(snd_pcm_sw_params_malloc(&sw), "snd_pcm_sw_params_malloc")
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(pcm, sw), "snd_pcm_sw_params_current")
        // Start once two periods are queued; on an underrun play silence, not stale samples.
        try check(
            snd_pcm_sw_params_set_start_threshold(pcm, sw, snd_pcm_uframes_t(min(Int(buffer), 2 * Int(period)))),
            "snd_pcm_sw_params_set_start_threshold")
        try check(snd_pcm_sw_params_set_avail_min(pcm, sw, period), "snd_pcm_sw_params_set_avail_min")
        var boundary: snd_pcm_uframes_t = 0
        try check(snd_pcm_sw_params_get_boundary(sw, &boundary), "snd_pcm_sw_params_get_boundary")
        try check(snd_pcm_sw_params_set_silence_threshold(pcm, sw, 0), "snd_pcm_sw_params_set_silence_threshold")
        try check(snd_pcm_sw_params_set_silence_size(pcm, sw, boundary), "snd_pcm_sw_params_set_silence_size")
        try check(snd_pcm_sw_params(pcm, sw), "snd_pcm_sw_params")

        if format == .s16, s16Capacity < Mixer.maximumBlock * 2 {
            s16?.deallocate()
            s16Capacity = Mixer.maximumBlock * 2
            s16 = .allocate(capacity: s16Capacity)
        }
    }

    public func write(_ frames: UnsafePointer<Float>, count: Int) -> AudioSinkWriteResult {
        guard let pcm else { return .lost(code: -EBADFD) }
        var recovered = false
        var offset = 0
        while offset < count {
            let chunk = min(count - offset, Mixer.maximumBlock)
            let written: Int
            if format == .float32 {
                written = snd_pcm_writei(pcm, frames + 2 * offset, snd_pcm_uframes_t(chunk))
            } else {
                let s16 = self.s16!
                let src = frames + 2 * offset
                for i in 0..<(2 * chunk) {
                    let v = (src[i] * 32767).rounded()
                    s16[i] = Int16(max(-32768, min(32767, v)))
                }
                written = snd_pcm_writei(pcm, s16, snd_pcm_uframes_t(chunk))
            }
            if written >= 0 {
                offset += written
                continue
            }
            let code = Int32(written)
            if code == -EPIPE || code == -ESTRPIPE || code == -EINTR {
                // Underrun or suspend: recover once and carry on with the same frames.
                if snd_pcm_recover(pcm, code, 1) == 0 {
                    recovered = recovered || code != -EINTR
                    continue
                }
            }
            return .lost(code: code)
        }
        return recovered ? .recovered : .written
    }

    /// Lets the queued audio play out, bounded by the buffer length plus a margin (snd_pcm_drain can hang on some
    /// routes, so it runs non-blocking and is watched), then stops the device.
    public func finish() {
        guard let pcm else { return }
        // Stop the underrun silence fill first: while draining, an unpaced PCM (the `file` plugin over `null`)
        // would otherwise go on consuming silence and write it after the last real frame.
        var sw: OpaquePointer?
        if snd_pcm_sw_params_malloc(&sw) == 0 {
            if snd_pcm_sw_params_current(pcm, sw) == 0, snd_pcm_sw_params_set_silence_size(pcm, sw, 0) == 0 {
                _ = snd_pcm_sw_params(pcm, sw)
            }
            snd_pcm_sw_params_free(sw)
        }
        _ = snd_pcm_nonblock(pcm, 1)
        var result = snd_pcm_drain(pcm)
        let deadline = Double(bufferFrames) / Double(max(sampleRate, 1)) + 0.3
        var waited = 0.0
        while result == -EAGAIN || snd_pcm_state(pcm) == SND_PCM_STATE_DRAINING {
            if waited > deadline { break }
            usleep(10_000)
            waited += 0.01
            result = snd_pcm_state(pcm) == SND_PCM_STATE_DRAINING ? -EAGAIN : 0
        }
        _ = snd_pcm_drop(pcm)
    }

    public func close() {
        if let pcm {
            _ = snd_pcm_close(pcm)
            self.pcm = nil
        }
    }
}
