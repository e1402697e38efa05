/// The ledger's store contract: every implementation (this in-memory one, the SQLite one in HumStore) applies
/// requests through `LedgerRules` atomically and derives the balance from its entries.
///
/// Contract: `record` either writes exactly the entries the rules decide, or nothing, and throws `LedgerRefusal`
/// when the rules refuse; `entries()` returns every entry in the order written; `bankStatus().rawBalance` equals the
/// sum of `entries()`' amounts.
public protocol LedgerStore: AnyObject {
    func record(_ request: LedgerRequest) throws -> LedgerDecision
    func bankStatus() throws -> BankStatus
    func entries() throws -> [LedgerEntry]
    func openPass() throws -> OpenPass?
}

/// The ledger in memory: the reference implementation of the rules against which the SQLite store is tested, and a
/// double for code that needs a ledger without a database.
public final class InMemoryLedger: LedgerStore {
    public private(set) var all: [LedgerEntry] = []
    public var config: LedgerConfig
    public let calendar: LocalCalendar
    public let device: String
    private var rng: SplitMix64
    private var open: OpenPass?

    public init(
        calendar: LocalCalendar, config: LedgerConfig = LedgerConfig(), device: String = "memory", seed: UInt64 = 1
    ) {
        self.calendar = calendar
        self.config = config
        self.device = device
        self.rng = SplitMix64(seed: seed)
    }

    public func snapshot(for request: LedgerRequest, now: Timestamp) -> LedgerSnapshot {
        LedgerSnapshot(entries: all, for: request, now: now, openPass: open)
    }

    public func record(_ request: LedgerRequest) throws -> LedgerDecision {
        let now = calendar.now()
        let decision = try LedgerRules.decide(
            request, snapshot: snapshot(for: request, now: now), config: config,
            now: now, newID: Identifier.make(using: &rng), device: device)
        if case .record(let entry) = decision {
            all.append(entry)
            if entry.kind == .hold {
                open = OpenPass(
                    id: entry.passID ?? "", holdEntryID: entry.id, heldSeconds: -entry.amount,
                    forfeit: entry.forfeit ?? false, label: entry.label, started: entry.at,
                    deadline: calendar.stamp(entry.at.epochSeconds - entry.amount), usedSeconds: 0)
            }
            if entry.kind == .settle, open?.id == entry.passID { open = nil }
        }
        return decision
    }

    public func bankStatus() throws -> BankStatus {
        let now = calendar.now()
        let s = snapshot(for: .spend(seconds: 1, label: "", key: nil), now: now)
        return BankStatus(
            rawBalance: s.rawBalance, earnedToday: s.earnedToday, dailyCap: config.dailyCapSeconds,
            emergencyLeft: max(0, config.emergencyWeeklySeconds.subtracting(saturating: s.emergencyUsedThisWeek)),
            emergencyWeekly: config.emergencyWeeklySeconds, openPass: open)
    }

    public func entries() throws -> [LedgerEntry] { all }
    public func openPass() throws -> OpenPass? { open }

    /// Merges entries from another replica by id (see `LedgerMerge`): all of them or, on a conflict, none.
    public func merge(_ incoming: [LedgerEntry]) throws(LedgerMerge.Conflict) -> Int {
        var merged = all
        var byID: [String: Int] = [:]
        var byKey: [String: Int] = [:]
        for (i, e) in merged.enumerated() {
            byID[e.id] = i
            if let k = e.key { byKey[k] = i }
        }
        for entry in incoming {
            let action = try LedgerMerge.classify(
                entry, byID: byID[entry.id].map { merged[$0] },
                byKey: entry.key.flatMap { byKey[$0] }.map { merged[$0] })
            if action == .add {
                byID[entry.id] = merged.count
                if let k = entry.key { byKey[k] = merged.count }
                merged.append(entry)
            }
        }
        let added = merged.count - all.count
        all = merged
        return added
    }
}

/// Merging replicas: a union of entries by id, idempotent and independent of order. The local rules (balance, cap,
/// reserve, one open pass) are not applied to merged entries: two offline devices can overspend together, and the
/// result shows as debt instead of being hidden.
public enum LedgerMerge {
    public enum Action: Sendable, Equatable { case add, skip }

    public struct Conflict: Error, Equatable, Sendable {
        public var id: String
        public var reason: String
        public init(id: String, reason: String) {
            self.id = id
            self.reason = reason
        }
        public var message: String { "entry \(id) \(reason); nothing was imported" }
    }

    /// An incoming entry is skipped when the same entry is already there (same id and payload, or the same key and
    /// payload under another id: the same event recorded twice); it conflicts when the id or the key is taken by
    /// something else; it is added otherwise.
    public static func classify(_ entry: LedgerEntry, byID: LedgerEntry?, byKey: LedgerEntry?) throws(Conflict)
        -> Action
    {
        if let problem = entry.validationProblem() { throw Conflict(id: entry.id, reason: "is invalid: \(problem)") }
        if let byID {
            guard byID.payload == entry.payload, byID.amount == entry.amount, byID.kind == entry.kind else {
                throw Conflict(id: entry.id, reason: "differs from the entry with the same id here (\(byID.payload))")
            }
            return .skip
        }
        if let byKey {
            guard byKey.payload == entry.payload, byKey.amount == entry.amount, byKey.kind == entry.kind else {
                throw Conflict(
                    id: entry.id, reason: "reuses key \((entry.key ?? "").quoted) for another entry (\(byKey.payload))")
            }
            return .skip
        }
        return .add
    }
}
