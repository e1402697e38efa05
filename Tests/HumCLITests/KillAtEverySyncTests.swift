import Foundation
import HumCore
import Testing

/// A killed command leaves nothing half-done: every command that writes the database is killed (SIGKILL, through
/// strace's fault injection) at each of its fsync and fdatasync calls in turn, on the very first run (while the
/// database is being created) and on a later one; after each, the next command works and `hum ledger check` passes.
/// Killing the first run at its 4th sync used to leave a hot journal that read as "not a hum database" for ever.
@Suite struct KillAtEverySyncTests {
    static let strace = "/usr/bin/strace"  // a test dependency (the Makefile's TEST_DEPS)

    static let commands: [[String]] = [
        ["ledger", "adjust", "+1m", "--reason", "x"],
        ["spend", "1m", "--on", "x"],
        ["emergency", "1m", "--reason", "x"],
        ["history", "record", "--active", "25m"],
        ["config", "set", "earn.ratio", "4"],
        ["ledger", "import", "BACKUP"],
        ["pass", "2s", "--", "true"],
        // A review (recorded with its attempt), and an override that pays: the contract and its grant at once.
        ["proof", "IN-REVIEW", "--text", "done", "--check", "1", "--submit"],
        ["contract", "override", "REJECTED", "--reason", "on paper"],
        ["contract", "abandon", "IN-REVIEW", "--reason", "gave up"],
        // A focus round: stored when it starts, then finished with its grant.
        ["focus", "--no-sound", "--focus", "1s", "--rounds", "1"],
        ["mix", "save", "night", "rain=40", "brown=25"],
        ["config", "unset", "earn.ratio"],
    ]

    /// A contract in review and a rejected one, in `s` (each from one second-long round).
    static func contracts(_ s: Sandbox) throws -> (inReview: String, rejected: String) {
        var ids: [String] = []
        for goal in ["a", "b"] {
            let run = try runBinary(
                ["focus", "--no-sound", "--focus", "1s", "--rounds", "1", "--goal", goal, "--done-when", "done"],
                environment: s.environment)
            #expect(run.code == 0, "\(run.err)")
            let list = json(try runBinary(["contract", "list", "--json"], environment: s.environment).out)
            ids.append(((list as? [[String: Any]])?.last?["id"] as? String) ?? "")
        }
        for text in ["x", "y"] {
            _ = try runBinary(["proof", ids[1], "--text", text, "--submit"], environment: s.environment)
        }
        return (ids[0], ids[1])
    }

    @Test(arguments: commands.indices)
    func aCommandKilledAtAnySyncLeavesAWorkingLedger(index: Int) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.strace), "strace is a test dependency")
        let source = Sandbox()
        #expect(
            try runBinary(["ledger", "adjust", "+2h", "--reason", "seed"], environment: source.environment).code == 0)
        #expect(try runBinary(["history", "record", "--active", "25m"], environment: source.environment).code == 0)
        let usesContracts = Self.commands[index].contains { ["IN-REVIEW", "REJECTED"].contains($0) }
        let ids = usesContracts ? try Self.contracts(source) : (inReview: "", rejected: "")
        let backup = source.root + "/backup.jsonl"
        #expect(
            try runBinary(["export", "--format", "jsonl", "-o", backup], environment: source.environment).code == 0)
        let command = Self.commands[index].map {
            ["BACKUP": backup, "IN-REVIEW": ids.inReview, "REJECTED": ids.rejected][$0] ?? $0
        }
        for firstRun in [true, false] {
            var killedAt = 0
            for n in 1...40 {
                let s = Sandbox()
                if !firstRun {
                    let seed = try runBinary(
                        usesContracts
                            ? ["ledger", "import", backup] : ["ledger", "adjust", "+1h", "--reason", "seed"],
                        environment: s.environment)
                    #expect(seed.code == 0, "\(seed.err)")
                }
                let run = try runBinary(
                    [
                        "-f", "-o", "/dev/null", "-e", "trace=fsync,fdatasync", "-e",
                        "inject=fsync,fdatasync:signal=KILL:when=\(n)", humBinary,
                    ] + command, environment: s.environment, program: Self.strace)
                let what = "\(command) killed at sync \(n)\(firstRun ? " of the first run" : "")"
                let bank = try runBinary(["bank"], environment: s.environment)
                #expect(bank.code == 0, "\(what): \(bank.err)")
                let check = try runBinary(["ledger", "check"], environment: s.environment)
                #expect(check.code == 0, "\(what): \(check.err)")
                guard run.code == 128 + SIGKILL else { break }  // it ran past its last sync
                killedAt = n
            }
            #expect(killedAt >= 1, "\(command) made no sync call")
            #expect(killedAt < 40, "\(command) kept syncing")
        }
    }
}
