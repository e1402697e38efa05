import CSQLite
import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumStore

/// A fresh directory per test, removed afterwards.
final class TempDirectory {
    let path: String
    init() {
        path = NSTemporaryDirectory() + "hum-store-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    var database: String { path + "/hum/hum.db" }
}

let me = ProcessOwner(pid: 100, startTicks: 1, bootID: "boot")

func open(
    _ dir: TempDirectory, clock: ManualClock, zone: any TimeZoneSeam = FixedZone(offsetSeconds: 3600),
    alive: Set<Int32> = [100]
) throws -> HumDatabase {
    try HumDatabase(
        path: dir.database, calendar: LocalCalendar(clock: clock, zone: zone),
        probe: ScriptedProcessProbe(me: me, alive: alive))
}

@Suite struct HumDatabaseTests {
    @Test func createsPrivateFileAndReopens() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_700_000_000)
        do {
            let db = try open(dir, clock: clock)
            _ = try db.record(.adjust(seconds: 600, reason: "seed", key: "a"))
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.database)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let dirAttributes = try FileManager.default.attributesOfItem(atPath: dir.path + "/hum")
        #expect((dirAttributes[.posixPermissions] as? Int) == 0o700)
        let db = try open(dir, clock: clock)
        #expect(try db.bankStatus().balance == 600)
        #expect(try db.db.scalarText("PRAGMA journal_mode") == "wal")
        #expect(try db.db.scalarInt("PRAGMA synchronous") == 2)
        #expect(try db.db.scalarInt("PRAGMA user_version") == Schema.latestVersion)
        #expect(try db.check().isEmpty)
    }

    @Test func entriesAreAppendOnly() throws {
        let dir = TempDirectory()
        let db = try open(dir, clock: ManualClock(1_700_000_000))
        _ = try db.record(.adjust(seconds: 600, reason: "seed", key: nil))
        #expect(throws: SQLiteError.self) { try db.db.execute("UPDATE entries SET amount = 9999") }
        #expect(throws: SQLiteError.self) { try db.db.execute("DELETE FROM entries") }
        #expect(try db.bankStatus().rawBalance == 600)
    }

    @Test func checkNamesATamperedBalance() throws {
        let dir = TempDirectory()
        let db = try open(dir, clock: ManualClock(1_700_000_000))
        _ = try db.record(.adjust(seconds: 600, reason: "seed", key: nil))
        try db.db.execute("UPDATE totals SET balance = 5")
        let failures = try db.check()
        #expect(failures.count == 1)
        #expect(failures.first?.contains("differs from the sum") == true)
    }

    @Test func settingsAreStoredAndValidated() throws {
        let dir = TempDirectory()
        let db = try open(dir, clock: ManualClock(1_700_000_000))
        try db.setConfig("earn.ratio", to: "2")
        #expect(throws: LedgerConfig.ConfigError.self) { try db.setConfig("earn.ratio", to: "0") }
        #expect(try db.config().earnRatioMilli == 2000)
        try db.startRound(
            RoundStart(
                id: "r", kind: .focus, start: Timestamp(epochSeconds: 1_700_000_000, offsetSeconds: 3600),
                plannedSeconds: 1500))
        #expect(
            try db.finishRound(id: "r", status: .completed, activeSeconds: 1500, pausedSeconds: 0).round.earnedSeconds
                == 750)
    }

    @Test func aRoundIsGrantedOnceInTheSameTransaction() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_700_000_000)
        let db = try open(dir, clock: clock)
        let start = Timestamp(epochSeconds: 1_700_000_000, offsetSeconds: 3600)
        let round = RoundStart(
            id: "r1", kind: .focus, start: start, plannedSeconds: 1500,
            deadline: Timestamp(epochSeconds: 1_700_001_500, offsetSeconds: 3600),
            mix: [MixItem(sound: "rain", volume: 0.5), MixItem(sound: "cafe", volume: 0.25)],
            goal: "write", tags: ["deep", "paper"])
        try db.startRound(round)
        try db.startRound(round)  // idempotent
        clock.advance(600)
        #expect(try db.heartbeatRound(id: "r1", activeSeconds: 600, pausedSeconds: 0))
        clock.advance(900)
        let first = try db.finishRound(id: "r1", status: .completed, activeSeconds: 1500, pausedSeconds: 30)
        #expect(first.round.earnedSeconds == 500)
        guard case .record(let grant)? = first.grant else {
            Issue.record("no grant")
            return
        }
        #expect(grant.key == "round:r1")
        let replay = try db.finishRound(id: "r1", status: .completed, activeSeconds: 1500, pausedSeconds: 30)
        #expect(replay.grant == .exists(grant))
        #expect(throws: StoreError.self) {
            try db.finishRound(id: "r1", status: .interrupted, activeSeconds: 10, pausedSeconds: 0)
        }
        #expect(try db.bankStatus().balance == 500)
        let history = try db.rounds()
        #expect(history.count == 1)
        #expect(history[0].mix == round.mix && history[0].tags == ["deep", "paper"] && history[0].goal == "write")
        #expect(history[0].status == .completed && history[0].pausedSeconds == 30)
        // Breaks and interrupted rounds earn nothing.
        try db.startRound(RoundStart(id: "b", kind: .shortBreak, start: start, plannedSeconds: 300))
        #expect(try db.finishRound(id: "b", status: .completed, activeSeconds: 300, pausedSeconds: 0).grant == nil)
        try db.startRound(RoundStart(id: "i", kind: .focus, start: start, plannedSeconds: 1500))
        #expect(
            try db.finishRound(id: "i", status: .interrupted, activeSeconds: 1400, pausedSeconds: 0).round.earnedSeconds
                == 0)
        #expect(try db.check().isEmpty)
    }

    /// A step of the wall clock while a round runs (NTP correcting it, a manual change) does not date the round's
    /// grant on another day: the grant is written at the round's end as the round records it (its start plus the
    /// time it took on the monotonic clock), under that day's cap, whatever the wall clock says when it is written.
    @Test(arguments: [2 * 3600, -86_400] as [Int64])
    func aClockStepDuringARoundLeavesTheGrantOnTheRoundsDay(step: Int64) throws {
        let dir = TempDirectory()
        // 23:13:20 at +01:00 on 2023-11-14; the round ends 25 min later, still on the 14th.
        let clock = ManualClock(1_700_000_000)
        let db = try open(dir, clock: clock)
        try db.setConfig("earn.daily-cap", to: "10m")
        let start = clock.stampNow()
        try db.startRound(RoundStart(id: "r", kind: .focus, start: start, plannedSeconds: 1500))
        clock.advance(1500 + step)
        let end = Timestamp(epochSeconds: start.epochSeconds + 1500, offsetSeconds: 3600)
        let outcome = try db.finishRound(id: "r", status: .completed, activeSeconds: 1500, pausedSeconds: 0, end: end)
        let grant = try #require(outcome.grant?.entry)
        #expect(outcome.round.end?.localDate == start.localDate)
        #expect(grant.localDay == start.localDate, "granted on \(grant.localDay), the round ran on \(start.localDate)")
        #expect(grant.at == end)
        #expect(grant.amount == 500 && grant.cap == 600)
        // A second round of that day shares its cap: 100 s left of it.
        try db.startRound(RoundStart(id: "s", kind: .focus, start: end, plannedSeconds: 300))
        let second = try db.finishRound(
            id: "s", status: .completed, activeSeconds: 600, pausedSeconds: 0,
            end: Timestamp(epochSeconds: end.epochSeconds + 600, offsetSeconds: 3600))
        #expect(second.grant?.entry.amount == 100 && second.grant?.entry.localDay == start.localDate)
        #expect(try db.check().isEmpty)
    }

    /// While every owner lives there is nothing to settle, and the write lock is not taken: a command run while
    /// rounds run (a status bar, a script polling) never makes the rounds' own writes wait.
    @Test func reconcileWithEveryOwnerAliveTakesNoWriteLock() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_700_000_000)
        let db = try open(dir, clock: clock)
        _ = try db.record(.adjust(seconds: 3600, reason: "seed", key: nil))
        try db.startRound(RoundStart(id: "r", kind: .focus, start: clock.stampNow(), plannedSeconds: 1500))
        _ = try db.openPass(id: "p", seconds: 600, label: "games", forfeit: false, command: ["game"])
        let writer = try Connection(path: dir.database, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
        try writer.execute("BEGIN IMMEDIATE")
        defer { try? writer.execute("ROLLBACK") }
        let started = Date()
        #expect(try open(dir, clock: clock).reconcile().isEmpty)
        #expect(Date().timeIntervalSince(started) < 5, "it waited for the write lock")
    }

    @Test func reconcileInterruptsDeadRoundsAndSettlesDeadPasses() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_700_000_000)
        do {
            let db = try open(dir, clock: clock)
            _ = try db.record(.adjust(seconds: 3600, reason: "seed", key: nil))
            try db.startRound(RoundStart(id: "r", kind: .focus, start: clock.stampNow(), plannedSeconds: 1500))
            clock.advance(700)
            try db.heartbeatRound(id: "r", activeSeconds: 700, pausedSeconds: 0)
            _ = try db.openPass(id: "p", seconds: 1800, label: "games", forfeit: false, command: ["game"])
            clock.advance(300)
            try db.heartbeatPass(id: "p", usedSeconds: 300)
            // While the owner lives, nothing happens.
            #expect(try db.reconcile().isEmpty)
        }
        clock.advance(5000)
        let db = try open(dir, clock: clock, alive: [])
        let report = try db.reconcile()
        #expect(report.interruptedRounds == ["r"])
        // Nobody saw the command end: charged up to the deadline (30 min after the start), not the last heartbeat.
        #expect(report.settledPasses == [.init(id: "p", label: "games", used: 1800, returned: 0)])
        let round = try db.rounds()[0]
        #expect(round.status == .interrupted && round.activeSeconds == 700 && round.earnedSeconds == 0)
        #expect(try db.bankStatus().balance == 1800)
        #expect(try db.openPass() == nil)
        #expect(try db.reconcile().isEmpty)  // never twice
        #expect(try db.check().isEmpty)
        // The owner comes back (it was only suspended): its own settlement is refused, not double-charged.
        #expect(throws: LedgerRefusal.self) { try db.settlePass(id: "p", usedSeconds: 900) }
        #expect(try db.heartbeatPass(id: "p", usedSeconds: 900) == false)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomSequencesMatchTheInMemoryLedger(seed: UInt64) throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_200_000)
        let zone = TransitionZone(initial: 3600, transitions: [(1_743_296_400, 7200)])
        let db = try open(dir, clock: clock, zone: zone)
        let memory = InMemoryLedger(calendar: LocalCalendar(clock: clock, zone: zone), device: db.device)
        var rng = SplitMix64(seed: seed)
        var passes: [String] = []
        func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        for _ in 0..<300 {
            clock.advance(Int64(pick(4000)))
            let key: String? = pick(3) == 0 ? nil : "k\(pick(10))"
            let request: LedgerRequest
            switch pick(11) {
            case 0, 1, 2: request = .grant(roundID: "r\(pick(40))", activeSeconds: Int64(pick(3000)))
            case 10:
                request = .grantContract(
                    contractID: "c\(pick(8))", activeSeconds: Int64(pick(6000)), ratioMilli: [2000, 3000][pick(2)])
            case 3, 4: request = .spend(seconds: Int64(pick(800)), label: "x", key: key)
            case 5: request = .adjust(seconds: Int64(pick(1000)) - 500, reason: "fix", key: key)
            case 6: request = .emergency(seconds: Int64(pick(300)), reason: "call", key: key)
            case 7, 8:
                passes.append("p\(passes.count)")
                request = .openPass(
                    passID: passes.last!, seconds: Int64(pick(1000)), label: "web", forfeit: pick(2) == 0)
            default:
                request = .settlePass(
                    passID: passes.isEmpty ? "none" : passes[pick(passes.count)], usedSeconds: Int64(pick(1200)))
            }
            func outcome(_ body: () throws -> LedgerDecision) -> String {
                do {
                    switch try body() {
                    case .record(let e): return "record \(e.kind) \(e.amount) \(e.cut ?? 0) \(e.used ?? 0)"
                    case .exists(let e): return "exists \(e.kind) \(e.amount)"
                    }
                } catch LedgerRefusal.passAlreadyOpen(let pass) {
                    return "refused: pass " + pass.id + " open"
                } catch let refusal as LedgerRefusal {
                    return "refused \(refusal)"
                } catch {
                    return "error \(error)"
                }
            }
            let a = outcome { try db.record(request) }
            let b = outcome { try memory.record(request) }
            #expect(a == b, "\(request)")
            func normalised(_ s: BankStatus) -> BankStatus {
                var s = s
                s.openPass?.holdEntryID = ""  // ids are random per store
                return s
            }
            #expect(try normalised(db.bankStatus()) == normalised(memory.bankStatus()))
        }
        #expect(try db.entries().map(\.payload) == memory.entries().map(\.payload))
        // The grants here are recorded bare, without the rounds (and contracts) hum always writes with them.
        #expect(try db.check().filter { !$0.contains("has no round") && !$0.contains("has no contract") }.isEmpty)
    }

    @Test func mergesAreIdempotentAndShowDebt() throws {
        let one = TempDirectory()
        let two = TempDirectory()
        let clock = ManualClock(1_700_000_000)
        let a = try open(one, clock: clock)
        let b = try open(two, clock: clock)
        _ = try a.record(.adjust(seconds: 600, reason: "seed", key: "seed"))
        #expect(try b.merge(a.entries()) == (1, 0))
        _ = try a.record(.spend(seconds: 600, label: "x", key: nil))
        _ = try b.record(.spend(seconds: 600, label: "y", key: nil))
        #expect(try a.merge(b.entries()) == (1, 1))
        #expect(try b.merge(a.entries().reversed()) == (1, 2))
        #expect(try a.merge(b.entries()) == (0, 3))
        #expect(try a.bankStatus().debt == 600 && b.bankStatus().rawBalance == -600)
        #expect(throws: LedgerRefusal.inDebt(debt: 600)) { try a.record(.spend(seconds: 1, label: "z", key: nil)) }
        #expect(try a.check().isEmpty && b.check().isEmpty)
        // A conflicting entry aborts the whole merge.
        var forged = try a.entries()[0]
        forged.amount = 9999
        forged.payload = "adjustment 9999 reason=seed"
        #expect(throws: LedgerMerge.Conflict.self) { try b.merge([forged]) }
        #expect(try b.entries().count == 3)
    }

    /// `hum ledger check` stayed silent on a database holding grants no rule allows (written there by hand, or by an
    /// import before it was checked): each is now named, with the entry it is about.
    @Test func theCheckNamesGrantsNoRuleAllowsWrittenByHand() throws {
        let dir = TempDirectory()
        let db = try open(dir, clock: ManualClock(1_700_000_000))
        #expect(try db.check().isEmpty)
        func row(
            _ id: String, kind: String = "grant", amount: Int64, payload: String, key: String? = nil,
            round: String? = nil, contract: String? = nil, cap: Int64? = 10_800, reason: String? = nil
        ) throws {
            try db.db.run(
                """
                INSERT INTO entries(id, key, kind, amount, at, at_epoch, at_offset, local_day, iso_week, device, payload,
                    reason, round_id, contract_id, requested, cut, cap)
                VALUES (?, ?, ?, ?, '2025-01-01T10:00:00+01:00', 1735722000, 3600, '2025-01-01', '2025-W01', 'x', ?, ?,
                    ?, ?, ?, ?, ?)
                """,
                [
                    .text(id), .optional(key), .text(kind), .int(amount), .text(payload), .optional(reason),
                    .optional(round), .optional(contract), kind == "grant" ? .int(amount) : .null,
                    kind == "grant" ? .int(0) : .null, kind == "grant" ? .optional(cap) : .null,
                ])
        }
        try row(
            "huge", amount: 315_360_000, payload: "grant round=rh active=31536000", key: "round:rh", round: "rh")
        for i in 0..<4 {
            try row(
                "h\(i)", amount: 3600, payload: "grant round=r\(i) active=10800", key: "round:r\(i)", round: "r\(i)")
        }
        try row(
            "c1", amount: 600, payload: "grant contract=k1 ratio=3000 active=1800", key: "contract:k1", contract: "k1")
        try row("a1", kind: "adjustment", amount: 360_000, payload: "adjustment 60 reason=r", reason: "r")
        let failures = try db.check()
        for words in [
            "grant huge grants 315360000s, more than its daily cap of 10800s",
            "grant h0 takes 2025-01-01 past its daily cap", "grant h3 takes 2025-01-01 past its daily cap",
            "grant c1 of 600s has no contract k1 here",
            "adjustment a1 is not what its request writes: its text says \"adjustment 60 reason=r\"",
        ] {
            #expect(failures.contains { $0.contains(words) }, "\(words): \(failures)")
        }
    }

    /// Rows are read by column name: the same entries come back from a query that selects the columns in another
    /// order, with another column in front, and a name the query does not select is an error that names it.
    @Test func rowsAreDecodedByColumnName() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_700_000_000)
        let db = try open(dir, clock: clock)
        _ = try db.record(.adjust(seconds: 3600, reason: "seed", key: "k1"))
        _ = try db.openPass(id: "p1", seconds: 600, label: "video", forfeit: true, command: ["true"])
        clock.advance(60)
        _ = try db.settlePass(id: "p1", usedSeconds: 60)
        let columns = HumDatabase.entryColumns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(columns.count == 20)  // contract_id came with schema 3
        var shuffled: [LedgerEntry] = []
        try db.db.query("SELECT seq, \(columns.reversed().joined(separator: ", ")) FROM entries ORDER BY seq") {
            shuffled.append(try HumDatabase.entry($0))
        }
        let entries = try db.entries()
        #expect(entries.count == 3 && shuffled == entries)
        #expect(entries[2].forfeit == true && entries[2].used == 60 && entries[2].passID == "p1")
        #expect(throws: SQLiteError.self) {
            try db.db.query("SELECT id, kind FROM entries") { _ = try HumDatabase.entry($0) }
        }
        do {
            try db.db.query("SELECT id FROM entries LIMIT 1") { _ = try $0.int("amount") }
            Issue.record("reading a column the query does not select did not throw")
        } catch {
            #expect((error as? SQLiteError)?.sqliteMessage == "no result column named amount")
        }
    }

    /// The frontend prints any `UserFacingError` and exits by its kind: a round reused or finished differently is a
    /// refusal (exit 3), every other store error a failure, and a bare SQLite error reads as the store's.
    @Test func storeErrorsAreUserFacingWithTheirKind() throws {
        let dir = TempDirectory()
        let db = try open(dir, clock: ManualClock(1_700_000_000))
        let start = Timestamp(epochSeconds: 1_700_000_000, offsetSeconds: 3600)
        try db.startRound(RoundStart(id: "r1", kind: .focus, start: start, plannedSeconds: 1500))
        _ = try db.finishRound(id: "r1", status: .completed, activeSeconds: 1500, pausedSeconds: 0)
        func failure(_ body: () throws -> Void) -> (any UserFacingError)? {
            do { try body() } catch { return error as? any UserFacingError }
            return nil
        }
        let again = failure { _ = try db.finishRound(id: "r1", status: .skipped, activeSeconds: 1, pausedSeconds: 0) }
        #expect(again?.kind == .refused && again?.message.hasPrefix("round r1 already finished as completed") == true)
        let reused = failure {
            try db.startRound(RoundStart(id: "r1", kind: .longBreak, start: start, plannedSeconds: 1))
        }
        #expect(reused?.kind == .refused && reused?.message.contains("already exists") == true)
        let unknown = failure {
            _ = try db.finishRound(id: "nope", status: .completed, activeSeconds: 1, pausedSeconds: 0)
        }
        #expect(unknown?.kind == .failure && unknown?.message == "no round nope was started")
        let sqlite = failure { try db.db.execute("DELETE FROM entries") }
        #expect(sqlite?.kind == .failure)
        // One line naming the database and what happened, never the call or the SQL.
        #expect(
            sqlite?.message.hasPrefix("the database \(dir.database) refused a change") == true, "\(sqlite!.message)")
        #expect(sqlite?.message.contains("ledger entries are append-only") == true)
        #expect(sqlite?.message.contains("DELETE") == false && sqlite?.message.contains("sqlite3_") == false)
    }

    @Test(arguments: ["garbage", "sqlite-foreign", "truncated"])
    func aForeignOrCorruptFileIsLeftByteForByte(kind: String) throws {
        let dir = TempDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/hum", withIntermediateDirectories: true)
        switch kind {
        case "garbage":
            var rng = SplitMix64(seed: 3)
            let bytes = (0..<8192).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            try Data(bytes).write(to: URL(fileURLWithPath: dir.database))
        case "sqlite-foreign":
            let other = try Connection(path: dir.database, flags: 0x6)  // READWRITE | CREATE
            try other.execute(
                "CREATE TABLE photos(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO photos(name) VALUES ('cat')")
        default:
            do {
                let db = try open(dir, clock: ManualClock(1_700_000_000))
                _ = try db.record(.adjust(seconds: 60, reason: "x", key: nil))
                try db.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
            let full = try Data(contentsOf: URL(fileURLWithPath: dir.database))
            var damaged = full.prefix(100)
            damaged.append(Data(repeating: 0xAB, count: full.count - 100))
            try? FileManager.default.removeItem(atPath: dir.database + "-wal")
            try? FileManager.default.removeItem(atPath: dir.database + "-shm")
            try damaged.write(to: URL(fileURLWithPath: dir.database))
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: dir.database))
        var message = ""
        do {
            let db = try open(dir, clock: ManualClock(1_700_000_000))
            message = try db.check().joined(separator: "; ")
            _ = try db.record(.adjust(seconds: 60, reason: "x", key: nil))
        } catch {
            message = try #require(error as? any UserFacingError, "\(error)").message
        }
        #expect(!message.isEmpty)
        #expect(
            message.contains("hum ledger import") || message.contains("integrity") || message.contains("damaged"),
            "\(message)")
        let after = try Data(contentsOf: URL(fileURLWithPath: dir.database))
        if kind != "truncated" {
            #expect(before == after)
            #expect(message.contains("left untouched"))
        }
    }
}

extension ManualClock {
    func stampNow() -> Timestamp { Timestamp(epochSeconds: nowEpochSeconds(), offsetSeconds: 3600) }
}
