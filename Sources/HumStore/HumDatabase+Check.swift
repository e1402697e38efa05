import HumCore

/// `hum ledger check`: the file's integrity and the ledger's invariants.
extension HumDatabase {
    /// Verifies `PRAGMA integrity_check` and every invariant of the ledger; one line per failure, empty when all holds.
    public func check() throws -> [String] {
        try guarded {
            var failures: [String] = []
            try db.query("PRAGMA integrity_check") { row in
                let line = try row.text("integrity_check")
                if line != "ok" { failures.append("integrity: \(line)") }
            }
            try db.reading {
                var all: [LedgerEntry] = []
                try db.query("SELECT \(HumDatabase.entryColumns) FROM entries ORDER BY seq") {
                    all.append(try HumDatabase.entry($0))
                }
                let count = try db.scalarInt("SELECT entries FROM totals WHERE id = 1") ?? -1
                if count != Int64(all.count) {
                    failures.append("the stored entry count \(count) differs from \(all.count) entries")
                }
                var open: [String] = []
                try db.query("SELECT id FROM passes WHERE state = 'open'") { open.append(try $0.text("id")) }
                var unsettled: [String] = []
                try db.query(
                    """
                    SELECT p.id FROM passes p WHERE p.state = 'settled'
                    AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.kind = 'settle' AND e.pass_id = p.id)
                    """
                ) { unsettled.append(try $0.text("id")) }
                for id in unsettled { failures.append("pass \(id) is marked settled but has no settle entry") }
                var rounds: [LedgerAudit.RoundFacts] = []
                try db.query("SELECT id, kind, status, earned FROM rounds") { row in
                    rounds.append(
                        .init(
                            id: try row.text("id"), kind: RoundKind(rawValue: try row.text("kind")) ?? .focus,
                            status: RoundStatus(rawValue: try row.text("status")) ?? .running,
                            earned: try row.int("earned")))
                }
                failures += LedgerAudit.audit(
                    entries: all, device: device, openPassIDs: open,
                    cachedBalance: try rawBalance(), rounds: rounds)
            }
            return failures
        }
    }
}
