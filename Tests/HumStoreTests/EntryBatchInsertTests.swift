import HumCore
import HumTestSupport
import Testing

@testable import HumStore

/// A merge inserts its entries many rows per statement (`insertMerged`): the rows are those one insert per entry
/// writes, and an entry that breaks a rule of the ledger is named as one insert per entry names it.
@Suite struct EntryBatchInsertTests {
    /// Entries of every kind with optional fields present or not, awkward and empty strings, offsets either side of
    /// UTC: enough for two full batches and a rest.
    static func entries(_ count: Int) -> [LedgerEntry] {
        let texts = ["", "plain", "quote \" and \\", "line\nfeed", "é ünï 😀", "\u{01}"]
        return (0..<count).map { n in
            var e = LedgerEntry(
                id: "e\(n)-\(texts[n % texts.count])", key: n % 3 == 0 ? "k\(n)" : nil,
                kind: EntryKind.allCases[n % EntryKind.allCases.count], amount: Int64(n * 7 - 300),
                at: Timestamp(epochSeconds: 1_700_000_000 + Int64(n) * 4000, offsetSeconds: Int32(n % 5 - 2) * 3600),
                device: "dev\(n % 3)", payload: texts[(n + 1) % texts.count])
            e.label = n % 2 == 0 ? texts[(n + 2) % texts.count] : nil
            e.reason = n % 4 == 0 ? nil : "r\(n)"
            e.roundID = "round\(n)"
            e.passID = "pass\(n)"
            e.contractID = n % 5 == 0 ? nil : "c\(n)"
            e.requested = n % 2 == 0 ? Int64(n) : nil
            e.cut = n % 3 == 0 ? 0 : nil
            e.cap = n % 7 == 0 ? Int64.max : nil
            e.used = n % 2 == 1 ? Int64(n) : nil
            e.forfeit = n % 3 == 0 ? nil : n % 2 == 0
            e.reserve = n % 4 == 1 ? Int64(n) : nil
            e.allowance = n % 4 == 2 ? Int64.min : nil
            return e
        }
    }

    /// Every column of every row, in order, as SQLite quotes it (types included: '' is not NULL).
    static func rows(_ db: HumDatabase) throws -> String {
        try db.db.scalarText(
            """
            SELECT group_concat(quote(seq) || ',' || quote(id) || ',' || quote(key) || ',' || quote(kind) || ',' ||
                quote(amount) || ',' || quote(at) || ',' || quote(at_epoch) || ',' || quote(at_offset) || ',' ||
                quote(local_day) || ',' || quote(iso_week) || ',' || quote(device) || ',' || quote(payload) || ',' ||
                quote(label) || ',' || quote(reason) || ',' || quote(round_id) || ',' || quote(pass_id) || ',' ||
                quote(requested) || ',' || quote(cut) || ',' || quote(cap) || ',' || quote(used) || ',' ||
                quote(forfeit) || ',' || quote(reserve) || ',' || quote(allowance) || ',' || quote(contract_id), ';')
            FROM (SELECT * FROM entries ORDER BY seq)
            """) ?? ""
    }

    @Test func aBatchWritesTheRowsOneInsertPerEntryWrites() throws {
        let one = TempDirectory()
        let two = TempDirectory()
        let clock = ManualClock(1_700_000_000)
        let batched = try open(one, clock: clock)
        let single = try open(two, clock: clock)
        let entries = Self.entries(2 * HumDatabase.entryInsertBatch + 22)
        try batched.db.immediate { try batched.insertMerged(entries) }
        try single.db.immediate { for e in entries { try single.insert(e) } }
        #expect(try batched.entries() == entries)
        let rows = try Self.rows(batched)
        #expect(rows == (try Self.rows(single)))
        #expect(rows.contains("'',"))  // an empty text stays text
        #expect(try batched.db.scalarInt("SELECT balance FROM totals") == entries.reduce(0) { $0 + $1.amount })
        #expect(try batched.db.scalarInt("SELECT entries FROM totals") == Int64(entries.count))
    }

    /// An entry that breaks a rule (a second grant for one round) is the one named, as one insert per entry names
    /// it, wherever it is: in the middle of a batch, first in one, among the rows after the last batch. The
    /// transaction then writes nothing.
    @Test(arguments: [(20, 100), (3, 64), (5, 195), (0, 1)])
    func anEntryBreakingARuleInABatchIsNamed(first: Int, second: Int) throws {
        let dir = TempDirectory()
        let db = try open(dir, clock: ManualClock(1_700_000_000))
        _ = try db.record(.adjust(seconds: 600, reason: "seed", key: "seed"))
        var entries = Self.entries(3 * HumDatabase.entryInsertBatch + 10)
        for i in [first, second] {
            entries[i].kind = .grant
            entries[i].roundID = "the same round"
        }
        let error = #expect(throws: LedgerMerge.Conflict.self) {
            try db.db.immediate { try db.insertMerged(entries) }
        }
        #expect(error?.id == entries[second].id)
        #expect(error?.reason == "breaks a rule of the ledger here (UNIQUE constraint failed: entries.round_id)")
        #expect(try db.entries().count == 1)
        #expect(try db.db.scalarInt("SELECT balance FROM totals") == 600)
    }
}
