import CSQLite
import HumCore

/// Merging the entries and rounds of another replica (`hum ledger import`).
extension HumDatabase {
    /// Merges entries from another replica by id (a union), all or nothing. Returns how many were added and how many
    /// were already there; throws `LedgerMerge.Conflict` when an entry disagrees with one here.
    public func merge(_ incoming: [LedgerEntry]) throws -> (added: Int, present: Int) {
        try guarded {
            try db.immediate {
                var added = 0
                var present = 0
                for e in incoming {
                    let byID = try entry(where: "id = ?", [.text(e.id)])
                    let byKey = try e.key.flatMap { try entry(where: "key = ?", [.text($0)]) }
                    switch try LedgerMerge.classify(e, byID: byID, byKey: byKey) {
                    case .skip: present += 1
                    case .add:
                        do {
                            try insert(e)
                        } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
                            throw LedgerMerge.Conflict(
                                id: e.id, reason: "breaks a rule of the ledger here (\(error.sqliteMessage))")
                        }
                        added += 1
                    }
                }
                return (added, present)
            }
        }
    }

    /// Adds rounds from an export that are not here yet (by id), as they were recorded; grants come with the ledger's
    /// entries, not from here. A round exported while running is added as interrupted. Returns how many were added.
    public func importRounds(_ records: [RoundRecord]) throws -> Int {
        guard !records.isEmpty else { return 0 }
        return try guarded {
            try db.immediate {
                var added = 0
                for r in records {
                    if try db.scalarInt("SELECT 1 FROM rounds WHERE id = ?", [.text(r.id)]) != nil { continue }
                    let status: RoundStatus = r.status == .running ? .interrupted : r.status
                    let end = r.end ?? r.start
                    try db.run(
                        """
                        INSERT INTO rounds(id, kind, status, start_at, start_epoch, start_offset, end_at, end_epoch, end_offset,
                            planned, active, paused, goal, earned, heartbeat_epoch)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text(r.id), .text(r.kind.rawValue), .text(status.rawValue), .text(r.start.rfc3339),
                            .int(r.start.epochSeconds), .int(Int64(r.start.offsetSeconds)), .text(end.rfc3339),
                            .int(end.epochSeconds), .int(Int64(end.offsetSeconds)), .int(max(0, r.plannedSeconds)),
                            .int(max(0, r.activeSeconds)), .int(max(0, r.pausedSeconds)), .optional(r.goal),
                            .int(status == .completed && r.kind == .focus ? max(0, r.earnedSeconds) : 0),
                            .int(end.epochSeconds),
                        ])
                    let seq = try db.scalarInt("SELECT seq FROM rounds WHERE id = ?", [.text(r.id)]) ?? 0
                    try writeMix(seq: seq, r.mix)
                    for (i, tag) in r.tags.enumerated() {
                        try db.run(
                            "INSERT INTO round_tags(round_seq, position, tag) VALUES (?, ?, ?)",
                            [.int(seq), .int(Int64(i)), .text(tag)])
                    }
                    added += 1
                }
                return added
            }
        }
    }
}
