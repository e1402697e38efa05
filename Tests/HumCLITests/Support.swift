import Foundation
import Synchronization
import Testing
import HumCore
@testable import HumCLI

/// Collects what a command writes.
final class Buffer: TextOutput, @unchecked Sendable {
    private let lock = NSLock()
    private var storage = ""
    func write(_ text: String) { lock.lock(); storage += text; lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return storage }
}

/// A fresh XDG data directory per test.
final class Sandbox {
    let root: String
    init() {
        root = NSTemporaryDirectory() + "hum-cli-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: root) }

    var environment: [String: String] {
        ["HOME": root, "XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config",
         "XDG_STATE_HOME": root + "/state", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
         "NO_COLOR": "1", "TZ": "Europe/Paris"]
    }
    var databasePath: String { root + "/data/hum/hum.db" }

    /// Runs hum in this process.
    func run(_ words: String...) -> (code: Int32, out: String, err: String) { run(words) }
    func run(_ words: [String]) -> (code: Int32, out: String, err: String) {
        let out = Buffer(), err = Buffer()
        let context = CommandContext(environment: environment, stdout: out, stderr: err,
                                     stdoutIsTerminal: false, stdinIsTerminal: false)
        let code = HumMain.run(arguments: ["hum"] + words, context: context)
        return (code, out.text, err.text)
    }
}

/// The built binary: `HUM_BIN`, or .build/debug/hum next to the package.
let humBinary: String = {
    if let bin = ProcessInfo.processInfo.environment["HUM_BIN"], !bin.isEmpty { return bin }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug/hum").path
}()

/// Runs the built binary and waits.
func runBinary(_ arguments: [String], environment: [String: String]) throws -> (code: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: humBinary)
    process.arguments = arguments
    process.environment = environment
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
}

func json(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }
