import Foundation
import HumCore
import HumStore
import Testing

@testable import HumCLI

/// The ledger's promises against hostile input and a hostile machine (issue 9): numbers from outside are bounded,
/// imports are whole or refused, database trouble reads as one line, nothing goes to a shared directory.
@Suite struct LedgerHardeningTests {
    func write(_ text: String, _ path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// `hum ledger import /dev/zero` read 2 GiB into memory before refusing.
    @Test func importReadsAStreamAndRefusesEarly() throws {
        let s = Sandbox()
        let started = Date()
        let zero = s.run("ledger", "import", "/dev/zero")
        #expect(zero.code == 1 && zero.err.contains("not a hum export"), "\(zero.err)")
        #expect(Date().timeIntervalSince(started) < 5)
        // One line without end: refused after the bound, naming the line.
        let long = s.root + "/long.jsonl"
        let first =
            "{\"id\":\"ad\",\"kind\":\"adjustment\",\"amount_seconds\":60,\"at\":\"2025-01-01T00:00:00Z\",\"device\":\"d\",\"payload\":\"x\",\"reason\":\"r\"}"
        try write(first + "\n{\"id\":\"" + String(repeating: "x", count: 3 << 20) + "\"}\n", long)
        let r = s.run("ledger", "import", long)
        #expect(r.code == 1 && r.err.contains("line 2 is longer than 1 MiB"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: s.databasePath))
    }

    /// An imported session with an enormous active time was accepted, check stayed silent, and `hum history` trapped
    /// from then on.
    @Test func outOfRangeNumbersAreRefusedNamingTheirLine() throws {
        let s = Sandbox()
        let file = s.root + "/bad.jsonl"
        let session =
            "{\"type\":\"session\",\"id\":\"s\",\"kind\":\"focus\",\"status\":\"interrupted\",\"start\":\"2025-01-01T00:00:00Z\",\"end\":null,\"planned_seconds\":1,\"active_seconds\":9223372036854775807,\"paused_seconds\":0,\"mix\":[],\"goal\":null,\"tags\":[],\"earned_seconds\":0}"
        let entry =
            "{\"id\":\"e\",\"kind\":\"adjustment\",\"amount_seconds\":-9223372036854775808,\"at\":\"2025-01-01T00:00:00Z\",\"device\":\"d\",\"payload\":\"p\",\"reason\":\"r\"}"
        for (lines, words) in [
            ([session], "line 1 is invalid: session s: active time"),
            (["{\"type\":\"header\",\"schema\":\"hum.export/1\"}", entry], "line 2 is invalid: entry e: amount"),
        ] {
            try write(lines.joined(separator: "\n") + "\n", file)
            let r = s.run("ledger", "import", file)
            #expect(r.code == 1 && r.err.contains(words), "\(r.err)")
        }
        #expect(s.run("history").code == 0)
        #expect(s.run("ledger", "check").code == 0)
    }

    /// A settle with no hold, or returning more than its hold, was accepted: it mints time.
    @Test func anImportThatWouldFailTheCheckIsRefusedWhole() throws {
        let s = Sandbox()
        _ = s.run("ledger", "adjust", "+10m", "--reason", "seed")
        let before = s.run("ledger", "export").out
        let file = s.root + "/mint.jsonl"
        let settle =
            "{\"id\":\"st\",\"key\":\"settle:p\",\"kind\":\"settle\",\"amount_seconds\":36000,\"at\":\"2025-01-01T00:00:00Z\",\"device\":\"d\",\"payload\":\"settle pass=p used=0\",\"pass_id\":\"p\",\"used_seconds\":0,\"forfeit\":false}"
        let adjust =
            "{\"id\":\"ad\",\"kind\":\"adjustment\",\"amount_seconds\":60,\"at\":\"2025-01-01T00:00:00Z\",\"device\":\"d\",\"payload\":\"adjustment 60 reason=r\",\"reason\":\"r\"}"
        try write(adjust + "\n" + settle + "\n", file)
        let r = s.run("ledger", "import", file)
        #expect(r.code == 3, "\(r.err)")
        #expect(r.err.contains("\(file) line 2 would leave the ledger failing its check") && r.err.contains("no hold"))
        #expect(s.run("ledger", "export").out == before)
    }

    /// A grant as hum writes it for `active` seconds of focus (ratio 3), on 2025-01-01 in Paris.
    static func grant(
        _ id: String, hour: Int, amount: Int64, requested: Int64? = nil, active: Int64 = 10_800, cap: Int64 = 10_800,
        device: String = "d"
    ) -> String {
        "{\"id\":\"\(id)\",\"key\":\"round:r\(id)\",\"kind\":\"grant\",\"amount_seconds\":\(amount),"
            + "\"at\":\"2025-01-01T\(hour < 10 ? "0" : "")\(hour):00:00+01:00\",\"device\":\"\(device)\","
            + "\"payload\":\"grant round=r\(id) active=\(active)\",\"round_id\":\"r\(id)\","
            + "\"requested_seconds\":\(requested ?? amount),\"cut_seconds\":\((requested ?? amount) - amount),"
            + "\"cap_seconds\":\(cap)}"
    }

    /// Import took grants no rule allows, and check stayed silent: one grant of 87,600 h (the cap 3 h), ten 1-hour
    /// grants on one day, a grant for a contract that does not exist, an adjustment whose text says 60 s carrying
    /// 360,000 s. Each is refused whole (exit 3), naming its line; nothing changes.
    @Test func importRefusesGrantsNoRuleAllows() throws {
        let s = Sandbox()
        _ = s.run("ledger", "adjust", "+10m", "--reason", "seed")
        let file = s.root + "/forged.jsonl"
        let contractGrant =
            "{\"id\":\"c1\",\"key\":\"contract:k1\",\"kind\":\"grant\",\"amount_seconds\":600,"
            + "\"at\":\"2025-01-01T10:00:00+01:00\",\"device\":\"d\",\"payload\":\"grant contract=k1 ratio=3000 "
            + "active=1800\",\"contract_id\":\"k1\",\"requested_seconds\":600,\"cut_seconds\":0,\"cap_seconds\":10800}"
        let adjustment =
            "{\"id\":\"a1\",\"kind\":\"adjustment\",\"amount_seconds\":360000,\"at\":\"2025-01-01T10:00:00+01:00\","
            + "\"device\":\"d\",\"payload\":\"adjustment 60 reason=r\",\"reason\":\"r\"}"
        let cases: [([String], Int, String)] = [
            (
                [Self.grant("huge", hour: 9, amount: 315_360_000, active: 31_536_000)], 1,
                "grants 315360000s, more than its daily cap of 10800s"
            ),
            ((0..<10).map { Self.grant("h\($0)", hour: 8 + $0, amount: 3600) }, 4, "past its daily cap"),
            ([Self.grant("ok", hour: 9, amount: 3600), contractGrant], 2, "has no contract k1 here"),
            ([adjustment], 1, "its text says \"adjustment 60 reason=r\""),
            ([Self.grant("cap", hour: 9, amount: 3600, cap: 315_360_000)], 1, "a cap is 0 to 24 hours"),
            ([Self.grant("ratio", hour: 9, amount: 3600, active: 60)], 1, "which no ratio gives"),
        ]
        let before = s.run("ledger", "export").out
        for (lines, line, words) in cases {
            try write(lines.joined(separator: "\n") + "\n", file)
            let r = s.run("ledger", "import", file)
            #expect(r.code == 3, "\(words): \(r.err)")
            #expect(r.err.hasPrefix("hum: \(file) line \(line) would leave the ledger failing its check"), "\(r.err)")
            #expect(r.err.contains(words) && r.err.split(separator: "\n").count == 1, "\(r.err)")
            #expect(s.run("ledger", "export").out == before)
        }
        // The day's sum counts what the database already holds: 2 h of that day here, then 2 more hours.
        try write(
            [Self.grant("e1", hour: 8, amount: 3600), Self.grant("e2", hour: 9, amount: 3600)].joined(separator: "\n"),
            file)
        #expect(s.run("ledger", "import", file).code == 0)
        try write(
            [Self.grant("e3", hour: 10, amount: 3600), Self.grant("e4", hour: 11, amount: 3600)].joined(
                separator: "\n"), file)
        let more = s.run("ledger", "import", file)
        #expect(more.code == 3 && more.err.contains("line 2 would leave") && more.err.contains("past its daily cap"))
        // What the rules allow still imports: another device's day, and a cut grant of 0 past the cap.
        try write(
            [
                Self.grant("f1", hour: 8, amount: 10_800, device: "f"),
                Self.grant("e5", hour: 12, amount: 0, requested: 3600),
            ]
            .joined(separator: "\n"), file)
        let allowed = s.run("ledger", "import", file)
        #expect(allowed.code == 0, "\(allowed.err)")
        #expect(s.run("ledger", "check").code == 0)
    }

    /// Two sessions with one id in one file were taken silently (the first copy won, even when they differed); so
    /// were two versions of an entry or a contract that differed in a field the merge does not compare. A second copy
    /// that differs is refused naming both places; the same record twice is one record.
    @Test func oneIdTwiceInOneFileIsRefusedUnlessTheSame() throws {
        let s = Sandbox()
        let file = s.root + "/twice.jsonl"
        func session(_ active: Int) -> String {
            "{\"type\":\"session\",\"id\":\"s\",\"kind\":\"focus\",\"status\":\"interrupted\","
                + "\"start\":\"2025-01-01T00:00:00Z\",\"end\":\"2025-01-01T00:30:00Z\",\"planned_seconds\":1500,"
                + "\"active_seconds\":\(active),\"paused_seconds\":0,\"mix\":[],\"goal\":null,\"tags\":[],"
                + "\"earned_seconds\":0}"
        }
        let start = Timestamp(rfc3339: "2025-01-01T00:00:00Z")!
        func contract(_ goal: String) throws -> String {
            let record = ContractRecord(
                id: "k", goal: goal, doneWhen: ["a page"], firstStep: nil, watch: [], strict: false,
                status: .interrupted, createdAt: start, endedAt: start, ratioMilli: 3000, rounds: 1,
                focusSeconds: 1500, device: "d")
            return String(
                decoding: try CompactJSONEncoder().encode(ExportCommand.Typed(type: "contract", value: record)),
                as: UTF8.self)
        }
        let header = "{\"type\":\"header\",\"schema\":\"hum.export/2\"}"
        let adjust =
            "{\"type\":\"entry\",\"id\":\"a\",\"kind\":\"adjustment\",\"amount_seconds\":60,\"at\":\"2025-01-01T00:00:00Z\",\"device\":\"d\",\"payload\":\"adjustment 60 reason=r\",\"reason\":\"r\""
        for (lines, words) in [
            ([header, session(1500), session(1200)], "line 3 is session s again, unlike at line 2"),
            ([header, try contract("write"), try contract("read")], "line 3 is contract k again, unlike at line 2"),
            ([header, adjust + "}", adjust + ",\"label\":\"x\"}"], "line 3 is entry a again, unlike at line 2"),
        ] {
            try write(lines.joined(separator: "\n") + "\n", file)
            let r = s.run("ledger", "import", file)
            #expect(r.code == 1 && r.err.contains(words) && r.err.contains("nothing was imported"), "\(r.err)")
            let history = json(s.run("history", "--json").out) as? [String: Any]
            #expect(
                (history?["sessions"] as? [Any])?.isEmpty == true && (history?["contracts"] as? [Any])?.isEmpty == true)
        }
        try write(
            [header, session(1500), session(1500), try contract("write"), try contract("write")].joined(separator: "\n")
                + "\n", file)
        let same = s.run("ledger", "import", file)
        #expect(
            same.code == 0 && same.out.contains("1 session (1 already here), 1 contract (1 already here)"),
            "\(same.out)\(same.err)")
        // The same in one document: sessions named by their place in it.
        let document =
            "{\"schema\":\"hum.export/2\",\"exported_at\":\"2025-01-01T00:00:00Z\",\"sessions\":["
            + [session(1500), session(900)].map { $0.replacingOccurrences(of: "\"type\":\"session\",", with: "") }
            .joined(separator: ",") + "],\"ledger\":[],\"contracts\":[]}"
        try write(document, file)
        let r = Sandbox().run("ledger", "import", file)
        #expect(r.code == 1 && r.err.contains("session 2 is session s again, unlike at session 1"), "\(r.err)")
    }

    /// A date-bounded backup held a completed session whose grant fell outside the range: importing it left the
    /// ledger failing check for good. The export now carries what its sessions need.
    @Test func aDateBoundedBackupImportsWhole() throws {
        let s = Sandbox()
        _ = s.run(
            "history", "record", "--active", "25m", "--id", "late", "--start", "2025-03-01T23:50:00+01:00")
        _ = s.run("history", "record", "--active", "25m", "--id", "early", "--start", "2025-02-01T10:00:00+01:00")
        for (format, bounds) in [
            ("json", ["--until", "2025-03-01"]), ("jsonl", ["--since", "2025-03-02"]),
            ("json", ["--until", "2025-02-01"]),
        ] {
            let file = s.root + "/part.\(format)"
            #expect(s.run(["export", "--format", format, "-o", file] + bounds).code == 0)
            let other = Sandbox()
            let r = other.run("ledger", "import", file)
            #expect(r.code == 0, "\(bounds): \(r.err)")
            #expect(other.run("ledger", "check").code == 0, "\(bounds)")
        }
    }

    /// With HOME and XDG_DATA_HOME unset, the database went to /tmp/.local/share/hum.
    @Test func withoutAHomeTheAccountsIsUsedOrTheCommandRefused() {
        let environment = ["PATH": "/usr/bin:/bin", "TZ": "UTC"]
        let paths = HumPaths(environment: environment, accountHome: "/home/ada")
        #expect(paths.databasePath == "/home/ada/.local/share/hum/hum.db" && paths.problem == nil)
        let none = HumPaths(environment: environment, accountHome: nil)
        #expect(none.problem?.contains("no home directory") == true)
        #expect(![none.dataDirectory, none.stateDirectory, none.cacheDirectory].contains { $0.hasPrefix("/tmp") })
        let out = Buffer()
        let err = Buffer()
        let context = CommandContext(
            environment: environment, stdout: out, stderr: err, stdoutIsTerminal: false, stdinIsTerminal: false)
        for words in [["bank"], ["ledger", "adjust", "+1m", "--reason", "x"], ["play", "--for", "1s"]] {
            let code = HumMain.run(arguments: ["hum"] + words, context: context)
            #expect(code == 1, "\(words)")
        }
        #expect(err.text.split(separator: "\n").allSatisfy { $0.contains("no home directory") }, "\(err.text)")
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent"))
    }

    /// Runs the built hum with `hum`'s data folder mounted read-only (a mount namespace of its own, as a backup disk
    /// or a snapshot would be), or nil where mount namespaces are not allowed.
    func onReadOnlyMount(_ s: Sandbox, _ words: [String]) throws -> (code: Int32, out: String, err: String)? {
        let folder = s.root + "/data/hum"
        let script = "mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && shift && exec \"$@\""
        let r = try runBinary(
            ["--mount", "sh", "-c", script, "sh", folder, humBinary] + words, environment: s.environment,
            program: "/usr/bin/unshare")
        if r.code != 0 && (r.err.contains("unshare failed") || r.err.contains("mount:")) { return nil }
        return r
    }

    /// A ledger on a read-only mount could not even be read: every command wanted to write beside it. The commands
    /// that only read now open it read-only (whether a WAL journal is there or not); those that write say in one
    /// line that the ledger is read-only.
    @Test func aReadOnlyLedgerIsReadButNotWritten() throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return }
        let s = Sandbox()
        _ = s.run("ledger", "adjust", "+1h", "--reason", "seed")
        _ = s.run("history", "record", "--active", "25m", "--id", "r1", "--start", "2025-03-30T09:00:00+02:00")
        _ = s.run("spend", "5m", "--on", "video")
        #expect(!FileManager.default.fileExists(atPath: s.databasePath + "-wal"))  // closed cleanly: no journal
        let reads: [([String], String)] = [
            (["bank"], "balance         1h3m20s"), (["history"], "focus"), (["report"], "spent 5m"),
            (["export"], "\"r1\""), (["ledger", "export"], "\"video\""), (["ledger"], "on video"),
            (["ledger", "check"], ""), (["status", "--format", "json"], "3800"), (["config", "list"], "earn.ratio"),
        ]
        func readsWork(_ what: String) throws -> Bool {
            for (words, shown) in reads {
                guard let r = try onReadOnlyMount(s, words) else { return false }
                let out = shown.isEmpty ? r.out.isEmpty : r.out.contains(shown)
                #expect(r.code == 0 && r.err.isEmpty && out, "\(what) \(words): \(r.err)\(r.out)")
            }
            for words in [["spend", "1m", "--on", "x"], ["ledger", "adjust", "+1m", "--reason", "x"]] {
                guard let r = try onReadOnlyMount(s, words) else { return false }
                #expect(r.code == 1 && r.err.split(separator: "\n").count == 1, "\(what) \(words): \(r.err)")
                #expect(r.err.hasPrefix("hum: the ledger \(s.databasePath) is read-only"), "\(what): \(r.err)")
                #expect(r.err.contains("a read-only file system"), "\(r.err)")
            }
            return true
        }
        guard try readsWork("no journal") else { return }
        // A snapshot of a ledger in use: its journal (-wal, with entries not yet in hum.db) and its index (-shm).
        let open = try HumDatabase(path: s.databasePath)
        _ = try open.record(.adjust(seconds: 600, reason: "in the journal", key: nil))
        var journal = stat()
        #expect(stat(s.databasePath + "-wal", &journal) == 0 && journal.st_size > 0)
        guard let bank = try onReadOnlyMount(s, ["ledger"]) else { return }
        #expect(bank.code == 0 && bank.out.contains("in the journal"), "\(bank.err)")
        #expect(try onReadOnlyMount(s, ["ledger", "check"])?.code == 0)
        // A journal without its index: SQLite cannot read it on a read-only folder; one line says what to do.
        let copy = Sandbox()
        _ = copy.run("bank")
        for suffix in ["", "-wal"] {
            unlink(copy.databasePath + suffix)
            #expect(
                link(s.databasePath + suffix, copy.databasePath + suffix) == 0
                    || copyFile(s.databasePath + suffix, copy.databasePath + suffix))
        }
        unlink(copy.databasePath + "-shm")
        let lone = try #require(try onReadOnlyMount(copy, ["bank"]))
        #expect(lone.code == 1 && lone.err.split(separator: "\n").count == 1, "\(lone.err)")
        #expect(lone.err.contains("has no \(copy.databasePath)-shm beside it"), "\(lone.err)")
        withExtendedLifetime(open) {}  // the journal stayed open all along
    }

    func copyFile(_ from: String, _ to: String) -> Bool {
        (try? FileManager.default.copyItem(atPath: from, toPath: to)) != nil
    }

    /// The same for a folder made read-only (chmod 0555), for a user the permissions hold for (not root).
    @Test func aLedgerInAReadOnlyFolderIsReadButNotWritten() throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let s = Sandbox()
        _ = s.run("ledger", "adjust", "+1h", "--reason", "seed")
        let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        let folder = s.root + "/data/hum"
        for path in [s.root, s.root + "/data", folder, s.databasePath, s.root + "/run"] { chown(path, 65534, 65534) }
        chmod(folder, 0o555)
        defer { chmod(folder, 0o700) }
        func run(_ words: [String]) throws -> (code: Int32, out: String, err: String) {
            try runBinary(
                Array(asNobody.dropFirst()) + [humBinary] + words, environment: s.environment, program: asNobody[0])
        }
        let bank = try run(["bank"])
        #expect(bank.code == 0 && bank.out.contains("balance         1h"), "\(bank.err)")
        #expect(try run(["ledger", "check"]).code == 0)
        #expect(try run(["ledger", "export"]).out.contains("\"seed\""))
        let spend = try run(["spend", "1m", "--on", "x"])
        #expect(spend.code == 1 && spend.err.split(separator: "\n").count == 1, "\(spend.err)")
        #expect(
            spend.err.hasPrefix(
                "hum: the ledger \(s.databasePath) is read-only: the folder \(folder) is read-only for you"),
            "\(spend.err)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["hum.db"])
    }

    /// A read-only folder and another user's file were reported as "not a hum database" with advice to move the file
    /// aside; a full disk as a raw SQLite error. Each is one line that names it.
    @Test func databaseTroubleReadsAsOneLinePerCase() throws {
        let s = Sandbox()
        #expect(try runBinary(["ledger", "adjust", "+1h", "--reason", "x"], environment: s.environment).code == 0)
        // A full disk (every write fails with ENOSPC).
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") {
            let full = try runBinary(
                [
                    "-f", "-o", "/dev/null", "-e", "trace=pwrite64,write", "-e", "inject=pwrite64:error=ENOSPC",
                    humBinary, "ledger", "adjust", "+1m", "--reason", "y",
                ], environment: s.environment, program: "/usr/bin/strace")
            #expect(full.code == 1 && full.err.contains("is full; nothing was written"), "\(full.err)")
            #expect(full.err.split(separator: "\n").count == 1)
        }
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        // As another user: the file is not theirs, then (in a folder of theirs) the folder is read-only.
        let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        chmod(s.root, 0o755)
        chmod(s.root + "/data", 0o755)
        chmod(s.root + "/data/hum", 0o755)
        chmod(s.databasePath, 0o644)
        let foreign = try runBinary(
            Array(asNobody.dropFirst()) + [humBinary, "bank"], environment: s.environment, program: asNobody[0])
        #expect(foreign.code == 1 && foreign.err.contains("belongs to another user (uid 0)"), "\(foreign.err)")
        #expect(!foreign.err.contains("not a hum database") && !foreign.err.contains("move it aside"))
        let mine = Sandbox()
        #expect(try runBinary(["bank"], environment: mine.environment).code == 0)
        let dataDir = mine.root + "/data/hum"
        for path in [mine.root, mine.root + "/data", dataDir, mine.databasePath] { chown(path, 65534, 65534) }
        for suffix in ["-wal", "-shm"] { chown(mine.databasePath + suffix, 65534, 65534) }
        chmod(dataDir, 0o500)
        let readOnly = try runBinary(
            Array(asNobody.dropFirst()) + [humBinary, "spend", "1m", "--on", "x"], environment: mine.environment,
            program: asNobody[0])
        #expect(readOnly.code == 1 && readOnly.err.contains("read-only"), "\(readOnly.err)")
        #expect(!readOnly.err.contains("not a hum database") && readOnly.err.split(separator: "\n").count == 1)
        chmod(dataDir, 0o700)
    }
}
