import FoundationEssentials
import HumCore

/// Contracts in the ledger's own upkeep: the dead ones interrupted by reconciliation, the facts `hum ledger check`
/// audits, and the contracts an import brings.
extension HumDatabase {
    /// Running contracts whose process died are interrupted (they earn nothing). The caller holds the lock.
    func interruptDeadContracts(_ report: inout ReconcileReport) throws {
        var dead: [(String, String)] = []
        try db.query(
            "SELECT id, goal, owner_pid, owner_start, owner_boot FROM contracts WHERE status = 'running'"
        ) { row in
            guard let pid = try row.optionalInt("owner_pid"), let boot = try row.optionalText("owner_boot") else {
                dead.append((try row.text("id"), try row.text("goal")))
                return
            }
            let owner = ProcessOwner(
                pid: Int32(clamping: pid), startTicks: try row.optionalInt("owner_start") ?? 0, bootID: boot)
            if !probe.isAlive(owner) { dead.append((try row.text("id"), try row.text("goal"))) }
        }
        let now = calendar.now()
        for (id, goal) in dead {
            try db.run(
                """
                UPDATE contracts SET status = 'interrupted', ended_epoch = ?, ended_offset = ?, ends_epoch = NULL,
                    ends_offset = NULL, baseline = NULL
                WHERE id = ? AND status = 'running'
                """, [.int(now.epochSeconds), .int(Int64(now.offsetSeconds)), .text(id)])
            report.interruptedContracts.append((id, goal))
        }
    }

    /// What `hum ledger check` checks of every contract.
    func contractFacts() throws -> [LedgerAudit.ContractFacts] {
        var active: [String: Int64] = [:]
        try db.query(
            """
            SELECT contract_id, TOTAL(CASE WHEN kind = 'focus' AND status = 'completed' THEN active ELSE 0 END) AS active
            FROM rounds WHERE contract_id IS NOT NULL GROUP BY contract_id
            """
        ) { row in
            let total = try row.double("active")
            active[try row.text("contract_id")] = total.isFinite ? Int64(min(max(total, -9e18), 9e18)) : 0
        }
        return try loadContracts(where: "1", []).map { c in
            LedgerAudit.ContractFacts(
                id: c.id, status: c.status, rewardSeconds: c.rewardSeconds, roundsActive: active[c.id],
                problem: c.validationProblem(), ratioMilli: c.ratioMilli, rewardEntryID: c.rewardEntryID)
        }
    }

    /// Adds the contracts of an import that are not here yet (by id); one exported while running is interrupted.
    /// The caller holds the lock. Returns how many were added and how many were here.
    func importContracts(_ incoming: [ContractRecord]) throws -> (added: Int, present: Int) {
        var added = 0
        var present = 0
        for c in incoming {
            if try db.scalarInt("SELECT 1 FROM contracts WHERE id = ?", [.text(c.id)]) != nil {
                present += 1
                continue
            }
            var record = c
            if record.status == .running {
                record.status = .interrupted
                record.endedAt = record.endedAt ?? record.endsAt ?? record.createdAt
                record.endsAt = nil
            }
            try insertContract(record, owner: nil, baseline: nil)
            added += 1
        }
        return (added, present)
    }
}
