import CSQLite
import HumCore

/// Writing the ledger's entries: one at a time as the ledger decides them, many rows per statement when a merge
/// adds a batch.
extension HumDatabase {
    /// The columns an entry is written to, in the order `bind(_:to:from:)` binds them.
    static let entryInsertColumns = """
        id, key, kind, amount, at, at_epoch, at_offset, local_day, iso_week, device, payload, label, reason, round_id, \
        pass_id, requested, cut, cap, used, forfeit, reserve, allowance, contract_id
        """
    static let entryInsertParameters: Int32 = 23

    /// `INSERT INTO entries` of `rows` rows; `verb`: `INSERT` or `INSERT OR FAIL`.
    static func entryInsertSQL(rows: Int, verb: String = "INSERT") -> String {
        let row = "(" + Array(repeating: "?", count: Int(entryInsertParameters)).joined(separator: ", ") + ")"
        return "\(verb) INTO entries(\(entryInsertColumns)) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    static let entryInsertOne = entryInsertSQL(rows: 1)

    /// Rows per statement of `insertMerged`. Every statement on `entries` runs its triggers, opens a cursor per index
    /// and builds the table of its `kind IN (…)` check: 64 rows share that work (one row per statement spent a third
    /// of a cold merge's inserts on it). 64 × 23 parameters stay far below SQLite's limit.
    static let entryInsertBatch = 64

    func insert(_ e: LedgerEntry) throws {
        let statement = try db.prepare(Self.entryInsertOne)
        defer { statement.reset() }
        try bind(e, to: statement, from: 1)
        _ = try statement.step()
    }

    /// Binds an entry's columns (`entryInsertColumns`) to the parameters from `first` on. The timestamp, day and
    /// week are written on the stack and copied by SQLite; no array of values and no string is made.
    func bind(_ e: LedgerEntry, to s: Statement, from first: Int32) throws {
        try s.bind(first, e.id)
        try s.bind(first + 1, e.key)
        try s.bind(first + 2, e.kind.rawValue)
        try s.bind(first + 3, e.amount)
        try e.at.withRFC3339 { try s.bind(first + 4, text: $0) }
        try s.bind(first + 5, e.at.epochSeconds)
        try s.bind(first + 6, Int64(e.at.offsetSeconds))
        let day = e.at.localDate
        try day.withText { try s.bind(first + 7, text: $0) }
        try day.isoWeek.withText { try s.bind(first + 8, text: $0) }
        try s.bind(first + 9, e.device)
        try s.bind(first + 10, e.payload)
        try s.bind(first + 11, e.label)
        try s.bind(first + 12, e.reason)
        try s.bind(first + 13, e.roundID)
        try s.bind(first + 14, e.passID)
        try s.bind(first + 15, e.requested)
        try s.bind(first + 16, e.cut)
        try s.bind(first + 17, e.cap)
        try s.bind(first + 18, e.used)
        try s.bind(first + 19, e.forfeit)
        try s.bind(first + 20, e.reserve)
        try s.bind(first + 21, e.allowance)
        try s.bind(first + 22, e.contractID)
    }

    /// Inserts entries merged from elsewhere, in their order, `entryInsertBatch` rows per statement, inside the
    /// caller's transaction. An entry that breaks a constraint of the ledger here throws `LedgerMerge.Conflict` naming
    /// it, as one insert per entry would; the caller then rolls the transaction back (a merge is all or nothing).
    ///
    /// The batches are `INSERT OR FAIL`: a statement that fails keeps the rows it wrote before the one that broke
    /// the rule (the transaction is rolled back anyway), so SQLite keeps no statement journal to undo it. With
    /// `INSERT` (`ABORT`) it copied every page each statement changed first, a tenth of a cold merge's inserts.
    /// Which row broke the rule is told by how many the statement wrote: rows get the `seq` after the largest.
    func insertMerged(_ entries: [LedgerEntry]) throws {
        let rows = Self.entryInsertBatch
        var start = entries.startIndex
        if entries.count >= rows {
            let batch = try db.prepare(Self.entryInsertSQL(rows: rows, verb: "INSERT OR FAIL"))
            var last = try db.scalarInt("SELECT max(seq) FROM entries") ?? 0
            while entries.endIndex - start >= rows {
                try insertMerged(entries[start..<start + rows], with: batch, after: last)
                start += rows
                last += Int64(rows)
            }
            batch.reset()
        }
        for e in entries[start...] { try insertMerged(e) }
    }

    /// Inserts one entry merged from elsewhere; one that breaks a constraint of the ledger here throws
    /// `LedgerMerge.Conflict` naming it.
    func insertMerged(_ e: LedgerEntry) throws {
        do {
            try insert(e)
        } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
            throw LedgerMerge.Conflict(id: e.id, reason: Self.brokenRule(error.sqliteMessage))
        }
    }

    static func brokenRule(_ message: String) -> String { "breaks a rule of the ledger here (\(message))" }

    /// One batch of `insertMerged`, with the statement for as many rows; `last`: the largest `seq` before it.
    private func insertMerged(_ chunk: ArraySlice<LedgerEntry>, with batch: Statement, after last: Int64) throws {
        sqlite3_reset(batch.pointer)  // every parameter is bound again below
        var first: Int32 = 1
        for e in chunk {
            try bind(e, to: batch, from: first)
            first += Self.entryInsertParameters
        }
        let rc = sqlite3_step(batch.pointer)
        if rc == SQLITE_DONE { return }
        let message = String(cString: sqlite3_errmsg(db.handle))
        sqlite3_reset(batch.pointer)
        let error = SQLiteError(
            code: rc, call: "sqlite3_step", sqliteMessage: message, sql: batch.sql, path: db.path,
            systemErrno: sqlite3_system_errno(db.handle))
        guard rc & 0xFF == SQLITE_CONSTRAINT else { throw error }
        let written = (try db.scalarInt("SELECT count(*) FROM entries WHERE seq > ?", [.int(last)])) ?? 0
        guard written < chunk.count else { throw error }
        throw LedgerMerge.Conflict(id: chunk[chunk.startIndex + Int(written)].id, reason: Self.brokenRule(message))
    }
}
