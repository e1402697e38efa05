import HumCore

/// Contracts changed on another device (docs/sync.md, "Merge rules"): last writer wins by hybrid time, a paid
/// contract being final (`SyncMerge.contractReplaces`); the grant that paid it is a ledger entry of its own, merged
/// by the ledger's rules (key `contract:<id>`, never twice).
extension HumDatabase {
    /// Puts a contract as another device's journal has it in place of the one here: its row, criteria, watched
    /// paths, reviews and events become the incoming ones, so a review never counts twice. One that runs on the other
    /// device is interrupted here, as an import has it, unless it runs here too (its owner and first look stay). The
    /// caller holds the lock, inside a merge.
    func replaceContract(_ incoming: ContractRecord) throws {
        guard let seq = try db.scalarInt("SELECT seq FROM contracts WHERE id = ?", [.text(incoming.id)]) else {
            _ = try importContracts([incoming])
            return
        }
        var c = incoming
        let runsHere = try db.scalarText("SELECT status FROM contracts WHERE seq = ?", [.int(seq)]) == "running"
        if c.status == .running && !runsHere {
            c.status = .interrupted
            c.endedAt = c.endedAt ?? c.endsAt ?? c.createdAt
            c.endsAt = nil
        }
        let keepOwner = c.status == .running
        try db.run(
            """
            UPDATE contracts SET goal = ?, first_step = ?, strict = ?, status = ?, created_at = ?, created_epoch = ?,
                created_offset = ?, ends_epoch = ?, ends_offset = ?, ended_epoch = ?, ended_offset = ?, ratio_milli = ?,
                rounds = ?, focus_seconds = ?, attempts = ?, reward = ?, reward_entry_id = ?, override_reason = ?,
                override_epoch = ?, override_offset = ?, device = ?, evidence = ?, proof = ?
                \(keepOwner ? "" : ", owner_pid = NULL, owner_start = NULL, owner_boot = NULL, baseline = NULL")
            WHERE seq = ?
            """,
            [
                .text(c.goal), .optional(c.firstStep), .int(c.strict ? 1 : 0), .text(c.status.rawValue),
                .text(c.createdAt.rfc3339), .int(c.createdAt.epochSeconds), .int(Int64(c.createdAt.offsetSeconds)),
                .optional(c.endsAt?.epochSeconds), .optional(c.endsAt.map { Int64($0.offsetSeconds) }),
                .optional(c.endedAt?.epochSeconds), .optional(c.endedAt.map { Int64($0.offsetSeconds) }),
                .int(c.ratioMilli), .int(Int64(c.rounds)), .int(c.focusSeconds), .int(Int64(c.attempts)),
                .optional(c.rewardSeconds), .optional(c.rewardEntryID), .optional(c.override?.reason),
                .optional(c.override?.at.epochSeconds), .optional(c.override.map { Int64($0.at.offsetSeconds) }),
                .text(c.device), .optional(try c.evidence.map(Self.json)), .text(try Self.json(c.proof)), .int(seq),
            ])
        for table in ["contract_criteria", "contract_watch", "contract_reviews", "contract_events"] {
            try db.run("DELETE FROM \(table) WHERE contract_seq = ?", [.int(seq)])
        }
        try insertContractRows(c, seq: seq)
    }

    /// The contracts here whose reward was granted: final for a merge.
    func paidContractIDs() throws -> Set<String> {
        var out: Set<String> = []
        try db.query("SELECT id FROM contracts WHERE status IN ('approved', 'overridden')") {
            out.insert(try $0.text("id"))
        }
        return out
    }
}
