import HumCore

/// Away time on rounds (migration `rounds-away`): written as the person comes back (and at a round's end while
/// still away), so a process killed later leaves it on the record.
extension HumDatabase {
    /// Adds `seconds` away to the round `id`. False when there is no such round.
    @discardableResult
    public func addAway(roundID id: String, seconds: Int64) throws -> Bool {
        guard seconds > 0 else { return true }
        return try guarded {
            try db.run(
                "UPDATE rounds SET away = MIN(away + ?, ?) WHERE id = ?",
                [.int(LedgerBounds.clampRound(seconds)), .int(LedgerBounds.roundSeconds.upperBound), .text(id)])
            return db.changes > 0
        }
    }

    /// The seconds the person was away during the round `id` (0 when none, or no such round).
    public func awaySeconds(ofRound id: String) throws -> Int64 {
        try guarded { try db.scalarInt("SELECT away FROM rounds WHERE id = ?", [.text(id)]) ?? 0 }
    }
}
