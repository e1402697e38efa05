import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumCLI

/// The built `hum` binary, run as separate processes: concurrency, kill -9, passes, a damaged database.
@Suite(.serialized) struct LedgerProcessTests {
    /// 8 processes × 200 mixed operations on one database, with keys and round ids repeated across processes.
    @Test func eightConcurrentWritersNeverDoubleGrantNorOverspend() throws {
        let s = Sandbox()
        #expect(try runBinary(["ledger", "adjust", "+20m", "--reason", "seed"], environment: s.environment).code == 0)
        let hum = humBinary
        var rng = SplitMix64(seed: 2024)
        var scripts: [String] = []
        for worker in 0..<8 {
            var script = "#!/bin/sh\nHUM='\(hum)'\n"
            for _ in 0..<200 {
                let n = Int(rng.next() % 60)
                let line: String
                switch rng.next() % 10 {
                case 0, 1, 2:  // the same round id always carries the same active time: replays are "exists"
                    line = "\"$HUM\" history record --id round-\(n) --active \(10 + n)m"
                case 3, 4, 5:
                    line = "\"$HUM\" spend \(1 + n % 7)m --on w\(worker) --key spend-\(n)"
                case 6:
                    line = "\"$HUM\" spend \(1 + n % 3)m --on w\(worker)"
                case 7:  // same key, amounts that differ by worker: conflicts are refused
                    line = "\"$HUM\" ledger adjust +\(1 + worker % 2)m --reason r --key adj-\(n % 10)"
                case 8:
                    line = "\"$HUM\" emergency 1m --reason w\(worker)"
                default:
                    line = "\"$HUM\" pass 1s --on w\(worker) -- true"
                }
                script += line + " >/dev/null 2>>\"$1\"; echo $? >> \"$2\"\n"
            }
            let path = s.root + "/worker\(worker).sh"
            try script.write(toFile: path, atomically: true, encoding: .utf8)
            scripts.append(path)
        }
        let started = Date()
        let processes = try scripts.enumerated().map { (i, path) -> Process in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = [path, s.root + "/err\(i)", s.root + "/codes\(i)"]
            p.environment = s.environment
            try p.run()
            return p
        }
        for p in processes { p.waitUntilExit() }
        let seconds = Date().timeIntervalSince(started)
        var codes: [String: Int] = [:]
        var errors = ""
        for i in 0..<8 {
            for code in (try String(contentsOfFile: s.root + "/codes\(i)", encoding: .utf8)).split(separator: "\n") {
                codes[String(code), default: 0] += 1
            }
            errors += (try? String(contentsOfFile: s.root + "/err\(i)", encoding: .utf8)) ?? ""
        }
        #expect(codes.values.reduce(0, +) == 1600)
        // Only successes and refusals: no lock timeouts, no failures.
        #expect(
            Set(codes.keys).isSubset(of: ["0", "3"]),
            "exit codes \(codes); \(errors.split(separator: "\n").filter { !$0.contains("refused") }.prefix(5))")
        #expect(!errors.contains("database error"))
        let check = try runBinary(["ledger", "check"], environment: s.environment)
        #expect(check.code == 0, "\(check.err)")
        #expect(check.out.isEmpty && check.err.isEmpty)
        let list = try #require(
            json(try runBinary(["ledger", "--json"], environment: s.environment).out) as? [[String: Any]])
        let grants = list.filter { $0["kind"] as? String == "grant" }.compactMap { $0["round_id"] as? String }
        #expect(grants.count == Set(grants).count, "a round was granted twice")
        let keys = list.compactMap { $0["key"] as? String }
        #expect(keys.count == Set(keys).count)
        // No overspend: 'ledger check' above replays the entries in the order written; the balance is never debt.
        #expect(try runBinary(["bank", "--json"], environment: s.environment).out.contains("\"debt_seconds\" : 0"))
        print("concurrency: 8 × 200 operations in \(String(format: "%.1f", seconds)) s; exit codes \(codes)")
    }

    /// kill -9 at random moments over 120 rounds: what was reported committed is there, no pass stays open after the
    /// next start, and the ledger checks.
    @Test func killNineAtRandomMomentsLosesNothingCommitted() throws {
        let s = Sandbox()
        #expect(try runBinary(["ledger", "adjust", "+10h", "--reason", "seed"], environment: s.environment).code == 0)
        var rng = SplitMix64(seed: 99)
        var committedKeys: [String] = []
        var committedRounds: [String] = []
        for round in 0..<120 {
            let kind = rng.next() % 4
            let arguments: [String]
            switch kind {
            case 0: arguments = ["pass", "1h", "--on", "crash\(round)", "--", "sleep", uniqueSleep("31.4159")]
            case 1:
                // Each at its own time: rounds recorded by hand may not overlap.
                let start = Timestamp(epochSeconds: 1_735_689_600 + Int64(round) * 1800, offsetSeconds: 0)
                arguments = [
                    "history", "record", "--id", "crash-\(round)", "--active", "20m", "--start", start.rfc3339,
                ]
            case 2: arguments = ["spend", "1m", "--on", "x", "--key", "crash-\(round)"]
            default: arguments = ["ledger", "adjust", "+1m", "--reason", "r", "--key", "crash-\(round)"]
            }
            let out = s.root + "/out\(round)"
            let pid = try spawnBinary(arguments, environment: s.environment, stdout: out, stderr: out + ".err")
            usleep(UInt32(rng.next() % (kind == 0 ? 150_000 : 40_000)))  // a time: the kill's moment, at random
            kill(pid, SIGKILL)
            waitFor(pid)
            let printed = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            if kind == 1, printed.hasPrefix("recorded") { committedRounds.append("crash-\(round)") }
            if kind >= 2, printed.hasPrefix("spent") || printed.hasPrefix("recorded") {
                committedKeys.append("crash-\(round)")
            }
            // The next start of any hum command settles what the dead process left open.
            let bank = try runBinary(["bank", "--json"], environment: s.environment)
            #expect(bank.code == 0, "\(bank.err)")
            #expect(bank.out.contains("\"open_pass\" : null"), "round \(round): \(bank.out)")
            if round % 20 == 19 {
                let check = try runBinary(["ledger", "check"], environment: s.environment)
                #expect(check.code == 0, "round \(round): \(check.err)")
            }
        }
        let list = try #require(
            json(try runBinary(["ledger", "--json"], environment: s.environment).out) as? [[String: Any]])
        let keys = Set(list.compactMap { $0["key"] as? String })
        for key in committedKeys { #expect(keys.contains(key), "lost \(key)") }
        for round in committedRounds { #expect(keys.contains("round:" + round), "lost the grant of \(round)") }
        let holds = list.filter { $0["kind"] as? String == "hold" }.count
        let settles = list.filter { $0["kind"] as? String == "settle" }.count
        #expect(holds == settles)
        print(
            "crash: 120 kills; \(holds) passes held and settled, \(committedKeys.count + committedRounds.count) "
                + "writes reported committed, all present"
        )
        let check = try runBinary(["ledger", "check"], environment: s.environment)
        #expect(check.code == 0, "\(check.err)")
        // The commands of killed passes were stopped by the reconciliation, not left running.
        #expect(
            eventually { commandsRunning(containing: uniqueSleep("31.4159")) == 0 },
            "\(commandsRunning(containing: uniqueSleep("31.4159"))) commands of killed passes still run")
    }

    @Test func aPassStopsTheCommandWhenTheTimeIsUpAndReturnsTheRest() throws {
        let s = Sandbox()
        _ = try runBinary(["ledger", "adjust", "+1m", "--reason", "seed"], environment: s.environment)
        let marker = s.root + "/stopped"
        let started = Date()
        // The command ignores nothing: SIGTERM ends it at the 2 s mark.
        let r = try runBinary(
            ["pass", "2s", "--on", "test", "--", "sh", "-c", "trap 'touch \(marker); exit 0' TERM; sleep 20 & wait"],
            environment: s.environment)
        let elapsed = Date().timeIntervalSince(started)
        #expect(r.code == 0, "\(r.err)")
        #expect(elapsed < 8)
        #expect(FileManager.default.fileExists(atPath: marker))
        #expect(r.err.contains("unused time goes back to the bank"))
        #expect(try runBinary(["bank", "--json"], environment: s.environment).out.contains("\"balance_seconds\" : 58"))
        // A second pass while one is open is refused.
        let long = try spawnBinary(
            ["pass", "20s", "--", "sleep", "20"], environment: s.environment,
            stdout: s.root + "/long.out", stderr: s.root + "/long.err")
        // Open once it says so (after the hold is written).
        #expect(
            eventually {
                ((try? String(contentsOfFile: s.root + "/long.err", encoding: .utf8)) ?? "").contains("held for")
            },
            "the long pass did not start")
        let second = try runBinary(["pass", "5s", "--", "true"], environment: s.environment)
        #expect(second.code == 3 && second.err.contains("another pass is open"))
        // SIGTERM to hum stops the command and settles.
        kill(long, SIGTERM)
        #expect(waitFor(long) == 143)
        let bank = try runBinary(["bank", "--json"], environment: s.environment).out
        #expect(bank.contains("\"open_pass\" : null"))
        #expect(try runBinary(["ledger", "check"], environment: s.environment).code == 0)
        // A forfeit pass keeps nothing back.
        _ = try runBinary(["pass", "10s", "--forfeit", "--", "true"], environment: s.environment)
        let after = try #require(
            json(try runBinary(["bank", "--json"], environment: s.environment).out) as? [String: Any])
        let before = try #require(json(bank) as? [String: Any])
        #expect((before["balance_seconds"] as? Int ?? 0) - (after["balance_seconds"] as? Int ?? 0) == 10)
    }

    @Test func aDamagedDatabaseIsReportedAndLeftAsItWas() throws {
        let s = Sandbox()
        try FileManager.default.createDirectory(atPath: s.root + "/data/hum", withIntermediateDirectories: true)
        var rng = SplitMix64(seed: 1)
        let garbage = Data((0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        try garbage.write(to: URL(fileURLWithPath: s.databasePath))
        for words in [["bank"], ["spend", "1m", "--on", "x"], ["ledger", "check"], ["history"]] {
            let r = try runBinary(words, environment: s.environment)
            #expect(r.code == 1, "\(words)")
            #expect(r.err.contains("not a hum database") && r.err.contains("hum ledger import"), "\(r.err)")
            #expect(r.err.split(separator: "\n").count == 1)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.databasePath)) == garbage)
    }
}
