import CALSA
import HumCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Plays interleaved stereo float through an ALSA PCM.
///
/// Opened through hw_params/sw_params so it can fall back: float32 first, then s16; the rate nearest 48 kHz
/// (alsa-lib's own resampling turned off: hum resamples with libsoxr when it loads a sound). The buffer is 100 ms,
/// asked for in 50 ms periods (the PulseAudio plugin takes no fewer than three, so 33 ms there), and the sink keeps
/// at most 100 ms queued (`fillFrames`). The engine mixes a period only once it fits under that level
/// (`awaitRoom`): what is queued ahead of a volume change is at most 100 ms, so it is heard within that, with
/// fewer wake-ups than the 20 ms periods hum used before (measured in docs/PERFORMANCE.md). A 150 ms buffer of
/// 50 ms periods kept 100 ms full woke a third less, but left 50 ms queued when it refilled and, with the server's
/// larger stream buffer behind it, dropped out now and then (the focus round test heard it). Routes through
/// PulseAudio or PipeWire, which underrun below about 20 ms, stay fed. An underrun plays silence
/// (silence_size = boundary) and is recovered; a device that goes away reports `.lost` so the engine can reopen it.
///
/// The PCM is driven non-blocking: when it is full, `write` waits in poll(2) on the PCM's descriptors and on a
/// wake-up pipe, so `interrupt()` (from any thread) ends a wait at once, and a device that takes nothing for
/// `stallSeconds` (a sound server that hangs) is reported lost instead of being waited on for ever. Recoveries are
/// bounded, so a device that fails the same way again and again is lost, not retried in a busy loop.
public final class AlsaSink: AudioSink, @unchecked Sendable {
    // @unchecked: used by one thread at a time (opened by the frontend, then driven by the engine thread), except
    // `interrupt`, which only writes to a pipe, and `hasBegunPlaying`, an atomic.

    public enum SampleFormat: String, Sendable { case float32, s16 }

    public let device: String
    public let preferredRate: Int
    public private(set) var sampleRate: Int = 0
    public private(set) var periodFrames: Int = 0
    public private(set) var bufferFrames: Int = 0
    /// The most frames kept queued (at most the buffer): what a control change waits behind.
    public private(set) var fillFrames: Int = 0
    /// The room (`avail`) a period needs so that after it no more than `fillFrames` are queued: the PCM's
    /// avail_min, so a wait wakes only when a period fits.
    private var roomFrames: Int = 0
    public private(set) var format: SampleFormat = .float32
    private var pcm: OpaquePointer?
    /// Conversion buffer for s16 devices, allocated once at open.
    private var s16: UnsafeMutablePointer<Int16>?
    private var s16Capacity = 0
    /// The 16-bit conversion for s16 devices: the same as a 16-bit file's (dithered unless told not to).
    private var sixteen: SixteenBit
    /// The PCM's poll descriptors followed by the wake-up pipe's read end, allocated at open.
    private var pollSet: UnsafeMutablePointer<pollfd>?
    private var pollCapacity = 0
    private var pcmDescriptors: Int32 = 0
    /// A pipe `interrupt()` writes a byte to; its read end is watched by every wait. -1 when it could not be made
    /// (then waits still end by the stall limit).
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let interrupted = Atomic<Bool>(false)
    private let begun = Atomic<Bool>(false)
    /// Frames written since open without ever waiting for room: a device that takes more than its buffer this way
    /// is not paced (the `file` and `null` plugins), and has begun.
    private var writtenWithoutWaiting = 0
    /// For a device that is not paced, the sink paces itself as a device would: it keeps at most a buffer ahead
    /// of the monotonic clock counted from `pacedSince`, so a live player on `null` or the `file` plugin wakes
    /// once a period instead of spinning a core. nil for a paced device (and until a device is known not to be).
    private var pacedSince: Double?
    private var pacedFrames = 0

    static let bufferMicroseconds: UInt32 = 100_000
    static let periodMicroseconds: UInt32 = 50_000
    static let fillMicroseconds = 100_000
    /// A device that takes no audio for this long is treated as lost (and reopened): before it first played,
    /// longer than a PulseAudio null sink takes to start a stream (its 2 s blocks); once playing, many times the
    /// 100 ms buffer. Both far shorter than anyone waits for a quit.
    public static let stallSecondsBeforeStart = 3.0
    public static let stallSeconds = 1.5

    public init(device: String, preferredRate: Int = 48000, dither: Bool = true) {
        self.device = device
        sixteen = SixteenBit(dither: dither)
        self.preferredRate = preferredRate
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        AlsaSink.silenceLibrary
    }

    deinit {
        close()
        s16?.deallocate()
        pollSet?.deallocate()
        if wakeRead >= 0 { Glibc.close(wakeRead) }
        if wakeWrite >= 0 { Glibc.close(wakeWrite) }
    }

    /// Ends a wait in `write` or `finish` at once, and makes every later `write` return `.interrupted`.
    public func interrupt() {
        interrupted.store(true, ordering: .releasing)
        guard wakeWrite >= 0 else { return }
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    public var hasBegunPlaying: Bool { begun.load(ordering: .acquiring) }

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
                "the audio device \(device.quoted) is busy (another program holds it; \(call)); close that program, or "
                + "play through the sound server with --device default"
        case ENOENT, ENODEV, ENXIO, EINVAL:
            return
                "no audio device \(device.quoted) (\(call): \(reason)); list devices with 'aplay -L' and pick one with "
                + "--device, or set HUM_DEVICE"
        default:
            return
                "cannot use the audio device \(device.quoted) (\(call): \(reason)); try --device default, or another "
                + "device from 'aplay -L'"
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
        guard let handle else { throw AudioSinkError("cannot open the audio device \(device.quoted)") }
        pcm = handle
        do throws(AudioSinkError) {
            try configure(handle)
            try preparePolling(handle)
        } catch {
            close()
            throw error
        }
        begun.store(false, ordering: .relaxed)
        writtenWithoutWaiting = 0
        pacedSince = nil
        pacedFrames = 0
    }

    /// Fetches the PCM's poll descriptors (once per open: they change only when it is reopened) and puts the wake-up
    /// pipe after them.
    private func preparePolling(_ pcm: OpaquePointer) throws(AudioSinkError) {
        let count = snd_pcm_poll_descriptors_count(pcm)
        try check(count, "snd_pcm_poll_descriptors_count")
        if pollCapacity < Int(count) + 1 {
            pollSet?.deallocate()
            pollCapacity = Int(count) + 1
            pollSet = .allocate(capacity: pollCapacity)
        }
        guard let pollSet else { return }
        let filled = snd_pcm_poll_descriptors(pcm, pollSet, UInt32(count))
        try check(filled, "snd_pcm_poll_descriptors")
        pcmDescriptors = filled
        pollSet[Int(filled)] = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
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
        periodFrames = max(1, Int(period))
        bufferFrames = Int(buffer)
        // At most 100 ms queued, and room for at least two periods in that (a device whose period came out longer
        // than 50 ms gets two of them, and a slower reaction, rather than an underrun).
        let fill = Int(rate) * AlsaSink.fillMicroseconds / 1_000_000
        fillFrames = min(bufferFrames, max(fill, 2 * Int(period)))
        roomFrames = max(1, bufferFrames - fillFrames + Int(period))

        var sw: OpaquePointer?
        try check(snd_pcm_sw_params_malloc(&sw), "snd_pcm_sw_params_malloc")
        defer { snd_pcm_sw_params_free(sw) }
        try check(snd_pcm_sw_params_current(pcm, sw), "snd_pcm_sw_params_current")
        // Start once the fill level is queued; wake when a period fits under it; on an underrun play silence, not
        // stale samples.
        try check(
            snd_pcm_sw_params_set_start_threshold(pcm, sw, snd_pcm_uframes_t(fillFrames)),
            "snd_pcm_sw_params_set_start_threshold")
        try check(
            snd_pcm_sw_params_set_avail_min(pcm, sw, snd_pcm_uframes_t(roomFrames)), "snd_pcm_sw_params_set_avail_min")
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

    /// Waits until a period fits under the fill level (the first writes, while it fills, go at once). An underrun or
    /// a suspend seen here is left to `write`, which recovers it.
    public func awaitRoom() -> AudioSinkWriteResult {
        guard let pcm else { return .lost(code: -EBADFD) }
        if interrupted.load(ordering: .relaxed) { return .interrupted }
        let available = snd_pcm_avail_update(pcm)
        if available < 0 || available >= roomFrames { return .written }
        switch waitForRoom(pcm) {
        case .room: return .written
        case .interrupted: return .interrupted
        case .failed(let code):
            return code == -EPIPE || code == -ESTRPIPE || code == -EINTR ? .written : .lost(code: code)
        }
    }

    public func write(_ frames: UnsafePointer<Float>, count: Int) -> AudioSinkWriteResult {
        guard let pcm else { return .lost(code: -EBADFD) }
        var recovered = 0
        var recoveries = 0
        var offset = 0
        while offset < count {
            if interrupted.load(ordering: .relaxed) { return .interrupted }
            let chunk = min(count - offset, Mixer.maximumBlock)
            let written: Int
            if format == .float32 {
                written = snd_pcm_writei(pcm, frames + 2 * offset, snd_pcm_uframes_t(chunk))
            } else {
                let s16 = self.s16!
                sixteen.convert(frames + 2 * offset, count: 2 * chunk, into: s16)
                written = snd_pcm_writei(pcm, s16, snd_pcm_uframes_t(chunk))
            }
            if written > 0 {
                offset += written
                recoveries = 0
                if !begun.load(ordering: .relaxed) {
                    writtenWithoutWaiting += written
                    if writtenWithoutWaiting > bufferFrames + periodFrames {
                        begun.store(true, ordering: .releasing)
                        pacedSince = AlsaSink.now()
                        pacedFrames = writtenWithoutWaiting
                    }
                } else if pacedSince != nil {
                    pacedFrames += written
                    if !pace() { return .interrupted }
                }
                continue
            }
            var code = Int32(written)
            if written == 0 || code == -EAGAIN {
                switch waitForRoom(pcm) {
                case .room:
                    continue
                case .interrupted:
                    return .interrupted
                case .failed(let failure):
                    code = failure
                }
            }
            if code == -EPIPE || code == -ESTRPIPE || code == -EINTR, recoveries < 3 {
                // Underrun or suspend: recover and carry on with the same frames (a few times at most: a device
                // that fails again at once is lost, not retried in a loop).
                recoveries += 1
                if snd_pcm_recover(pcm, code, 1) == 0 {
                    if code != -EINTR { recovered += 1 }
                    continue
                }
            }
            return .lost(code: code)
        }
        return recovered > 0 ? .recovered(underruns: recovered) : .written
    }

    private enum Wait {
        case room, interrupted
        case failed(Int32)
    }

    /// Waits until the device has room, the sink is interrupted, or `stallSeconds` pass with no room (−ETIMEDOUT).
    /// A wake-up that brings no room does not spin: after two in a row it sleeps for a fifth of a period (short of
    /// the period still queued when the engine waits).
    private func waitForRoom(_ pcm: OpaquePointer) -> Wait {
        guard let pollSet else { return .failed(-EBADFD) }
        let start = AlsaSink.now()
        let limit = begun.load(ordering: .relaxed) ? AlsaSink.stallSeconds : AlsaSink.stallSecondsBeforeStart
        var idleWakeups = 0
        while true {
            if interrupted.load(ordering: .relaxed) { return .interrupted }
            let left = limit - (AlsaSink.now() - start)
            if left <= 0 { return .failed(-ETIMEDOUT) }
            for i in 0...Int(pcmDescriptors) { pollSet[i].revents = 0 }
            let ready = poll(pollSet, nfds_t(pcmDescriptors + 1), Int32((left * 1000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed(-errno)
            }
            if ready == 0 { return .failed(-ETIMEDOUT) }
            if pollSet[Int(pcmDescriptors)].revents != 0 {
                var byte: UInt8 = 0
                while Glibc.read(wakeRead, &byte, 1) == 1 {}
                return .interrupted
            }
            var events: UInt16 = 0
            let demangled = snd_pcm_poll_descriptors_revents(pcm, pollSet, UInt32(pcmDescriptors), &events)
            if demangled < 0 { return .failed(demangled) }
            if events & UInt16(POLLERR) != 0 {
                switch snd_pcm_state(pcm) {
                case SND_PCM_STATE_XRUN: return .failed(-EPIPE)
                case SND_PCM_STATE_SUSPENDED: return .failed(-ESTRPIPE)
                case SND_PCM_STATE_DISCONNECTED: return .failed(-ENODEV)
                default: return .failed(-EIO)
                }
            }
            if events & UInt16(POLLOUT) != 0 {
                begun.store(true, ordering: .releasing)
                return .room
            }
            idleWakeups += 1
            if idleWakeups >= 2 { usleep(UInt32(max(1, periodFrames) * 200_000 / max(sampleRate, 1))) }
        }
    }

    /// For a device that is not paced: sleeps until what was written is no more than a buffer ahead of the clock
    /// (woken at once by `interrupt()`; false then). Behind the clock (the process was stopped), the count starts
    /// again from now, as a device recovering from an underrun would.
    private func pace() -> Bool {
        guard let since = pacedSince, sampleRate > 0 else { return true }
        let now = AlsaSink.now()
        let ahead = Double(pacedFrames - bufferFrames) / Double(sampleRate) - (now - since)
        if ahead < -Double(bufferFrames) / Double(sampleRate) {
            pacedSince = now
            pacedFrames = bufferFrames
            return true
        }
        guard ahead > 0 else { return true }
        var wake = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
        if poll(&wake, 1, Int32((ahead * 1000).rounded(.up))) > 0 {
            var byte: UInt8 = 0
            while Glibc.read(wakeRead, &byte, 1) == 1 {}
            return false
        }
        return true
    }

    /// Monotonic seconds.
    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Lets the queued audio play out, then stops the device. Bounded by the buffer's length plus a margin:
    /// snd_pcm_drain can hang on some routes, so it runs non-blocking, and the wait sleeps as long as
    /// snd_pcm_delay says is left to play (woken at once by `interrupt()`), then checks again.
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
        let result = snd_pcm_drain(pcm)
        let deadline = AlsaSink.now() + Double(bufferFrames) / Double(max(sampleRate, 1)) + 0.3
        while result == -EAGAIN, snd_pcm_state(pcm) == SND_PCM_STATE_DRAINING, !interrupted.load(ordering: .relaxed) {
            let left = deadline - AlsaSink.now()
            if left <= 0 { break }
            var delay: snd_pcm_sframes_t = 0
            let playing = snd_pcm_delay(pcm, &delay) == 0 && delay > 0 ? Double(delay) / Double(sampleRate) : 0
            var wake = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            _ = poll(&wake, 1, Int32((min(left, playing + 0.005) * 1000).rounded(.up)))
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
