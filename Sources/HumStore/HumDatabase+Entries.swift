import HumCore

/// The ledger's entries: deciding, writing and reading them.
extension HumDatabase {
    /// The columns `entry(_:)` reads, by name.
    static let entryColumns = """
        id, key, kind, amount, at_epoch, at_offset, device, payload, label, reason, round_id, pass_id, requested, cut, \
        cap, used, forfeit, reserve, allowance, contract_id
        """

    /// An entry from a row that selects `entryColumns`, in any order.
    static func entry(_ row: Statement) throws -> LedgerEntry {
        var e = LedgerEntry(
            id: try row.text("id"), key: try row.optionalText("key"),
            kind: EntryKind(rawValue: try row.text("kind")) ?? .adjustment, amount: try row.int("amount"),
            at: Timestamp(
                epochSeconds: try row.int("at_epoch"), offsetSeconds: Int32(clamping: try row.int("at_offset"))),
            device: try row.text("device"), payload: try row.text("payload"))
        e.label = try row.optionalText("label")
        e.reason = try row.optionalText("reason")
        e.roundID = try row.optionalText("round_id")
        e.passID = try row.optionalText("pass_id")
        e.contractID = try row.optionalText("contract_id")
        e.requested = try row.optionalInt("requested")
        e.cut = try row.optionalInt("cut")
        e.cap = try row.optionalInt("cap")
        e.used = try row.optionalInt("used")
        e.forfeit = try row.optionalBool("forfeit")
        e.reserve = try row.optionalInt("reserve")
        e.allowance = try row.optionalInt("allowance")
        return e
    }

    func entry(where clause: String, _ arguments: [SQLValue]) throws -> LedgerEntry? {
        var found: LedgerEntry? = nil
        try db.query("SELECT \(HumDatabase.entryColumns) FROM entries WHERE \(clause) LIMIT 1", arguments) {
            found = try HumDatabase.entry($0)
        }
        return found
    }

    func rawBalance() throws -> Int64 { try db.scalarInt("SELECT balance FROM totals WHERE id = 1") ?? 0 }

    func earned(on day: CivilDate) throws -> Int64 {
        try db.scalarTotal(
            "SELECT TOTAL(amount) FROM entries WHERE kind = 'grant' AND local_day = ?", [.text(day.description)])
    }

    /// Granted on the day `now` belongs to by the day boundary (`day.starts-at`), each grant by the wall clock it
    /// was written with: the daily cap's day. With midnight, the calendar day the ledger writes.
    func earned(onDayOf now: Timestamp) throws -> Int64 {
        let boundary = try dayBoundaryLocked()
        let day = boundary.day(of: now)
        guard boundary != .midnight else { return try earned(on: day) }
        // The day starting at `start` on D holds local times of D and D + 1: the index narrows to those.
        return try db.scalarTotal(
            """
            SELECT TOTAL(amount) FROM entries WHERE kind = 'grant' AND local_day IN (?, ?)
                AND (at_epoch + at_offset - ? + 86400000000) / 86400 - 1000000 = ?
            """,
            [
                .text(day.description), .text(day.adding(days: 1).description), .int(boundary.start.seconds),
                .int(day.daysSinceEpoch),
            ])
    }

    func reserveUsed(in week: IsoWeek) throws -> Int64 {
        try db.scalarTotal(
            "SELECT TOTAL(reserve) FROM entries WHERE kind = 'emergency' AND iso_week = ?", [.text(week.description)])
    }

    func snapshot(for request: LedgerRequest, now: Timestamp) throws -> LedgerSnapshot {
        var s = LedgerSnapshot()
        s.rawBalance = try rawBalance()
        switch request {
        case .grant, .grantContract: s.earnedToday = try earned(onDayOf: now)
        case .emergency: s.emergencyUsedThisWeek = try reserveUsed(in: now.localDate.isoWeek)
        case .openPass: s.openPass = try loadOpenPass()
        case .settlePass(let passID, _): s.hold = try entry(where: "kind = 'hold' AND pass_id = ?", [.text(passID)])
        case .spend, .adjust: break
        }
        if let key = request.key { s.existing = try entry(where: "key = ?", [.text(key)]) }
        return s
    }

    /// Decides and writes one request. While a strict contract runs, time added by hand is refused.
    public func record(_ request: LedgerRequest) throws -> LedgerDecision {
        try guarded {
            try db.immediate {
                // A replay of a key already written changes nothing: the rules answer it, strict or not.
                if case .adjust(let seconds, _, let key) = request, seconds > 0,
                    try key.flatMap({ try entry(where: "key = ?", [.text($0)]) }) == nil,
                    let refusal = try strictRefusal(.addTime)
                {
                    throw refusal
                }
                return try recordLocked(request, command: nil, settledBy: "owner")
            }
        }
    }

    /// Decides and writes one request; the caller holds the write lock. `at`: the instant the entry counts for (a
    /// round recorded by hand earns on its own day, under that day's cap); now when nil. `label`: what a grant is
    /// marked with.
    func recordLocked(
        _ request: LedgerRequest, command: String?, settledBy: String, at: Timestamp? = nil, label: String? = nil
    ) throws -> LedgerDecision {
        let now = at ?? calendar.now()
        let snapshot = try snapshot(for: request, now: now)
        try checkStrictSpending(request, replay: snapshot.existing != nil)
        var decision = try LedgerRules.decide(
            request, snapshot: snapshot, config: loadConfig(), now: now,
            newID: newID(), device: device)
        if case .record(var entry) = decision, let label {
            entry.label = label
            decision = .record(entry)
        }
        guard case .record(let entry) = decision else { return decision }
        try insert(entry)
        switch entry.kind {
        case .hold: try insertPass(holding: entry, now: now, command: command)
        case .settle: try markPassSettled(by: entry, settledBy: settledBy)
        default: break
        }
        return decision
    }

    /// With sync on and `sync.strict` on, a request that takes time is refused beyond what this device's own entries
    /// hold (`SyncLedger.checkSpending`), so the merged bank never goes negative when every device is strict.
    func checkStrictSpending(_ request: LedgerRequest, replay: Bool) throws {
        let amount = SyncLedger.takes(request)
        guard amount > 0, !replay,
            try db.scalarInt("SELECT 1 FROM sync_self WHERE dir IS NOT NULL") != nil,
            try db.scalarText("SELECT value FROM config WHERE key = ?", [.text(SettingCatalog.syncStrict)]) == "on"
        else { return }
        let own = try db.scalarTotal("SELECT TOTAL(amount) FROM entries WHERE device = ?", [.text(device)])
        if own < amount { throw LedgerRefusal.notEnough(balance: own, asked: amount) }
    }

    public func bankStatus() throws -> BankStatus {
        try guarded {
            try db.reading {
                let now = calendar.now()
                let config = try loadConfig()
                return BankStatus(
                    rawBalance: try rawBalance(), earnedToday: try earned(onDayOf: now),
                    dailyCap: config.dailyCapSeconds,
                    emergencyLeft: max(
                        0,
                        config.emergencyWeeklySeconds.subtracting(
                            saturating: try reserveUsed(in: now.localDate.isoWeek))),
                    emergencyWeekly: config.emergencyWeeklySeconds, openPass: try loadOpenPass())
            }
        }
    }

    /// Every entry in the order written.
    public func entries() throws -> [LedgerEntry] {
        try guarded {
            var all: [LedgerEntry] = []
            try db.query("SELECT \(HumDatabase.entryColumns) FROM entries ORDER BY seq") {
                all.append(try HumDatabase.entry($0))
            }
            return all
        }
    }

    /// Entries written in [from, to) (epoch seconds; nil is open), by time, and the balance just before `from`.
    public func entries(from: Int64?, to: Int64?) throws -> (opening: Int64, entries: [LedgerEntry]) {
        try guarded {
            try db.reading {
                let lower = from ?? Int64.min
                let upper = to ?? Int64.max
                var list: [LedgerEntry] = []
                try db.query(
                    """
                    SELECT \(HumDatabase.entryColumns) FROM entries WHERE at_epoch >= ? AND at_epoch < ?
                    ORDER BY at_epoch, seq
                    """, [.int(lower), .int(upper)]
                ) { list.append(try HumDatabase.entry($0)) }
                let after = try db.scalarTotal("SELECT TOTAL(amount) FROM entries WHERE at_epoch >= ?", [.int(lower)])
                return (try rawBalance().subtracting(saturating: after), list)
            }
        }
    }

    /// Calls `body` with every entry written in [from, to) and the entries its rounds and passes need (the grants
    /// of the rounds started in it, the hold of a settle and the settle of a hold), by time, without holding them
    /// all in memory: what a date-bounded `hum export` writes, so that it imports whole.
    public func forEachExportEntry(from: Int64?, to: Int64?, _ body: (LedgerEntry) throws -> Void) throws {
        let range: [SQLValue] = [.int(from ?? Int64.min), .int(to ?? Int64.max)]
        try guarded {
            try db.reading {
                try db.query(
                    """
                    SELECT \(HumDatabase.entryColumns) FROM entries WHERE (at_epoch >= ? AND at_epoch < ?)
                    OR (kind = 'grant' AND round_id IN (SELECT id FROM rounds WHERE start_epoch >= ? AND start_epoch < ?))
                    OR (kind = 'grant' AND contract_id IN (SELECT id FROM contracts
                        WHERE created_epoch >= ? AND created_epoch < ?))
                    OR (kind IN ('hold', 'settle') AND pass_id IN (SELECT pass_id FROM entries
                        WHERE kind IN ('hold', 'settle') AND at_epoch >= ? AND at_epoch < ?))
                    ORDER BY at_epoch, seq
                    """, range + range + range + range
                ) { try body(try HumDatabase.entry($0)) }
            }
        }
    }

    /// Calls `body` with every entry, by time, without holding them all in memory.
    public func forEachEntry(from: Int64?, to: Int64?, _ body: (LedgerEntry) throws -> Void) throws {
        try guarded {
            try db.reading {
                try db.query(
                    """
                    SELECT \(HumDatabase.entryColumns) FROM entries WHERE at_epoch >= ? AND at_epoch < ?
                    ORDER BY at_epoch, seq
                    """, [.int(from ?? Int64.min), .int(to ?? Int64.max)]
                ) { try body(try HumDatabase.entry($0)) }
            }
        }
    }
}
