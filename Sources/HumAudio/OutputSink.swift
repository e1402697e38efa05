import HumCore
import Synchronization

/// The sink hum plays through: a native stream to the sound server (`PulseSink`: PulseAudio, or PipeWire through
/// pipewire-pulse) when the device is ALSA's `default` and a server answers, else the ALSA device (`AlsaSink`),
/// which always works: a device the user names, a machine without a sound server or without libpulse, a server
/// that refuses the stream, or `HUM_AUDIO=alsa`. Each `open` (the engine reopens a lost device) tries the server
/// first again, so playback returns to it once it is back.
public final class OutputSink: AudioSink, @unchecked Sendable {
    // @unchecked: as its two sinks: used by one thread at a time, except `interrupt` and `hasBegunPlaying`.

    /// Where the mix goes.
    public enum Route: String, Sendable {
        case soundServer = "the sound server (native stream)"
        case alsa = "ALSA"
    }

    public let alsa: AlsaSink
    public let server: PulseSink
    /// Whether `open` tries the sound server first.
    public let triesServer: Bool
    private let onServer = Atomic<Bool>(false)
    /// Why the last `open` did not play to the sound server, when it tried and fell back to ALSA.
    public private(set) var serverProblem: String?

    /// - Parameter native: try a native stream to the sound server first (see `wantsServer`).
    public init(device: String, preferredRate: Int = 48000, dither: Bool = true, native: Bool) {
        alsa = AlsaSink(device: device, preferredRate: preferredRate, dither: dither)
        server = PulseSink(preferredRate: preferredRate)
        triesServer = native
    }

    /// Whether hum plays to the sound server natively: when the device is ALSA's `default` (which routes to the
    /// sound server anyway when there is one), unless `HUM_AUDIO=alsa` says to go through ALSA.
    public static func wantsServer(device: String, environment: [String: String]) -> Bool {
        device == "default" && environment["HUM_AUDIO"]?.lowercased() != "alsa"
    }

    public var route: Route { onServer.load(ordering: .acquiring) ? .soundServer : .alsa }
    public var device: String { alsa.device }
    public var sampleRate: Int { onServer.load(ordering: .relaxed) ? server.sampleRate : alsa.sampleRate }
    public var periodFrames: Int { onServer.load(ordering: .relaxed) ? server.periodFrames : alsa.periodFrames }
    /// The most frames queued ahead of a control change.
    public var fillFrames: Int { onServer.load(ordering: .relaxed) ? server.bufferFrames : alsa.fillFrames }

    public func open() throws(AudioSinkError) {
        close()
        if triesServer {
            do throws(AudioSinkError) {
                try server.open()
                serverProblem = nil
                onServer.store(true, ordering: .releasing)
                return
            } catch {
                serverProblem = error.message
            }
        }
        onServer.store(false, ordering: .releasing)
        try alsa.open()
    }

    public func awaitRoom() -> AudioSinkWriteResult {
        onServer.load(ordering: .relaxed) ? server.awaitRoom() : alsa.awaitRoom()
    }

    public func write(_ frames: UnsafePointer<Float>, count: Int) -> AudioSinkWriteResult {
        onServer.load(ordering: .relaxed) ? server.write(frames, count: count) : alsa.write(frames, count: count)
    }

    public func finish() {
        if onServer.load(ordering: .relaxed) { server.finish() } else { alsa.finish() }
    }

    public func close() {
        server.close()
        alsa.close()
    }

    public func interrupt() {
        server.interrupt()
        alsa.interrupt()
    }

    public var hasBegunPlaying: Bool {
        onServer.load(ordering: .relaxed) ? server.hasBegunPlaying : alsa.hasBegunPlaying
    }

    /// What plays, for `--verbose`: the route, the rate and what is queued.
    public var description: String {
        let rate = Double(max(sampleRate, 1))
        let period = Int((Double(periodFrames) / rate * 1000).rounded())
        if onServer.load(ordering: .relaxed) {
            let buffer = Int((Double(server.bufferFrames) / rate * 1000).rounded())
            return "the sound server (native stream, in place of ALSA's \"default\") at \(server.sampleRate) Hz, "
                + "float32, \(buffer) ms queued, refilled \(period) ms at a time"
        }
        let buffer = Int((Double(alsa.bufferFrames) / rate * 1000).rounded())
        let fill = Int((Double(alsa.fillFrames) / rate * 1000).rounded())
        var text =
            "\"\(alsa.device)\" at \(alsa.sampleRate) Hz, \(alsa.format.rawValue), periods of \(period) ms in a "
            + "\(buffer) ms buffer kept at most \(fill) ms full"
        if triesServer, let serverProblem { text += " (not the sound server natively: \(serverProblem))" }
        return text
    }
}
