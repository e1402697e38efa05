import Foundation
@testable import HumAudio
@testable import HumCLI
import HumCore

struct HumRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// What the audio tests add to the shared `Sandbox` (Support.swift): a work folder, sound files, and the built
/// binary run with the real environment (so it reaches the test's PulseAudio daemon) but the sandbox's XDG folders.
extension Sandbox {
    var audioEnvironment: [String: String] {
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
    func startHum(_ arguments: [String]) throws -> Child {
        let id = UUID().uuidString
        let child = Child(stdoutPath: path("\(id).out"), stderrPath: path("\(id).err"))
        child.pid = try spawnBinary(arguments, environment: audioEnvironment, stdout: child.stdoutPath, stderr: child.stderrPath)
        return child
    }

    /// Runs the built hum and waits.
    func hum(_ arguments: [String]) throws -> HumRun {
        let child = try startHum(arguments)
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
func runInProcess(_ arguments: [String], environment: [String: String] = ["HOME": "/nonexistent", "HUM_SOUNDS_DIR": "/nonexistent"]) -> HumRun {
    let out = Buffer(), err = Buffer()
    let context = CommandContext(environment: environment, stdout: out, stderr: err, stdoutIsTerminal: false, stdinIsTerminal: false)
    let status = HumMain.run(arguments: ["hum"] + arguments, context: context)
    return HumRun(status: status, stdout: out.text, stderr: err.text)
}
