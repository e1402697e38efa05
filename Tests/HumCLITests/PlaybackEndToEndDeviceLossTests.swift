import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumAudio

/// A PulseAudio daemon of the test's own, so the test may stop or kill it under a playing hum without touching the
/// daemon other tests play through. A stream of zeros keeps its null sink awake (an idle one sleeps in 2 s blocks).
final class PrivateSoundServer {
    let directory: String
    let server: pid_t
    private let keepAlive: pid_t

    init(in directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(
            atPath: directory + "/config", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(directory, 0o700)
        let environment = [
            "HOME": directory, "XDG_RUNTIME_DIR": directory, "XDG_CONFIG_HOME": directory + "/config",
            "PULSE_RUNTIME_PATH": directory, "PATH": "/usr/bin:/bin",
        ]
        server = try PrivateSoundServer.spawn(
            "/usr/bin/pulseaudio",
            [
                "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--system=no", "--use-pid-file=no",
                "--load=module-null-sink sink_name=private format=float32le rate=48000 channels=2",
                "--load=module-native-protocol-unix socket=\(directory)/native auth-anonymous=1",
            ], environment: environment)
        // Up once it answers and has its sink.
        eventually(within: 10) {
            let sinks = try? IsolatedSink.pactl(["-s", "unix:\(directory)/native", "list", "short", "sinks"])
            return sinks?.contains("private") == true
        }
        keepAlive = try PrivateSoundServer.spawn(
            "/usr/bin/pacat",
            [
                "--playback", "-d", "private", "--raw", "--format=float32le", "--rate=48000", "--channels=2",
                "--latency-msec=20",
            ], environment: environment.merging(["PULSE_SERVER": "unix:\(directory)/native"]) { $1 },
            stdin: "/dev/zero")
        eventually(within: 10) { playingStreams() == 1 }
    }

    /// How many streams play into the server now (connected and not corked), or -1 when it does not answer.
    func playingStreams() -> Int {
        let text = try? IsolatedSink.pactl(["-s", "unix:\(directory)/native", "-f", "json", "list", "sink-inputs"])
        guard let streams = json(text ?? "") as? [[String: Any]] else { return -1 }
        return streams.filter { $0["corked"] as? Bool == false }.count
    }

    /// What sends hum's `default` PCM to this server.
    var environment: [String: String] { ["PULSE_SERVER": "unix:\(directory)/native", "PULSE_SINK": "private"] }

    func signal(_ signal: Int32) { kill(server, signal) }

    static func spawn(
        _ program: String, _ arguments: [String], environment: [String: String], stdin: String = "/dev/null"
    )
        throws -> pid_t
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, program, &actions, nil, argv, envp)
        guard rc == 0 else { throw SpawnFailure(command: program, status: rc) }
        return pid
    }

    deinit {
        for pid in [keepAlive, server] {
            kill(pid, SIGCONT)
            kill(pid, SIGKILL)
            waitFor(pid)
        }
    }
}

/// Waits up to `timeout` seconds for a child to exit; kills it when it does not. Returns the seconds waited, or nil.
/// The wait blocks in waitpid (a timer kills the child at the deadline), so the time is exact to the exit.
func exitTime(_ child: Child, within timeout: Double) -> Double? {
    let start = Date()
    let deadline = DispatchWorkItem { kill(child.pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
    child.wait()
    deadline.cancel()
    let took = Date().timeIntervalSince(start)
    return took < timeout ? took : nil
}

/// Kills a child left running by a failed expectation.
func reap(_ child: Child) {
    var status: Int32 = 0
    if waitpid(child.pid, &status, WNOHANG) == 0 {
        child.signal(SIGKILL)
        child.wait()
    }
}

/// The CPU time a process used so far (user + system), in seconds.
func cpuSeconds(_ pid: pid_t) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Quitting never waits on audio that cannot play, and nothing spins once the sound server is gone.
@Suite(.serialized) struct PlaybackEndToEndDeviceLossTests {
    @Test(.enabled(if: pulseSink != nil, "needs PulseAudio (scripts/test.sh)"))
    func aStopEndsSoonWhenTheSoundServerHangs() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let server = try PrivateSoundServer(in: box.path("pulse"))
        let hum = try box.startHum(["play", "\(tone)=50", "--fade", "0.2s"], environment: server.environment)
        defer { reap(hum) }
        #expect(eventually(within: 15) { server.playingStreams() == 2 }, "hum never played: \(hum.stderr)")
        // A time: hum's sink counts as begun (and a hung server as lost after 1.5 s, not the 3 s allowed before a
        // stream starts) once the device has made it wait for room, which nothing outside hum shows.
        usleep(2_000_000)
        server.signal(SIGSTOP)  // the server hangs: it takes no more audio and answers nothing
        usleep(300_000)  // a time: what hum had buffered plays out, so its write is waiting on the hung server
        hum.signal(SIGTERM)
        // The write waiting for the device gives up 1.5 s after the server stopped; the stop then ends at once.
        let waited = exitTime(hum, within: 8)
        #expect(waited != nil, "hum still ran 8 s after SIGTERM with the sound server stopped")
        #expect((waited ?? 99) < 3, "took \(waited ?? 99) s")
    }

    /// SIGTERM (a service stopping), SIGHUP (its terminal closed, the orphan that spun) and SIGINT (Ctrl-C).
    @Test(
        .enabled(if: pulseSink != nil, "needs PulseAudio (scripts/test.sh)"), arguments: [SIGTERM, SIGHUP, SIGINT])
    func nothingSpinsAndQuittingIsImmediateOnceTheSoundServerIsGone(quitting: Int32) throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let server = try PrivateSoundServer(in: box.path("pulse"))
        let hum = try box.startHum(["play", "\(tone)=50", "--fade", "0.2s"], environment: server.environment)
        defer { reap(hum) }
        #expect(eventually(within: 15) { server.playingStreams() == 2 }, "hum never played: \(hum.stderr)")
        server.signal(SIGKILL)
        #expect(eventually { hum.stderr.contains("went away") }, "hum did not see the server go: \(hum.stderr)")
        let before = try #require(cpuSeconds(hum.pid))
        usleep(2_000_000)  // a time: the CPU hum uses over it is what is measured
        let after = try #require(cpuSeconds(hum.pid))
        // Waiting for the device to come back costs next to nothing (a reopen attempt every half second).
        #expect(after - before < 0.2, "hum used \(after - before) s of CPU in 2 s")
        hum.signal(quitting)
        let waited = exitTime(hum, within: 5)
        #expect((waited ?? 99) < 0.3, "signal \(quitting): took \(waited ?? 99) s")
    }

    @Test(.enabled(if: pulseSink != nil, "needs the PulseAudio null sink started by scripts/test.sh"))
    func aStoppedPlayerExitsRightAfterItsFade() throws {
        let box = Sandbox()
        let tone = try box.writeSound("tone.wav", sine(frequency: 330, frames: 48000))
        let sink = try IsolatedSink(recordingTo: box.path("monitor.raw"))
        let hum = try box.startHum(["play", "\(tone)=50", "--fade", "0.5s"], environment: sink.environment)
        defer { reap(hum) }
        #expect(sink.waitForSound(), "hum never played: \(hum.stderr)")
        hum.signal(SIGTERM)
        // The fade (0.5 s), then what is still buffered plays out (about 0.1 s), then the exit.
        let waited = exitTime(hum, within: 5)
        #expect((waited ?? 99) < 0.5 + 0.3, "took \(waited ?? 99) s")
        _ = try sink.stop()
    }
}
