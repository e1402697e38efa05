import CSQLite
import HumCore

/// What an import added, and what was already here.
public struct ImportOutcome: Sendable, Equatable {
    public var added = 0
    public var present = 0
    public var roundsAdded = 0
    public var roundsPresent = 0
    public var contractsAdded = 0
    public var contractsPresent = 0
}

/// Merging the entries and rounds of another replica or a backup (`hum ledger import`).
extension HumDatabase {
    /// Merges entries from another replica by id (a union), all or nothing. Returns how many were added and how many
    /// were already there; throws `LedgerMerge.Conflict` when an entry disagrees with one here.
    public func merge(_ incoming: [LedgerEntry]) throws -> (added: Int, present: Int) {
        let outcome = try importLedger(entries: incoming, sessions: [])
        return (outcome.added, outcome.present)
    }

    /// Adds rounds from an export that are not here yet (by id); see `importLedger`.
    public func importRounds(_ records: [RoundRecord]) throws -> Int {
        try importLedger(entries: [], sessions: records).roundsAdded
    }

    /// Imports entries and sessions in one `BEGIN IMMEDIATE` transaction, all or nothing: entries are merged by id,
    /// sessions not here yet are added as they were recorded (one exported while running as interrupted), and then
    /// the ledger's invariants are checked inside the same transaction. An import that would leave a failure that
    /// was not there before (a settle without its hold or above it, a completed session without its grant, a
    /// grant that does not match its session, a number out of range, …) is rolled back and refused with
    /// `StoreError.importBreaks`, naming the failure. A conflicting entry throws `LedgerMerge.Conflict`.
    public func importLedger(entries: [LedgerEntry], sessions: [RoundRecord], contracts: [ContractRecord] = [])
        throws -> ImportOutcome
    {
        for r in sessions {
            if let problem = r.validationProblem() { throw StoreError.importBreaks(.init(.round(r.id), problem)) }
        }
        for c in contracts {
            if let problem = c.validationProblem() { throw StoreError.importBreaks(.init(.contract(c.id), problem)) }
        }
        return try guarded {
            try db.immediate {
                try db.execute("SAVEPOINT import")
                var outcome = try applyImport(entries: entries, sessions: sessions, contracts: contracts)
                let after = try auditLocked()
                if after.isEmpty {
                    try db.execute("RELEASE import")
                    return outcome
                }
                // Failures the ledger had before the import are not the import's: compare by what they are about.
                try db.execute("ROLLBACK TO import")
                let before = Set(try auditLocked().map(\.subject))
                if let new = after.first(where: { !before.contains($0.subject) }) {
                    throw StoreError.importBreaks(new)
                }
                outcome = try applyImport(entries: entries, sessions: sessions, contracts: contracts)
                try db.execute("RELEASE import")
                return outcome
            }
        }
    }

    func applyImport(entries: [LedgerEntry], sessions: [RoundRecord], contracts: [ContractRecord]) throws
        -> ImportOutcome
    {
        var outcome = ImportOutcome()
        (outcome.contractsAdded, outcome.contractsPresent) = try importContracts(contracts)
        for e in entries {
            let byID = try entry(where: "id = ?", [.text(e.id)])
            let byKey = try e.key.flatMap { try entry(where: "key = ?", [.text($0)]) }
            switch try LedgerMerge.classify(e, byID: byID, byKey: byKey) {
            case .skip: outcome.present += 1
            case .add:
                do {
                    try insert(e)
                } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
                    throw LedgerMerge.Conflict(
                        id: e.id, reason: "breaks a rule of the ledger here (\(error.sqliteMessage))")
                }
                outcome.added += 1
            }
        }
        for r in sessions {
            if try db.scalarInt("SELECT 1 FROM rounds WHERE id = ?", [.text(r.id)]) != nil {
                outcome.roundsPresent += 1
                continue
            }
            var round = r
            round.status = r.status == .running ? .interrupted : r.status
            round.end = r.end ?? r.start
            if round.status != .completed || round.kind != .focus || round.contractID != nil { round.earnedSeconds = 0 }
            try insertRound(round, deadline: nil, heartbeat: (r.end ?? r.start).epochSeconds, owner: nil)
            outcome.roundsAdded += 1
        }
        return outcome
    }
}
