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
            try db.reading { failures += try auditLocked().map(\.message) }
            return failures
        }
    }

    /// The ledger's invariants over what this connection sees (inside its transaction, if one is open).
    func auditLocked() throws -> [LedgerAudit.Failure] {
        var all: [LedgerEntry] = []
        try db.query("SELECT \(HumDatabase.entryColumns) FROM entries ORDER BY seq") {
            all.append(try HumDatabase.entry($0))
        }
        var failures: [LedgerAudit.Failure] = []
        let count = try db.scalarInt("SELECT entries FROM totals WHERE id = 1") ?? -1
        if count != Int64(all.count) {
            failures.append(.init(.ledger, "the stored entry count \(count) differs from \(all.count) entries"))
        }
        var open: [String] = []
        try db.query("SELECT id FROM passes WHERE state = 'open'") { open.append(try $0.text("id")) }
        try db.query(
            """
            SELECT p.id FROM passes p WHERE p.state = 'settled'
            AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.kind = 'settle' AND e.pass_id = p.id)
            """
        ) { row in
            let id = try row.text("id")
            failures.append(.init(.pass(id), "pass \(id) is marked settled but has no settle entry"))
        }
        let rounds = try loadRounds(where: "1", [], clampVolumes: false).map { r in
            LedgerAudit.RoundFacts(
                id: r.id, kind: r.kind, status: r.status, earned: r.earnedSeconds, active: r.activeSeconds,
                problem: r.validationProblem(), contractID: r.contractID)
        }
        failures += LedgerAudit.failures(
            entries: all, device: device, openPassIDs: open, cachedBalance: try rawBalance(), rounds: rounds,
            contracts: try contractFacts(), dayBoundary: try dayBoundaryLocked())
        return failures
    }
}
