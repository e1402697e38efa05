/// What an entry of the ledger records. Amounts are whole seconds of leisure time.
public enum EntryKind: String, Sendable, Codable, CaseIterable {
    /// Earned by a completed focus round (`round_id`), or by a contract whose proof was approved or overridden
    /// (`contract_id`): `amount` = `requested` − `cut` (the daily cap's cut).
    case grant
    /// Leisure time taken at once (`hum spend`): `amount` is negative.
    case spend
    /// An access pass opened: the whole duration is held (taken from the balance) at once; `amount` is negative.
    case hold
    /// An access pass settled, exactly once per hold: `used` seconds are posted as spent and the rest is released
    /// back (`amount` ≥ 0), or forfeited (`amount` 0) when the pass was opened with `--forfeit`.
    case settle
    /// A draw on the weekly emergency reserve (`reserve` seconds). It does not touch the balance (`amount` 0).
    case emergency
    /// A correction by hand, with its reason; shown apart in every listing.
    case adjustment
}

/// One line of the append-only ledger. Entries are never changed or deleted once written.
public struct LedgerEntry: Sendable, Equatable, Codable {
    /// Unique, random, chosen by the device that wrote the entry; merges go by it.
    public var id: String
    /// The idempotency key: a replay with the same key and payload returns the entry; another payload is refused.
    public var key: String?
    public var kind: EntryKind
    /// The effect on the balance, in seconds (negative takes away).
    public var amount: Int64
    /// When it was written, with the offset in force then.
    public var at: Timestamp
    /// The device (database) that wrote it.
    public var device: String
    /// What makes two requests "the same event" for the key: compared on a replay and on a merge.
    public var payload: String

    public var label: String? = nil
    public var reason: String? = nil
    public var roundID: String? = nil
    public var passID: String? = nil
    /// The contract of a grant for a contract.
    public var contractID: String? = nil
    /// grant: seconds earned before the cap; cut: seconds the daily cap took away; cap: the cap in force.
    public var requested: Int64? = nil
    public var cut: Int64? = nil
    public var cap: Int64? = nil
    /// settle: seconds of the pass used; forfeit: whether the unused rest was forfeited.
    public var used: Int64? = nil
    public var forfeit: Bool? = nil
    /// emergency: seconds drawn on the reserve, and the weekly allowance in force.
    public var reserve: Int64? = nil
    public var allowance: Int64? = nil

    public init(
        id: String, key: String?, kind: EntryKind, amount: Int64, at: Timestamp, device: String,
        payload: String
    ) {
        self.id = id
        self.key = key
        self.kind = kind
        self.amount = amount
        self.at = at
        self.device = device
        self.payload = payload
    }

    /// The local calendar day the entry counts for (the daily cap), fixed when it was written.
    public var localDay: CivilDate { at.localDate }
    /// The ISO week the entry counts for (the emergency reserve), fixed when it was written.
    public var isoWeek: IsoWeek { at.localDate.isoWeek }

    /// Whether this entry is a correction (shown apart).
    public var isCorrection: Bool { kind == .adjustment }

    enum CodingKeys: String, CodingKey {
        case id, key, kind
        case amount = "amount_seconds"
        case at, device, payload, label, reason
        case roundID = "round_id"
        case passID = "pass_id"
        case contractID = "contract_id"
        case requested = "requested_seconds"
        case cut = "cut_seconds"
        case cap = "cap_seconds"
        case used = "used_seconds"
        case forfeit
        case reserve = "reserve_seconds"
        case allowance = "allowance_seconds"
    }

    /// Checks the fields an entry of its kind must have, that every number is within `LedgerBounds`, and that they
    /// agree. Used on import and by `hum ledger check`, so that nothing from outside can break the invariants or make
    /// the arithmetic on stored values trap. Returns the first problem, or nil.
    public func validationProblem() -> String? {
        guard !id.isEmpty, id.utf8.count <= LedgerBounds.idBytes else { return "an entry has an empty or overlong id" }
        guard LedgerBounds.amount.contains(amount) else {
            return "entry \(id): amount \(amount)s is out of range (at most 10 years either way)"
        }
        if let key, key.isEmpty || key.utf8.count > LedgerBounds.idBytes { return "entry \(id): empty or overlong key" }
        if let problem = LedgerBounds.problem(at, "entry \(id): its time") { return problem }
        let fields: [(String, Int64?)] = [
            ("requested", requested), ("cut", cut), ("cap", cap), ("used", used), ("reserve", reserve),
            ("allowance", allowance),
        ]
        for (name, value) in fields {
            if let value, !LedgerBounds.entryField.contains(value) {
                return "entry \(id): \(name) \(value)s is out of range (0 to 10 years)"
            }
        }
        switch kind {
        case .grant:
            guard let requested, let cut, amount == requested - cut, amount >= 0,
                (roundID == nil) != (contractID == nil)
            else {
                return
                    "entry \(id): a grant needs round_id or contract_id (one of them), requested and cut, with amount "
                    + "= requested - cut"
            }
        case .spend:
            guard amount < 0 else { return "entry \(id): a spend must be negative" }
        case .hold:
            guard amount < 0, passID != nil else { return "entry \(id): a hold needs pass_id and a negative amount" }
        case .settle:
            guard passID != nil, used != nil, amount >= 0 else {
                return "entry \(id): a settle needs pass_id, used and a non-negative amount"
            }
        case .emergency:
            guard amount == 0, let reserve, reserve > 0 else {
                return "entry \(id): an emergency needs a positive reserve and amount 0"
            }
        case .adjustment:
            guard amount != 0, reason != nil else { return "entry \(id): an adjustment needs a reason and an amount" }
        }
        return nil
    }
}

/// A pass that holds time and has not been settled yet.
public struct OpenPass: Sendable, Equatable, Codable {
    public var id: String
    public var holdEntryID: String
    public var heldSeconds: Int64
    public var forfeit: Bool
    public var label: String?
    public var started: Timestamp
    /// The instant it ends, from its start and hold.
    public var deadline: Timestamp
    /// Seconds used as of the last heartbeat.
    public var usedSeconds: Int64

    public init(
        id: String, holdEntryID: String, heldSeconds: Int64, forfeit: Bool, label: String?,
        started: Timestamp, deadline: Timestamp, usedSeconds: Int64
    ) {
        self.id = id
        self.holdEntryID = holdEntryID
        self.heldSeconds = heldSeconds
        self.forfeit = forfeit
        self.label = label
        self.started = started
        self.deadline = deadline
        self.usedSeconds = usedSeconds
    }

    enum CodingKeys: String, CodingKey {
        case id
        case holdEntryID = "hold_entry_id"
        case heldSeconds = "held_seconds"
        case forfeit, label, started, deadline
        case usedSeconds = "used_seconds"
    }
}

/// What `hum bank` shows.
public struct BankStatus: Sendable, Equatable {
    /// The sum of every entry's amount; negative means debt (possible only after a merge).
    public var rawBalance: Int64
    public var earnedToday: Int64
    public var dailyCap: Int64
    public var emergencyLeft: Int64
    public var emergencyWeekly: Int64
    public var openPass: OpenPass?

    public init(
        rawBalance: Int64, earnedToday: Int64, dailyCap: Int64, emergencyLeft: Int64, emergencyWeekly: Int64,
        openPass: OpenPass?
    ) {
        self.rawBalance = rawBalance
        self.earnedToday = earnedToday
        self.dailyCap = dailyCap
        self.emergencyLeft = emergencyLeft
        self.emergencyWeekly = emergencyWeekly
        self.openPass = openPass
    }

    /// The balance as shown: clamped at zero.
    public var balance: Int64 { max(0, rawBalance) }
    /// Debt (a negative raw balance), which blocks spending.
    public var debt: Int64 { max(0, rawBalance.negatedSaturating) }
}

/// Random entry, pass and round identifiers in the UUID version 4 text form.
public enum Identifier {
    public static func make<R: RandomNumberGenerator>(using rng: inout R) -> String {
        let a = rng.next()
        let b = rng.next()
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * UInt64(i)))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * UInt64(i)))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789abcdef")
        var out = ""
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append("-") }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 15)])
        }
        return out
    }
}
