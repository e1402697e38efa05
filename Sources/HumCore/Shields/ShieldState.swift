/// A pause of a shield on the record (`hum shield off NAME --for 1h`): from `start` to `end`, epoch seconds. `end` is
/// the time it really ends: earlier than planned when `hum shield on` ended it.
public struct ShieldOff: Sendable, Hashable, Codable {
    public var shield: String
    public var start: Int64
    public var end: Int64
    public var reason: String?
    public init(shield: String, start: Int64, end: Int64, reason: String? = nil) {
        self.shield = shield
        self.start = start
        self.end = end
        self.reason = reason
    }
}

/// A lift of a shield: a lease bought with banked time (a pass) or drawn from the reserve. It lasts from `start` to
/// `deadline` (absolute epoch seconds, stored in the ledger, so it holds whatever process dies), unless it was
/// `ended` earlier. A lift is never renewed: a new lift is a new lease.
public struct ShieldLift: Sendable, Hashable, Codable {
    public var id: String
    public var shield: String
    /// The ledger entry that paid for it (a pass's hold, an emergency draw), when one did.
    public var entryID: String?
    /// Whole seconds of the wall clock, cut down.
    public var start: Int64
    /// `start` + the seconds paid + 1: the store rounds the end up to the next whole second, so that a lift whose
    /// precise start fell inside the second `start` never ends before it was paid to (the hum that holds it ends it
    /// at the precise end).
    public var deadline: Int64
    public var ended: Int64?
    /// The seconds paid for (`deadline` without the rounding second).
    public var paidSeconds: Int64 { max(0, deadline - start - 1) }
    /// What paid for it (nil for a lift written before budgets were recorded). Only `.emergency` opens a shield a
    /// schedule locks; `.quota` counts against the shield's daily quota.
    public var budget: LiftBudget?
    public init(
        id: String, shield: String, entryID: String? = nil, start: Int64, deadline: Int64, ended: Int64? = nil,
        budget: LiftBudget? = nil
    ) {
        self.id = id
        self.shield = shield
        self.entryID = entryID
        self.start = start
        self.deadline = deadline
        self.ended = ended
        self.budget = budget
    }
}

/// Whether a shield holds its programs frozen now.
public enum ShieldStatus: Sendable, Hashable {
    /// Up: its programs are frozen.
    case up
    /// Lifted by a lease until the epoch second `until` (its programs run).
    case lifted(until: Int64, lift: String)
    /// Turned off on the record until the epoch second `until`.
    case off(until: Int64)
    /// Down in a schedule's free window until `until`: nothing is counted.
    case free(until: Int64, schedule: String)

    public var isUp: Bool { self == .up }
    /// The word for JSON and for `hum shield list`.
    public var word: String {
        switch self {
        case .up: "up"
        case .lifted: "lifted"
        case .off: "off"
        case .free: "free"
        }
    }
    public var until: Int64? {
        switch self {
        case .up: nil
        case .lifted(let until, _), .off(let until), .free(let until, _): until
        }
    }
}

/// Everything the state of the shields depends on, at one moment: the shields (with their quotas), the offs and
/// lifts, the schedules, and the zone and day boundary their wall-clock rules are read in.
public struct ShieldInputs: Sendable, Equatable {
    public var shields: [Shield]
    public var offs: [ShieldOff]
    public var lifts: [ShieldLift]
    public var schedules: [Schedule]
    /// The zone schedules and days are read in (the store hands in its calendar's).
    public var zone: any TimeZoneSeam
    /// `day.starts-at`: when a quota's day begins.
    public var dayBoundary: DayBoundary
    /// The lifts paid by a quota lately, ended or not (the last two days): what today's use is counted from.
    public var quotaLifts: [ShieldLift]
    public init(
        shields: [Shield], offs: [ShieldOff] = [], lifts: [ShieldLift] = [], schedules: [Schedule] = [],
        zone: any TimeZoneSeam = UTCZone(), dayBoundary: DayBoundary = .midnight, quotaLifts: [ShieldLift] = []
    ) {
        self.shields = shields
        self.offs = offs
        self.lifts = lifts
        self.schedules = schedules
        self.zone = zone
        self.dayBoundary = dayBoundary
        self.quotaLifts = quotaLifts
    }

    /// Equal records; the zone is a function and is not compared.
    public static func == (a: ShieldInputs, b: ShieldInputs) -> Bool {
        a.shields == b.shields && a.offs == b.offs && a.lifts == b.lifts && a.schedules == b.schedules
            && a.dayBoundary == b.dayBoundary && a.quotaLifts == b.quotaLifts
    }
}

/// The level-triggered rule: which shields are up now. Pure: the same inputs and instant give the same answer, so
/// the guard can ask it on every change and on every tick, and a dead hum's next start finds the same state.
/// Fail-closed: a shield is up unless a rule gives a reason, in force now, for it not to be.
public enum ShieldState {
    /// A reason for a shield not to be up at `now`, or nil. Rules are asked in order; the first that answers wins.
    public typealias Rule = @Sendable (_ shield: String, _ inputs: ShieldInputs, _ now: Int64) -> ShieldStatus?

    /// The rules, in order: a schedule's lock window (up, unless the emergency reserve lifted it), a schedule's free
    /// window, an off on the record, then a lift. A rule may answer `.up` to stop the later ones (a lock).
    public static let rules: [Rule] = [lockRule, freeRule, offRule, liftRule]

    /// The state of every shield at `now` (epoch seconds).
    public static func shielded(shields: [Shield], offs: [ShieldOff], lifts: [ShieldLift], now: Int64)
        -> [String: ShieldStatus]
    {
        shielded(ShieldInputs(shields: shields, offs: offs, lifts: lifts), now: now)
    }

    public static func shielded(_ inputs: ShieldInputs, now: Int64) -> [String: ShieldStatus] {
        var out: [String: ShieldStatus] = [:]
        for shield in inputs.shields {
            out[shield.name] = rules.lazy.compactMap { $0(shield.name, inputs, now) }.first ?? .up
        }
        return out
    }

    /// The first instant after `now` at which some shield's state may change (an off or a lift ends or begins, a
    /// schedule's window opens or closes):
    /// when the guard must look again even if nothing else happens. Nil when nothing is pending.
    public static func nextChange(_ inputs: ShieldInputs, after now: Int64) -> Int64? {
        var times: [Int64] = []
        for off in inputs.offs { times += [off.start, off.end] }
        for lift in inputs.lifts { times += [lift.start, lift.ended ?? lift.deadline] }
        let named = Set(inputs.shields.map(\.name))
        for schedule in inputs.schedules where schedule.shields.contains(where: named.contains) {
            if let edge = schedule.nextEdge(after: now, zone: inputs.zone) { times.append(edge) }
        }
        return times.filter { $0 > now }.min()
    }

    /// An off in force: started, not yet ended. When several are, the one that lasts longest.
    static let offRule: Rule = { name, inputs, now in
        let ends = inputs.offs.filter { $0.shield == name && $0.start <= now && now < $0.end }.map(\.end)
        return ends.max().map { .off(until: $0) }
    }

    /// A lift in force: started, its deadline not reached and not ended early. A lift that starts in the future (a
    /// clock set back) does not count: fail closed.
    static let liftRule: Rule = { name, inputs, now in
        let open = inputs.lifts.filter {
            $0.shield == name && $0.start <= now && now < min($0.deadline, $0.ended ?? Int64.max)
        }
        guard let last = open.max(by: { $0.deadline < $1.deadline }) else { return nil }
        return .lifted(until: min(last.deadline, last.ended ?? Int64.max), lift: last.id)
    }
}
