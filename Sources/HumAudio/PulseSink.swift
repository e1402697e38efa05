import CPulse
import HumCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Plays interleaved stereo float as a native stream to the user's sound server: PulseAudio, or PipeWire through
/// pipewire-pulse, which serves the same protocol. libpulse is loaded at run time (CPulse), so hum still starts
/// without it; `open()` then fails and `OutputSink` plays through ALSA.
///
/// Why not ALSA's `default` through the pulse plugin: there every write costs hum's audio thread one or two
/// wake-ups and the plugin's own client thread two or three (its threaded main loop, timing updates, the lock
/// between them), about 110 a second for 30 writes (docs/PERFORMANCE.md). Here the stream is driven by a
/// non-threaded `pa_mainloop` iterated on the audio thread itself, with no timing updates and no interpolation:
/// the only thing that wakes the thread is the server asking for data. The server keeps `targetMicroseconds` of
/// the stream queued (tlength) and asks for more once `requestMicroseconds` (minreq) of it played, so about 22
/// requests a second, each answered by one write of that size. What is queued ahead of a control change is at
/// most tlength plus the sink's own latency, which the server sets to tlength − 2·minreq (10 ms) for a stream
/// like this one that does not ask it to adjust.
///
/// The audio thread's loop (`awaitRoom`, `write`) allocates nothing and takes no lock of hum's: the library's
/// state lives in a C struct allocated at init, and its callbacks (C, in the shim) only record into it. Inside
/// libpulse, `pa_stream_write` takes a memory block from its pool (`pa_stream_begin_write` hands out the block the
/// mix is copied into) and queues a packet from its free lists; that is outside hum's control.
public final class PulseSink: AudioSink, @unchecked Sendable {
    // @unchecked: used by one thread at a time (opened by the frontend, then driven by the engine thread), except
    // `interrupt`, which only writes to a pipe, and `hasBegunPlaying`, an atomic.

    public let preferredRate: Int
    public private(set) var sampleRate: Int = 0
    /// The frames of each write: the server's request size (minreq).
    public private(set) var periodFrames: Int = 0
    /// The frames the server keeps queued for the stream (tlength).
    public private(set) var bufferFrames: Int = 0
    /// The frames written before the server starts the stream (prebuf).
    public private(set) var startFrames: Int = 0
    private let pulse: UnsafeMutablePointer<hum_pulse>
    /// Whether libpulse was loaded (nil: not tried yet).
    private var loaded: Bool?
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let interrupted = Atomic<Bool>(false)
    private let begun = Atomic<Bool>(false)
    private var underflowsSeen: Int32 = 0
    /// hum's own client configuration (`clientConfiguration`), made at the first open; nil when the user names
    /// one with PULSE_CLIENTCONFIG or it could not be made.
    private var configuration: (made: Bool, path: String?, descriptor: Int32) = (false, nil, -1)

    static let targetMicroseconds = 100_000
    static let requestMicroseconds = 45_000
    /// How long `open` waits for the server to accept the connection and the stream.
    static let connectSeconds = 3.0
    /// The name the server shows for the client and its stream (`pactl list sink-inputs`).
    public static let clientName = "hum"

    public init(preferredRate: Int = 48000) {
        self.preferredRate = preferredRate
        pulse = .allocate(capacity: 1)
        pulse.initialize(to: hum_pulse())
        pulse.pointee.wake_fd = -1
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for fd in ends {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        close()
        if let library = pulse.pointee.library { dlclose(library) }
        if configuration.descriptor >= 0 { Glibc.close(configuration.descriptor) }
        pulse.deallocate()
        if wakeRead >= 0 { Glibc.close(wakeRead) }
        if wakeWrite >= 0 { Glibc.close(wakeWrite) }
    }

    /// Ends a wait in `awaitRoom`, `open` or `finish` at once, and makes every later call return `.interrupted`.
    public func interrupt() {
        interrupted.store(true, ordering: .releasing)
        guard wakeWrite >= 0 else { return }
        var byte: UInt8 = 1
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    public var hasBegunPlaying: Bool { begun.load(ordering: .acquiring) }

    /// The server's words for a PA_ERR_ code.
    private func reason(_ code: Int32) -> String {
        guard let text = pulse.pointee.strerror?(abs(code)) else { return "error \(code)" }
        return String(cString: text)
    }

    public func open() throws(AudioSinkError) {
        close()
        if loaded == nil { loaded = hum_pulse_load(pulse) == 0 }
        guard loaded == true else {
            throw AudioSinkError("no PulseAudio client library (libpulse.so.0) to reach the sound server")
        }
        do throws(AudioSinkError) {
            try connect()
        } catch {
            close()
            throw error
        }
        begun.store(false, ordering: .relaxed)
        underflowsSeen = 0
    }

    private func connect() throws(AudioSinkError) {
        let started = hum_pulse_connect(pulse, PulseSink.clientName, wakeRead, clientConfiguration())
        if started < 0 { throw AudioSinkError("cannot reach the sound server (\(reason(started)))") }
        let deadline = PulseSink.now() + PulseSink.connectSeconds
        try waitUntil(deadline, "the sound server did not answer") { pulse throws(AudioSinkError) in
            switch pa_context_state_t(UInt32(pulse.pointee.context_state)) {
            case PA_CONTEXT_READY: return true
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED: throw AudioSinkError("cannot reach the sound server")
            default: return false
            }
        }
        let bytesPerFrame = 8
        let rate = preferredRate
        var attributes = pa_buffer_attr(
            maxlength: UInt32.max,
            tlength: UInt32(rate * PulseSink.targetMicroseconds / 1_000_000 * bytesPerFrame),
            prebuf: UInt32(rate * PulseSink.requestMicroseconds / 1_000_000 * bytesPerFrame),
            minreq: UInt32(rate * PulseSink.requestMicroseconds / 1_000_000 * bytesPerFrame),
            fragsize: UInt32.max)
        let made = hum_pulse_stream(pulse, PulseSink.clientName, UInt32(rate), &attributes)
        if made < 0 { throw AudioSinkError("the sound server refused a stream (\(reason(made)))") }
        try waitUntil(deadline, "the sound server did not open a stream") { pulse throws(AudioSinkError) in
            switch pa_stream_state_t(UInt32(pulse.pointee.stream_state)) {
            case PA_STREAM_READY: return true
            case PA_STREAM_FAILED, PA_STREAM_TERMINATED: throw AudioSinkError("the sound server refused a stream")
            default: return false
            }
        }
        guard let stream = pulse.pointee.stream, let granted = pulse.pointee.stream_get_buffer_attr?(stream),
            let spec = pulse.pointee.stream_get_sample_spec?(stream)
        else { throw AudioSinkError("the sound server's stream has no buffer") }
        sampleRate = Int(spec.pointee.rate)
        periodFrames = max(1, Int(granted.pointee.minreq) / bytesPerFrame)
        bufferFrames = Int(granted.pointee.tlength) / bytesPerFrame
        startFrames = Int(granted.pointee.prebuf) / bytesPerFrame
    }

    /// The client configuration libpulse reads for hum's connection: the user's (the file libpulse would read
    /// itself, and the files of its `.d` folder), then `enable-shm = no`. With shared memory, the server tells the
    /// client each time it has played a block so the client can reuse it: one more wake-up for every write (45
    /// a second instead of 22, measured in docs/PERFORMANCE.md). Without it the 17 KB of each write go through the
    /// socket, one copy each way, and only the server's requests wake the audio thread. A user who names a
    /// configuration with PULSE_CLIENTCONFIG gets it unchanged.
    private func clientConfiguration() -> String? {
        if configuration.made { return configuration.path }
        configuration.made = true
        guard getenv("PULSE_CLIENTCONFIG") == nil else { return nil }
        var text = ""
        if let file = PulseSink.userClientConfiguration() {
            text += ".include \(file)\n"
            if let folder = opendir(file + ".d") {
                var names: [String] = []
                while let entry = readdir(folder) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) {
                        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    if name.hasSuffix(".conf") { names.append(name) }
                }
                closedir(folder)
                for name in names.sorted() { text += ".include \(file).d/\(name)\n" }
            }
        }
        text += "enable-shm = no\n"
        let descriptor = hum_pulse_memory_file(text)
        guard descriptor >= 0 else { return nil }
        configuration = (true, "/proc/self/fd/\(descriptor)", descriptor)
        return configuration.path
    }

    /// The client.conf libpulse reads when PULSE_CLIENTCONFIG is not set: the user's (in PULSE_CONFIG_PATH, else
    /// $XDG_CONFIG_HOME/pulse, else ~/.config/pulse), else the system's; nil when there is none.
    static func userClientConfiguration() -> String? {
        var folders: [String] = []
        if let path = getenv("PULSE_CONFIG_PATH") {
            folders.append(String(cString: path))
        } else if let config = getenv("XDG_CONFIG_HOME"), config.pointee != 0 {
            folders.append(String(cString: config) + "/pulse")
        } else if let home = getenv("HOME") {
            folders.append(String(cString: home) + "/.config/pulse")
        }
        for file in folders.map({ $0 + "/client.conf" }) + ["/etc/pulse/client.conf"] where access(file, R_OK) == 0 {
            return file
        }
        return nil
    }

    /// Iterates the main loop until `done` says so, the deadline passes (`timeout` is the message), or an
    /// interrupt.
    private func waitUntil(
        _ deadline: Double, _ timeout: String,
        _ done: (UnsafeMutablePointer<hum_pulse>) throws(AudioSinkError) -> Bool
    ) throws(AudioSinkError) {
        while try !done(pulse) {
            if interrupted.load(ordering: .relaxed) { throw AudioSinkError("interrupted") }
            let left = deadline - PulseSink.now()
            if left <= 0 { throw AudioSinkError(timeout) }
            if hum_pulse_iterate(pulse, Int32((left * 1e6).rounded(.up))) < 0 { throw AudioSinkError(timeout) }
        }
    }

    /// Why the stream cannot go on (a negative errno for the engine), nil while it can.
    private func failure() -> Int32? {
        if pa_context_state_t(UInt32(pulse.pointee.context_state)) != PA_CONTEXT_READY { return -ECONNRESET }
        if pa_stream_state_t(UInt32(pulse.pointee.stream_state)) != PA_STREAM_READY { return -ENODEV }
        return nil
    }

    /// Waits until the server asked for a period (the first writes, up to tlength, go at once). A server that asks
    /// for nothing for `AlsaSink.stallSeconds` (3 s before the stream started) is reported lost.
    public func awaitRoom() -> AudioSinkWriteResult {
        guard let stream = pulse.pointee.stream, let writable = pulse.pointee.stream_writable_size else {
            return .lost(code: -EBADFD)
        }
        let need = periodFrames * 8
        let start = PulseSink.now()
        let limit = begun.load(ordering: .relaxed) ? AlsaSink.stallSeconds : AlsaSink.stallSecondsBeforeStart
        while true {
            if interrupted.load(ordering: .relaxed) { return .interrupted }
            if let code = failure() { return .lost(code: code) }
            if writable(stream) >= need { return .written }
            let left = limit - (PulseSink.now() - start)
            if left <= 0 { return .lost(code: -ETIMEDOUT) }
            if hum_pulse_iterate(pulse, Int32((left * 1e6).rounded(.up))) < 0 { return .lost(code: -EIO) }
            if pulse.pointee.started != 0 { begun.store(true, ordering: .releasing) }
        }
    }

    /// Queues the frames and sends them at once (one iteration that does not wait). Underruns the server reported
    /// since the last write come back as `.recovered`, each of them counted (the server sends one underflow each
    /// time the stream runs dry, plays silence, and restarts the stream itself once data is back).
    public func write(_ frames: UnsafePointer<Float>, count: Int) -> AudioSinkWriteResult {
        guard pulse.pointee.stream != nil else { return .lost(code: -EBADFD) }
        if interrupted.load(ordering: .relaxed) { return .interrupted }
        if let code = failure() { return .lost(code: code) }
        if hum_pulse_write(pulse, frames, count * 8) < 0 { return .lost(code: -EIO) }
        if hum_pulse_iterate(pulse, 0) < 0 { return .lost(code: -EIO) }
        if pulse.pointee.started != 0 { begun.store(true, ordering: .releasing) }
        if let code = failure() { return .lost(code: code) }
        let underflows = pulse.pointee.underflows
        if underflows != underflowsSeen {
            defer { underflowsSeen = underflows }
            return .recovered(underruns: Int(underflows &- underflowsSeen))
        }
        return .written
    }

    /// Lets what was written play out (the server plays it even if it never reached prebuf), bounded by the
    /// buffer's length plus half a second, then lets go of the stream.
    public func finish() {
        guard pulse.pointee.stream != nil, failure() == nil, hum_pulse_drain(pulse) == 0 else { return }
        let deadline = PulseSink.now() + Double(bufferFrames) / Double(max(sampleRate, 1)) + 0.5
        try? waitUntil(deadline, "the drain did not end") { pulse throws(AudioSinkError) in
            if pulse.pointee.drained != 0 { return true }
            if self.failure() != nil { throw AudioSinkError("lost while draining") }
            return false
        }
    }

    public func close() {
        hum_pulse_close(pulse)
    }

    /// Monotonic seconds.
    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
