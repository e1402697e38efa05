import Foundation
import HumAudio
import HumCore
import HumTestSupport
import Synchronization

@testable import HumPlayer

/// Collects what the runtime writes.
final class Buffer: TextSink {
    private let storage = Mutex("")
    func write(_ text: String) { storage.withLock { $0 += text } }
    var text: String { storage.withLock { $0 } }
}

/// A fresh folder per test, with the XDG directories of a user inside it, removed afterwards.
final class Sandbox {
    let root: String
    init() {
        root = NSTemporaryDirectory() + "hum-player-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: root) }

    var variables: [String: String] {
        [
            "HOME": root, "XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config",
            "XDG_STATE_HOME": root + "/state", "XDG_CACHE_HOME": root + "/cache",
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        ]
    }

    /// The runtime's environment in this folder: its warnings go to `stderr`.
    func environment(stderr: Buffer = Buffer()) -> PlayerEnvironment {
        PlayerEnvironment(
            variables: variables, paths: HumPaths(environment: variables), stdout: Buffer(), stderr: stderr)
    }

    /// A path in the sandbox's work folder.
    func path(_ name: String) -> String {
        try? FileManager.default.createDirectory(atPath: "\(root)/work", withIntermediateDirectories: true)
        return "\(root)/work/\(name)"
    }

    /// Writes a float WAV file into the work folder and returns its path.
    @discardableResult
    func writeSound(_ name: String, _ samples: [Float], rate: Int = 48000) throws -> String {
        let path = self.path(name)
        let writer = try AudioFileWriter(path: path, sampleRate: rate, channels: 1, sampleFormat: .f32)
        try writer.write(samples)
        try writer.finish()
        return path
    }
}

func sine(frequency: Double, rate: Int = 48000, frames: Int, amplitude: Float = 0.5) -> [Float] {
    (0..<frames).map { amplitude * Float(sin(2 * Double.pi * frequency * Double($0) / Double(rate))) }
}

/// Runs git in `directory` with a fixed author, and returns its exit code. `date`: the commit's time (epoch
/// seconds), so a test need not wait for the clock to move.
func git(_ arguments: [String], in directory: String, stdout: String = "/dev/null", date: Int64? = nil) throws -> Int32
{
    var environment = [
        "PATH": "/usr/bin:/bin", "HOME": directory, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    ]
    if let date {
        environment["GIT_AUTHOR_DATE"] = "@\(date) +0000"
        environment["GIT_COMMITTER_DATE"] = "@\(date) +0000"
    }
    return try runProgram("/usr/bin/git", ["-C", directory] + arguments, environment: environment, stdout: stdout)
}

extension TrappedRepository {
    init(_ box: Sandbox) throws { try self.init(root: box.root) }
}
