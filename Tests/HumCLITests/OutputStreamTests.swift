import Foundation
import HumCore
import Synchronization
import Testing

@testable import HumCLI

/// Starts the built hum with stdout set up by `stdout`: a path to open, "-" for a closed descriptor, or a pipe
/// whose reading end is already closed ("broken pipe"). stderr goes to a file. Returns the exit code and stderr.
func runWithStdout(_ arguments: [String], environment: [String: String], stdout: String) throws -> (
    code: Int32, err: String
) {
    let errPath = NSTemporaryDirectory() + "hum-err-" + UUID().uuidString
    defer { unlink(errPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    var pipeEnds: [Int32] = [-1, -1]
    switch stdout {
    case "-": posix_spawn_file_actions_addclose(&actions, 1)
    case "broken pipe":
        guard pipe(&pipeEnds) == 0 else { throw POSIXError(.EIO) }
        close(pipeEnds[0])
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
    default: posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    }
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let argv: [UnsafeMutablePointer<CChar>?] = ([humBinary] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for p in argv + envp { free(p) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, humBinary, &actions, nil, argv, envp)
    if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
    guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
    let code = waitFor(pid)
    return (code, (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
}

/// An output that fails from its `failAt`th write on, counting every write it is asked for.
final class FailingOutput: TextOutput, Sendable {
    let failAt: Int
    private let counts = Mutex((writes: 0, failure: OutputFailure?.none))
    init(failAt: Int) { self.failAt = failAt }
    func write(_ text: String) {
        counts.withLock {
            $0.writes += 1
            if $0.writes >= failAt, $0.failure == nil { $0.failure = OutputFailure(code: ENOSPC) }
        }
    }
    var failure: OutputFailure? { counts.withLock { $0.failure } }
    var writes: Int { counts.withLock { $0.writes } }
}

/// Every write to stdout is checked: a full disk, a closed stdout and a reader that went away end the command with
/// exit 1 and one line, through the built binary.
@Suite struct OutputStreamTests {
    static let commands: [[String]] = [
        ["ledger", "export", "--jsonl"], ["export"], ["export", "--format", "csv"], ["ledger", "--csv"],
        ["history", "--json"], ["ledger"], ["bank"],
    ]

    func seeded() throws -> Sandbox {
        let s = Sandbox()
        #expect(try runBinary(["ledger", "adjust", "+1h", "--reason", "seed"], environment: s.environment).code == 0)
        #expect(try runBinary(["history", "record", "--active", "25m"], environment: s.environment).code == 0)
        return s
    }

    @Test func aFullDiskFailsTheCommand() throws {
        let s = try seeded()
        for words in Self.commands {
            let r = try runWithStdout(words, environment: s.environment, stdout: "/dev/full")
            #expect(r.code == 1, "\(words)")
            #expect(r.err == "hum: cannot write the output: No space left on device\n", "\(words)")
        }
    }

    @Test func aClosedStdoutFailsTheCommand() throws {
        let s = try seeded()
        for words in Self.commands {
            let r = try runWithStdout(words, environment: s.environment, stdout: "-")
            #expect(r.code == 1, "\(words)")
            #expect(r.err == "hum: cannot write the output: Bad file descriptor\n", "\(words)")
        }
        // Nothing meant for stdout went into a file hum opened on descriptor 1 (the database above all).
        #expect(try runBinary(["ledger", "check"], environment: s.environment).code == 0)
        #expect(try runBinary(["bank", "--json"], environment: s.environment).out.contains("\"balance_seconds\""))
    }

    @Test func aReaderThatWentAwayFailsTheCommand() throws {
        let s = try seeded()
        for words in Self.commands {
            let r = try runWithStdout(words, environment: s.environment, stdout: "broken pipe")
            #expect(r.code == 1, "\(words)")
            #expect(r.err == "hum: cannot write the output: Broken pipe\n", "\(words)")
        }
    }

    /// A command that writes nothing to stdout does not fail for a closed stdout.
    @Test func aClosedStdoutThatIsNotUsedIsNoError() throws {
        let s = try seeded()
        #expect(try runWithStdout(["ledger", "check"], environment: s.environment, stdout: "-").code == 0)
    }

    /// A long export stops at the first failed write instead of writing on into nothing.
    @Test func longExportsStopAtTheFirstFailedWrite() throws {
        let s = Sandbox()
        let file = s.root + "/many.jsonl"
        var lines = ""
        for i in 0..<6000 {
            lines +=
                "{\"id\":\"00000000-0000-4000-8000-\(String(format: "%012d", i))\",\"kind\":\"adjustment\",\"amount_seconds\":60,\"at\":\"2025-03-30T09:00:00+02:00\",\"device\":\"d\",\"payload\":\"adjustment 60 reason=seed\",\"reason\":\"seed\"}\n"
        }
        try lines.write(toFile: file, atomically: true, encoding: .utf8)
        let imported = s.run("ledger", "import", file)
        #expect(imported.code == 0, "\(imported.err)")
        for words in [["ledger", "export"], ["export", "--format", "jsonl"], ["export"]] {
            let output = FailingOutput(failAt: 1)
            let context = CommandContext(
                environment: s.environment, stdout: output, stderr: Buffer(), stdoutIsTerminal: false,
                stdinIsTerminal: false)
            let code = HumMain.run(arguments: ["hum"] + words, context: context)
            #expect(code == 1, "\(words)")
            #expect(output.writes == 1, "\(words): \(output.writes) writes")
        }
    }
}
