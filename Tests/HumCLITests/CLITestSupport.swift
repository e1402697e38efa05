import Foundation
@testable import HumAudio
@testable import HumCLI
import HumCore

/// The built `hum`: $HUM_BIN (set by scripts/test.sh), else the debug build beside the package.
let humBinary: String = {
    if let bin = ProcessInfo.processInfo.environment["HUM_BIN"], !bin.isEmpty { return bin }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug/hum").path
}()

/// Whether the PulseAudio null sink of scripts/test.sh is up (it fails the run when it cannot start one).
let pulseSink: String? = ProcessInfo.processInfo.environment["HUM_TEST_PULSE_SINK"]

struct HumRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// A sandbox for one test: its own XDG directories and a folder of sounds.
final class Sandbox: @unchecked Sendable {
    let root: String
    init() {
        root = NSTemporaryDirectory() + "hum-cli-test-" + UUID().uuidString
        for dir in ["data", "config", "state", "cache", "sounds", "work"] {
            try! FileManager.default.createDirectory(atPath: "\(root)/\(dir)", withIntermediateDirectories: true)
        }
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["XDG_DATA_HOME"] = "\(root)/data"
        env["XDG_CONFIG_HOME"] = "\(root)/config"
        env["XDG_STATE_HOME"] = "\(root)/state"
        env["XDG_CACHE_HOME"] = "\(root)/cache"
        env["HUM_SOUNDS_DIR"] = "\(root)/sounds"
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "HUM_DEVICE")
        return env
    }

    func path(_ name: String) -> String { "\(root)/work/\(name)" }

    /// Writes a float WAV file into the work folder and returns its path.
    @discardableResult
    func writeSound(_ name: String, _ samples: [Float], rate: Int = 48000, channels: Int = 1) throws -> String {
        let path = self.path(name)
        let writer = try AudioFileWriter(path: path, sampleRate: rate, channels: channels, sampleFormat: .f32)
        try writer.write(samples)
        try writer.finish()
        return path
    }

    /// Starts hum with posix_spawn, its stdout and stderr going to files in the sandbox. (Foundation's Process
    /// loses track of a child that was stopped and continued, which the underrun test does on purpose.)
    func start(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Child {
        let id = UUID().uuidString
        let child = Child(stdoutPath: "\(root)/work/\(id).out", stderrPath: "\(root)/work/\(id).err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, child.stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, child.stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([humBinary] + arguments).map { strdup($0) } + [nil]
        let envp = environment.merging(extra) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, humBinary, &actions, nil, argv, envp)
        guard result == 0 else { throw SpawnError(code: result) }
        child.pid = pid
        return child
    }

    func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> HumRun {
        let child = try start(arguments, environment: extra)
        let status = child.wait()
        return HumRun(status: status, stdout: child.stdout, stderr: child.stderr)
    }
}

struct SpawnError: Error { var code: Int32 }

/// A running hum.
final class Child: @unchecked Sendable {
    var pid: pid_t = 0
    let stdoutPath: String
    let stderrPath: String
    private(set) var signaled = false

    init(stdoutPath: String, stderrPath: String) {
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
    }

    /// Waits for the exit and returns the exit status (128 + signal when killed by a signal).
    @discardableResult
    func wait() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if status & 0x7F != 0 {
            signaled = true
            return 128 + (status & 0x7F)
        }
        return (status >> 8) & 0xFF
    }

    func signal(_ sig: Int32) { kill(pid, sig) }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}

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

/// A buffer that stands in for stdout/stderr in in-process tests.
final class BufferOutput: TextOutput, @unchecked Sendable {
    private let lock = NSLock()
    private var storage = ""
    func write(_ text: String) { lock.lock(); storage += text; lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return storage }
}

/// Runs the dispatcher in-process (no audio is opened by the commands tested this way).
func runInProcess(_ arguments: [String], environment: [String: String] = ["HOME": "/nonexistent", "HUM_SOUNDS_DIR": "/nonexistent"]) -> HumRun {
    let out = BufferOutput(), err = BufferOutput()
    let context = CommandContext(environment: environment, stdout: out, stderr: err, stdoutIsTerminal: false, stdinIsTerminal: false)
    let status = HumMain.run(arguments: ["hum"] + arguments, context: context)
    return HumRun(status: status, stdout: out.text, stderr: err.text)
}
