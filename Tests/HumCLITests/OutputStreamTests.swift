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

    /// A command that changed something lasting succeeds even when what it prints about it cannot be written: the
    /// change is made (a script that retried on exit 1 would spend twice), and one line on stderr says so and how
    /// to see it. Every command that writes the database and then prints, with stdout on /dev/full, closed, or a
    /// pipe nobody reads; the database is looked at afterwards.
    @Test func aChangeThatWasMadeSucceedsWhenItsReportCannotBeWritten() throws {
        let s = try seeded()
        let file = s.root + "/entries.jsonl"
        try
            "{\"id\":\"00000000-0000-4000-8000-000000000001\",\"kind\":\"adjustment\",\"amount_seconds\":60,\"at\":\"2025-03-30T09:00:00+02:00\",\"device\":\"d\",\"payload\":\"adjustment 60 reason=seed\",\"reason\":\"seed\"}\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        func bank() throws -> Int {
            let r = try runBinary(["bank", "--json"], environment: s.environment)
            let object = try #require(json(r.out) as? [String: Any])
            return try #require(object["balance_seconds"] as? Int)
        }
        let start = try bank()
        var expected = start
        for (n, stdout) in ["/dev/full", "-", "broken pipe"].enumerated() {
            let day = "2025-03-0\(n + 1)"
            let changes: [(words: [String], see: String, change: Int)] = [
                (["spend", "5m", "--on", "y"], "hum ledger --since today", -300),
                (["spend", "1m", "--on", "y", "--key", "k-\(stdout)"], "hum ledger --since today", -60),
                (["spend", "1m", "--on", "y", "--key", "k-\(stdout)"], "hum ledger --since today", 0),
                (["ledger", "adjust", "+2m", "--reason", "r"], "hum ledger --since today", 120),
                (
                    ["history", "record", "--active", "30m", "--start", day + "T09:00:00Z"],
                    "hum history --since \(day) --until \(day)", 600
                ),
                (["config", "set", "focus.length", "30m"], "hum config get focus.length", 0),
                (["config", "unset", "focus.length"], "hum config get focus.length", 0),
                (["mix", "save", "night", "rain=40"], "hum mix list", 0),
                (["mix", "rm", "night"], "hum mix list", 0),
                (["ledger", "import", file], "hum ledger check", stdout == "/dev/full" ? 60 : 0),
            ]
            for (words, see, change) in changes {
                let r = try runWithStdout(words, environment: s.environment, stdout: stdout)
                #expect(r.code == 0, "\(words) > \(stdout): \(r.code) \(r.err)")
                #expect(r.err.hasPrefix("hum: ") && r.err.hasSuffix("; '\(see)' shows it\n"), "\(words): \(r.err)")
                #expect(r.err.contains(", but what hum printed about it could not be written ("), "\(r.err)")
                #expect(r.err.filter { $0 == "\n" }.count == 1, "\(r.err)")
                expected += change
                #expect(try bank() == expected, "\(words) > \(stdout)")
            }
            #expect(try runBinary(["config", "get", "focus.length"], environment: s.environment).out == "25m\n")
            #expect(try runBinary(["mix", "list", "--names"], environment: s.environment).out == "")
        }
        // Each spend and correction was recorded once.
        let ledger = try runBinary(["ledger", "--json"], environment: s.environment).out
        #expect(ledger.components(separatedBy: "\"kind\" : \"spend\"").count - 1 == 6, "\(ledger)")
        // A command that changes nothing still fails for output it could not write (its run can be repeated).
        #expect(try runWithStdout(["bank"], environment: s.environment, stdout: "/dev/full").code == 1)
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
