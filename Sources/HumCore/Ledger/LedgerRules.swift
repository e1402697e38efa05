/// A request to change the ledger. Every store (in memory, SQLite) turns it into entries through `LedgerRules`.
public enum LedgerRequest: Sendable, Equatable {
    /// Reward a completed focus round. Keyed by the round's id: a round is never rewarded twice.
    case grant(roundID: String, activeSeconds: Int64)
    /// Reward a contract whose proof was approved (or overridden): the active time of its completed focus rounds at
    /// the ratio it was made with. Keyed by the contract's id: a contract is never rewarded twice.
    case grantContract(contractID: String, activeSeconds: Int64, ratioMilli: Int64)
    case spend(seconds: Int64, label: String, key: String?)
    /// A correction by hand, positive or negative.
    case adjust(seconds: Int64, reason: String, key: String?)
    /// A draw on this ISO week's emergency reserve.
    case emergency(seconds: Int64, reason: String, key: String?)
    /// Open an access pass: hold `seconds` now.
    case openPass(passID: String, seconds: Int64, label: String?, forfeit: Bool)
    /// Settle a pass exactly once: `usedSeconds` are spent, the rest returns unless the pass was opened forfeit.
    case settlePass(passID: String, usedSeconds: Int64)

    /// The idempotency key the resulting entry carries.
    public var key: String? {
        switch self {
        case .grant(let roundID, _): return "round:" + roundID
        case .grantContract(let contractID, _, _): return "contract:" + contractID
        case .spend(_, _, let key), .adjust(_, _, let key), .emergency(_, _, let key): return key
        case .openPass(let passID, _, _, _): return "pass:" + passID
        case .settlePass(let passID, _): return "settle:" + passID
        }
    }

    /// The canonical description compared when a key is replayed.
    public var payload: String {
        switch self {
        case .grant(let roundID, let active): return "grant round=\(roundID) active=\(active)"
        case .grantContract(let contractID, let active, let ratio):
            return "grant contract=\(contractID) ratio=\(ratio) active=\(active)"
        case .spend(let s, let label, _): return "spend \(s) on=\(label)"
        case .adjust(let s, let reason, _): return "adjustment \(s) reason=\(reason)"
        case .emergency(let s, let reason, _): return "emergency \(s) reason=\(reason)"
        case .openPass(let id, let s, let label, let forfeit):
            return "hold pass=\(id) \(s) forfeit=\(forfeit) on=\(label ?? "")"
        case .settlePass(let id, let used): return "settle pass=\(id) used=\(used)"
        }
    }
}

/// Why the ledger's rules refused a request. Nothing was changed (exit 3 on the command line).
public enum LedgerRefusal: Error, Equatable, Sendable {
    case notEnough(balance: Int64, asked: Int64)
    case inDebt(debt: Int64)
    case passAlreadyOpen(OpenPass)
    case reserveExhausted(left: Int64, asked: Int64)
    case keyConflict(key: String, existing: String)
    case unknownPass(String)
    case invalidAmount(String)

    public var message: String {
        let f = DurationText.format(seconds:)
        switch self {
        case .notEnough(let balance, let asked):
            return
                "not enough banked: \(f(max(0, balance))) in the bank, \(f(asked)) asked; nothing was taken (see "
                + "'hum bank')"
        case .inDebt(let debt):
            return
                "the bank is in debt by \(f(debt)) after a merge; spending is blocked until earnings cover it (see "
                + "'hum ledger')"
        case .passAlreadyOpen(let pass):
            return
                "another pass is open (\(f(pass.heldSeconds))\(pass.label.map { " on \($0)" } ?? ""), until "
                + "\(pass.deadline.localClock)); one pass at a time"
        case .reserveExhausted(let left, let asked):
            return "only \(f(left)) of this week's emergency reserve is left, \(f(asked)) asked; it refills on monday"
        case .keyConflict(let key, let existing):
            return "key \(key.quoted) was already used for another entry (\(existing)); use a new key"
        case .unknownPass(let id):
            return "no pass \(id) is held; nothing to settle"
        case .invalidAmount(let why):
            return why
        }
    }
}

/// What a store knows when it decides a request, read inside the same transaction as the write.
public struct LedgerSnapshot: Sendable, Equatable {
    public var rawBalance: Int64 = 0
    /// Granted so far on the local day of `now` (every device).
    public var earnedToday: Int64 = 0
    /// Drawn on the reserve in the ISO week of `now` (every device).
    public var emergencyUsedThisWeek: Int64 = 0
    public var openPass: OpenPass? = nil
    /// The entry already carrying the request's key, if any.
    public var existing: LedgerEntry? = nil
    /// For a settle: the hold of the pass.
    public var hold: LedgerEntry? = nil

    public init() {}

    /// What the rules need to decide `request` at `now`, read from every entry: the balance, the day's grants and
    /// the week's draws, the entry already carrying the request's key, and a settle's hold. The open pass is the
    /// caller's to give (the ledger that holds it knows it).
    public init(entries: [LedgerEntry], for request: LedgerRequest, now: Timestamp, openPass: OpenPass? = nil) {
        let today = now.localDate
        let week = today.isoWeek
        for e in entries {
            rawBalance = rawBalance.adding(saturating: e.amount)
            if e.kind == .grant, e.localDay == today { earnedToday = earnedToday.adding(saturating: e.amount) }
            if e.kind == .emergency, e.isoWeek == week {
                emergencyUsedThisWeek = emergencyUsedThisWeek.adding(saturating: e.reserve ?? 0)
            }
        }
        if let key = request.key { existing = entries.first { $0.key == key } }
        if case .settlePass(let passID, _) = request {
            hold = entries.first { $0.kind == .hold && $0.passID == passID }
        }
        self.openPass = openPass
    }
}

/// The result of a request that the rules accept.
public enum LedgerDecision: Sendable, Equatable {
    /// A new entry, to be written.
    case record(LedgerEntry)
    /// The same request was made before: its entry, unchanged.
    case exists(LedgerEntry)

    public var entry: LedgerEntry {
        switch self {
        case .record(let e), .exists(let e): return e
        }
    }
}

/// The ledger's rules, as one pure function. Stores read a snapshot, call `decide`, and write what it returns, all
/// in one transaction.
public enum LedgerRules {
    public static let maxSeconds: Int64 = 366 * 86_400

    public static func decide(
        _ request: LedgerRequest, snapshot: LedgerSnapshot, config: LedgerConfig,
        now: Timestamp, newID: String, device: String
    ) throws(LedgerRefusal) -> LedgerDecision {
        var request = request
        if case .settlePass(let passID, let used) = request, let hold = snapshot.hold {
            request = .settlePass(passID: passID, usedSeconds: min(max(0, used), hold.amount.negatedSaturating))
        }
        let key = request.key
        let payload = request.payload
        if let existing = snapshot.existing {
            guard existing.payload == payload else {
                throw .keyConflict(key: key ?? "", existing: existing.payload)
            }
            return .exists(existing)
        }
        var entry = LedgerEntry(id: newID, key: key, kind: .spend, amount: 0, at: now, device: device, payload: payload)
        func positive(_ s: Int64, _ what: String) throws(LedgerRefusal) {
            guard s > 0, s <= maxSeconds else {
                throw .invalidAmount("\(what) must be more than 0s and at most 366 days")
            }
        }
        func canTake(_ s: Int64) throws(LedgerRefusal) {
            if snapshot.rawBalance < 0 { throw .inDebt(debt: snapshot.rawBalance.negatedSaturating) }
            if snapshot.rawBalance < s { throw .notEnough(balance: snapshot.rawBalance, asked: s) }
        }
        switch request {
        case .grant(let roundID, let active):
            guard active >= 0, active <= maxSeconds else { throw .invalidAmount("active seconds out of range") }
            let requested = config.earned(activeSeconds: active)
            let left = max(0, config.dailyCapSeconds.subtracting(saturating: snapshot.earnedToday))
            let granted = min(requested, left)
            entry.kind = .grant
            entry.amount = granted
            entry.roundID = roundID
            entry.requested = requested
            entry.cut = requested - granted
            entry.cap = config.dailyCapSeconds
        case .grantContract(let contractID, let active, let ratio):
            guard active >= 0, active <= maxSeconds, LedgerConfig.ratioMilli.contains(ratio) else {
                throw .invalidAmount("active seconds or ratio out of range")
            }
            let requested = ContractReward.earned(activeSeconds: active, ratioMilli: ratio)
            let left = max(0, config.dailyCapSeconds.subtracting(saturating: snapshot.earnedToday))
            let granted = min(requested, left)
            entry.kind = .grant
            entry.amount = granted
            entry.contractID = contractID
            entry.requested = requested
            entry.cut = requested - granted
            entry.cap = config.dailyCapSeconds
        case .spend(let s, let label, _):
            try positive(s, "a spend")
            try canTake(s)
            entry.kind = .spend
            entry.amount = -s
            entry.label = label
        case .adjust(let s, let reason, _):
            guard s != 0, abs(s) <= maxSeconds else {
                throw .invalidAmount("an adjustment must not be 0s and at most 366 days")
            }
            if s < 0 { try canTake(-s) }
            entry.kind = .adjustment
            entry.amount = s
            entry.reason = reason
        case .emergency(let s, let reason, _):
            try positive(s, "an emergency draw")
            let left = max(0, config.emergencyWeeklySeconds.subtracting(saturating: snapshot.emergencyUsedThisWeek))
            guard s <= left else { throw .reserveExhausted(left: left, asked: s) }
            entry.kind = .emergency
            entry.amount = 0
            entry.reserve = s
            entry.allowance = config.emergencyWeeklySeconds
            entry.reason = reason
        case .openPass(let passID, let s, let label, let forfeit):
            try positive(s, "a pass")
            if let open = snapshot.openPass { throw .passAlreadyOpen(open) }
            try canTake(s)
            entry.kind = .hold
            entry.amount = -s
            entry.passID = passID
            entry.label = label
            entry.forfeit = forfeit
        case .settlePass(let passID, let used):
            guard let hold = snapshot.hold else { throw .unknownPass(passID) }
            let held = hold.amount.negatedSaturating
            let used = min(max(0, used), held)
            let forfeit = hold.forfeit ?? false
            entry.kind = .settle
            entry.passID = passID
            entry.label = hold.label
            entry.used = used
            entry.forfeit = forfeit
            entry.amount = forfeit ? 0 : max(0, held.subtracting(saturating: used))
        }
        return .record(entry)
    }
}
