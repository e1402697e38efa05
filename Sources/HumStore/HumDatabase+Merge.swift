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
                    var round = r
                    round.status = r.status == .running ? .interrupted : r.status
                    round.end = r.end ?? r.start
                    if round.status != .completed || round.kind != .focus { round.earnedSeconds = 0 }
                    try insertRound(round, deadline: nil, heartbeat: (r.end ?? r.start).epochSeconds, owner: nil)
                    added += 1
                }
                return added
            }
        }
    }
}
