import Foundation
import HumCore
import HumTestSupport

@testable import HumAudio
@testable import HumCLI

struct HumRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// What the audio tests add to the shared `Sandbox` (Support.swift): a work folder, sound files, and the built
/// binary run with the real environment (so it reaches the test's PulseAudio daemon) but the sandbox's XDG folders.
extension Sandbox {
    /// What a hum started in tmux needs of `audioEnvironment` (tmux passes on only what it is given), sending its
    /// sound to `sink`, without colour.
    func terminalEnvironment(_ sink: IsolatedSink) -> [String: String] {
        let wanted: Set = [
            "XDG_RUNTIME_DIR", "PULSE_SERVER", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "HUM_SOUNDS_DIR",
            "LLVM_PROFILE_FILE",
        ]
        var env = audioEnvironment.filter { wanted.contains($0.key) }
        env.merge(sink.environment) { $1 }
        env["NO_COLOR"] = "1"
        return env
    }

    var audioEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_DATA_HOME"] = "\(root)/data"
        env["XDG_CONFIG_HOME"] = "\(root)/config"
        env["XDG_STATE_HOME"] = "\(root)/state"
        env["XDG_CACHE_HOME"] = "\(root)/cache"
        // A runtime directory of the sandbox's own, so its player's control socket is its own; the sound server
        // (whose socket is in the test run's runtime directory) is named directly.
        if let shared = env["XDG_RUNTIME_DIR"], env["PULSE_SERVER"] == nil {
            env["PULSE_SERVER"] = "unix:\(shared)/pulse/native"
        }
        env["XDG_RUNTIME_DIR"] = runtimeDirectory
        env["HUM_SOUNDS_DIR"] = "\(root)/sounds"
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "HUM_DEVICE")
        // Never the desktop's own session bus: a test's player must not show up in its panel or notify it. Tests
        // of the bus give a private one.
        env.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        return env
    }

    /// A path in the sandbox's work folder.
    func path(_ name: String) -> String {
        try? FileManager.default.createDirectory(atPath: "\(root)/work", withIntermediateDirectories: true)
        return "\(root)/work/\(name)"
    }

    /// Writes a float WAV file into the work folder and returns its path.
    @discardableResult
    func writeSound(_ name: String, _ samples: [Float], rate: Int = 48000, channels: Int = 1) throws -> String {
        let path = self.path(name)
        let writer = try AudioFileWriter(path: path, sampleRate: rate, channels: channels, sampleFormat: .f32)
        try writer.write(samples)
        try writer.finish()
        return path
    }

    /// Starts the built hum; stdout and stderr go to files.
    func startHum(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Child {
        let id = UUID().uuidString
        let child = Child(stdoutPath: path("\(id).out"), stderrPath: path("\(id).err"))
        child.pid = try spawnBinary(
            arguments, environment: audioEnvironment.merging(extra) { $1 },
            stdout: child.stdoutPath, stderr: child.stderrPath)
        return child
    }

    /// Runs the built hum and waits.
    func hum(_ arguments: [String], environment extra: [String: String] = [:]) throws -> HumRun {
        let child = try startHum(arguments, environment: extra)
        let status = child.wait()
        return HumRun(status: status, stdout: child.stdout, stderr: child.stderr)
    }
}

/// A running hum.
final class Child: @unchecked Sendable {
    var pid: pid_t = 0
    let stdoutPath: String
    let stderrPath: String

    init(stdoutPath: String, stderrPath: String) {
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
    }

    /// Whether it was killed by a signal (set by `wait`).
    private(set) var signaled = false

    /// Waits for the exit and returns the exit status (128 + signal when killed by a signal).
    @discardableResult
    func wait() -> Int32 {
        let status = waitFor(pid)
        signaled = status > 128
        return status
    }

    func signal(_ sig: Int32) { kill(pid, sig) }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}

/// Whether the PulseAudio null sink of scripts/test.sh is up (that script fails the run when it cannot start one).
let pulseSink: String? = ProcessInfo.processInfo.environment["HUM_TEST_PULSE_SINK"]

/// Reads a raw float32 stereo file.
func readRawFloat(_ path: String) throws -> [Float] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
}

func sine(frequency: Double, rate: Int = 48000, frames: Int, amplitude: Float = 0.5) -> [Float] {
    (0..<frames).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

func largestStep(_ signal: [Float]) -> Float {
    zip(signal.dropFirst(), signal).map { abs($0 - $1) }.max() ?? 0
}

func channel(_ interleaved: [Float], _ c: Int) -> [Float] {
    stride(from: c, to: interleaved.count, by: 2).map { interleaved[$0] }
}

func rms(_ samples: ArraySlice<Float>) -> Float {
    guard !samples.isEmpty else { return 0 }
    return (samples.reduce(Float(0)) { $0 + $1 * $1 } / Float(samples.count)).squareRoot()
}

/// Runs the dispatcher in-process (no audio is opened by the commands tested this way).
func runInProcess(
    _ arguments: [String], environment: [String: String] = ["HOME": "/nonexistent", "HUM_SOUNDS_DIR": "/nonexistent"]
) -> HumRun {
    let out = Buffer()
    let err = Buffer()
    let context = CommandContext(
        environment: environment, stdout: out, stderr: err, stdoutIsTerminal: false, stdinIsTerminal: false)
    let status = HumMain.run(arguments: ["hum"] + arguments, context: context)
    return HumRun(status: status, stdout: out.text, stderr: err.text)
}

/// A PulseAudio null sink of the test's own (on the daemon scripts/test.sh started), so nothing else that plays
/// on the machine reaches its recording. hum is sent to it with PULSE_SINK, which ALSA's pulse plugin honours.
final class IsolatedSink: @unchecked Sendable {
    let name = "humtest-" + UUID().uuidString.prefix(8).lowercased()
    private var module = ""
    private var recorder: pid_t = 0
    private var keepAlive: pid_t = 0
    let recording: String
    private(set) var recordingStarted = Date()

    init(recordingTo path: String) throws {
        recording = path
        module = try IsolatedSink.pactl([
            "load-module", "module-null-sink", "sink_name=\(name)", "format=float32le",
            "rate=48000", "channels=2",
        ]).trimmingCharacters(in: .whitespacesAndNewlines)
        // An idle null sink sleeps in blocks of up to 2 s, so a stream that joins it first stalls for part of that:
        // a stream of zeros at 20 ms latency keeps it awake and in real time, and adds nothing to the recording.
        keepAlive = try spawnAny(
            "/usr/bin/pacat",
            [
                "--playback", "-d", name, "--raw", "--format=float32le", "--rate=48000",
                "--channels=2", "--latency-msec=20",
            ], stdin: "/dev/zero")
        recorder = try spawnAny(
            "/usr/bin/parec",
            [
                "-d", "\(name).monitor", "--format=float32le", "--rate=48000",
                "--channels=2", "--raw", "--latency-msec=20", path,
            ])
        // The recording has begun only once data arrives (parec takes a moment to connect), and flows once a
        // tenth of a second of it is in.
        eventually(within: 2) { recordedSeconds > 0 }
        recordingStarted = Date()
        eventually(within: 2) { recordedSeconds >= 0.1 }
    }

    /// Waits until the recording holds `seconds` more than it does now: so much more sound (or silence) played,
    /// by the recording's own clock (a recorder that lags on a loaded machine is waited for).
    func waitForRecording(_ seconds: Double) -> Bool {
        let from = recordedSeconds
        return eventually(within: seconds + 5) { recordedSeconds >= from + seconds }
    }

    /// How much the recording holds so far, in seconds.
    var recordedSeconds: Double {
        var info = stat()
        guard stat(recording, &info) == 0 else { return 0 }
        return Double(info.st_size) / (48000 * 2 * 4)
    }

    /// Environment entries that send hum's `default` PCM here.
    var environment: [String: String] { ["PULSE_SINK": name] }

    /// Waits until the last 50 ms recorded hold sound (RMS of the left channel over `threshold`), up to `timeout`
    /// seconds: a player started in the background plays only once it has loaded and its stream has started,
    /// which a busy machine makes later than any fixed wait.
    func waitForSound(threshold: Float = 0.001, timeout: Double = 15) -> Bool {
        waitForLevel(timeout: timeout) { $0 > threshold }
    }

    /// Waits until the RMS of the last 50 ms recorded (left channel) meets `wanted`, up to `timeout` seconds.
    func waitForLevel(timeout: Double = 5, _ wanted: (Float) -> Bool) -> Bool {
        eventually(within: timeout) { level().map(wanted) ?? false }
    }

    /// The RMS of the last 50 ms recorded (left channel), or nil before anything is.
    func level() -> Float? {
        let tail = 2400 * 2 * 4  // 50 ms of stereo float
        guard let file = FileHandle(forReadingAtPath: recording) else { return nil }
        let size = (try? file.seekToEnd()) ?? 0
        let start = size >= UInt64(tail) ? (size - UInt64(tail)) / 8 * 8 : 0
        try? file.seek(toOffset: start)
        let data = (try? file.readToEnd()) ?? Data()
        try? file.close()
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let left = channel(samples, 0)
        return left.isEmpty ? nil : rms(left[...])
    }

    /// Stops recording (parec does not always quit on SIGTERM; its raw file is written as it goes) and returns
    /// the left channel: once all that played until now is in the recording (parec writes with some latency),
    /// and a tail of 0.3 s after it (the tests look at what follows the last sound).
    func stop() throws -> [Float] {
        let until = Date().timeIntervalSince(recordingStarted) + 0.3
        eventually(within: 3) { recordedSeconds >= until }
        for pid in [recorder, keepAlive] {
            kill(pid, SIGKILL)
            waitFor(pid)
        }
        recorder = 0
        keepAlive = 0
        _ = try? IsolatedSink.pactl(["unload-module", module])
        return channel(try readRawFloat(recording), 0)
    }

    deinit {
        for pid in [recorder, keepAlive] where pid != 0 {
            kill(pid, SIGKILL)
            waitFor(pid)
        }
        _ = try? IsolatedSink.pactl(["unload-module", module])
    }

    static func pactl(_ arguments: [String]) throws -> String {
        let out = NSTemporaryDirectory() + "pactl-" + UUID().uuidString
        defer { unlink(out) }
        let pid = try spawnAny("/usr/bin/pactl", arguments, stdout: out)
        let status = waitFor(pid)
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw SpawnFailure(command: "pactl \(arguments.joined(separator: " "))", status: status)
        }
        return text
    }
}

struct SpawnFailure: Error {
    var command: String
    var status: Int32
}

/// Starts any program with the test's environment, output to a file (or /dev/null).
func spawnAny(_ program: String, _ arguments: [String], stdin: String = "/dev/null", stdout: String = "/dev/null")
    throws -> pid_t
{
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdin, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, program, &actions, nil, argv, envp)
    guard rc == 0 else { throw SpawnFailure(command: program, status: rc) }
    return pid
}

/// RMS of 50 ms windows of a 48 kHz signal, with the time (s) of each window's start.
func envelope(_ signal: [Float], window: Int = 2400) -> [(time: Double, rms: Float)] {
    stride(from: 0, to: max(0, signal.count - window), by: window).map {
        (Double($0) / 48000, rms(signal[$0..<($0 + window)]))
    }
}
