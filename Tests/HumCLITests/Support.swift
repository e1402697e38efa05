import Foundation
import HumCore
import Synchronization
import Testing

@testable import HumCLI

/// Collects what a command writes.
final class Buffer: TextOutput, @unchecked Sendable {
    private let lock = NSLock()
    private var storage = ""
    func write(_ text: String) {
        lock.lock()
        storage += text
        lock.unlock()
    }
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
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
        var environment = [
            "HOME": root, "XDG_DATA_HOME": root + "/data", "XDG_CONFIG_HOME": root + "/config",
            "XDG_STATE_HOME": root + "/state", "XDG_RUNTIME_DIR": runtimeDirectory,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "NO_COLOR": "1", "TZ": "Europe/Paris",
        ]
        // Under scripts/coverage.sh, the hum processes the tests start write their profiles where the tests' go.
        if let profile = ProcessInfo.processInfo.environment["LLVM_PROFILE_FILE"] {
            environment["LLVM_PROFILE_FILE"] = profile
        }
        return environment
    }
    var databasePath: String { root + "/data/hum/hum.db" }

    /// The sandbox's XDG_RUNTIME_DIR (0700, as the specification wants), where its player's socket goes.
    var runtimeDirectory: String {
        let path = root + "/run"
        mkdir(path, 0o700)
        return path
    }

    /// Runs hum in this process.
    func run(_ words: String...) -> (code: Int32, out: String, err: String) { run(words) }
    func run(_ words: [String]) -> (code: Int32, out: String, err: String) {
        let out = Buffer()
        let err = Buffer()
        let context = CommandContext(
            environment: environment, stdout: out, stderr: err,
            stdoutIsTerminal: false, stdinIsTerminal: false)
        let code = HumMain.run(arguments: ["hum"] + words, context: context)
        return (code, out.text, err.text)
    }
}

/// The built binary: `HUM_BIN`, or .build/debug/hum next to the package.
let humBinary: String = {
    if let bin = ProcessInfo.processInfo.environment["HUM_BIN"], !bin.isEmpty { return bin }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug/hum").path
}()

/// Starts the built binary with stdout and stderr going to files (not pipes: a command left running by a pass
/// would hold a pipe open). Returns its pid; reap it with `waitFor`.
func spawnBinary(
    _ arguments: [String], environment: [String: String], stdout: String, stderr: String, program: String = humBinary
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for p in argv + envp { free(p) } }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
    guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
    return pid
}

/// Waits for a child and returns its exit code (128 + signal when killed).
@discardableResult
func waitFor(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signal = status & 0x7F
    return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
}

/// Runs the built binary and waits.
func runBinary(_ arguments: [String], environment: [String: String], program: String = humBinary) throws -> (
    code: Int32, out: String, err: String
) {
    let base = NSTemporaryDirectory() + "hum-run-" + UUID().uuidString
    defer {
        unlink(base + ".out")
        unlink(base + ".err")
    }
    let pid = try spawnBinary(
        arguments, environment: environment, stdout: base + ".out", stderr: base + ".err", program: program)
    let code = waitFor(pid)
    let out = (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? ""
    let err = (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? ""
    return (code, out, err)
}

func json(_ text: String) -> Any? { try? JSONSerialization.jsonObject(with: Data(text.utf8)) }
