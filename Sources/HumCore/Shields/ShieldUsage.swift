/// How long a shield's programs ran while it was lifted, measured by the guard: at every look, the shields that are
/// lifted and have a matching program that runs (not stopped); the time to the next look is counted for those. Pure:
/// the guard hands in its monotonic clock and what it saw.
public struct ShieldUsageMeter: Sendable, Equatable {
    /// The longest time between two looks that is counted whole: a longer gap (the loop stalled, the meter was not
    /// reset) counts as this much.
    public static let longestGap: Double = 5

    private var last: (at: Double, running: Set<String>)?

    public init() {}

    /// What `running` (the lifted shields with a program running now) adds, given the look before: each shield that
    /// ran at the look before is counted from it to `now`.
    public mutating func observe(at now: Double, running: Set<String>) -> [String: Double] {
        defer { last = (now, running) }
        guard let last, now > last.at, !last.running.isEmpty else { return [:] }
        let gap = min(now - last.at, Self.longestGap)
        var out: [String: Double] = [:]
        for name in last.running { out[name] = gap }
        return out
    }

    /// Forgets the last look (nothing is measured until the next two).
    public mutating func reset() { last = nil }

    public static func == (a: ShieldUsageMeter, b: ShieldUsageMeter) -> Bool {
        a.last?.at == b.last?.at && a.last?.running == b.last?.running
    }
}

/// Distracting time of one shield on one day (by `day.starts-at`): measured by the guard while the shield was lifted,
/// and logged by hand (`hum log 20m --shield social`, time spent elsewhere, such as on a phone).
public struct DistractingDay: Sendable, Equatable, Encodable {
    public var shield: String
    public var date: CivilDate
    public var measuredSeconds: Int64
    public var loggedSeconds: Int64
    public var seconds: Int64 { measuredSeconds + loggedSeconds }

    public init(shield: String, date: CivilDate, measuredSeconds: Int64 = 0, loggedSeconds: Int64 = 0) {
        self.shield = shield
        self.date = date
        self.measuredSeconds = measuredSeconds
        self.loggedSeconds = loggedSeconds
    }

    enum CodingKeys: String, CodingKey {
        case shield, date, seconds
        case measuredSeconds = "measured_seconds"
        case loggedSeconds = "logged_seconds"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(shield, forKey: .shield)
        try c.encode(date.description, forKey: .date)
        try c.encode(seconds, forKey: .seconds)
        try c.encode(measuredSeconds, forKey: .measuredSeconds)
        try c.encode(loggedSeconds, forKey: .loggedSeconds)
    }
}

/// Whether a day leaned productive: its focused time against its distracting time (every shield's, measured and
/// logged). The rule, as the help says it: a day **leaned productive** when it has focus and its focused time is at
/// least its distracting time; it **leaned distracted** when its distracting time is more than its focused time; a day
/// with neither has no lean.
public enum DayLean: String, Sendable, Equatable, Encodable {
    case productive
    case distracted
    case none

    public init(focusedSeconds: Int64, distractingSeconds: Int64) {
        if focusedSeconds <= 0 && distractingSeconds <= 0 {
            self = .none
        } else if focusedSeconds >= distractingSeconds {
            self = .productive
        } else {
            self = .distracted
        }
    }

    /// The rule in one sentence, for the help and the report.
    public static let rule =
        "a day leaned productive when its focused time (with hours logged productive) is at least its distracting "
        + "time (every shield's, measured and logged, with hours logged distracting), distracted when the distracting "
        + "time is more; a day with neither has no lean"
}

/// One day of a report: its focused and distracting time, and which way it leaned (`DayLean`).
public struct DayBalance: Sendable, Equatable, Encodable {
    public var date: CivilDate
    /// The focus rounds' active time.
    public var focusedSeconds: Int64
    /// Every shield's distracting time, measured and logged with `--shield`.
    public var distractingSeconds: Int64
    /// Hours logged by hand without a shield (a nudge's button, `hum log 1h --productive|--distracting`).
    public var loggedProductiveSeconds: Int64 = 0
    public var loggedDistractingSeconds: Int64 = 0
    public var lean: DayLean {
        DayLean(
            focusedSeconds: focusedSeconds.adding(saturating: loggedProductiveSeconds),
            distractingSeconds: distractingSeconds.adding(saturating: loggedDistractingSeconds))
    }

    public init(
        date: CivilDate, focusedSeconds: Int64, distractingSeconds: Int64, loggedProductiveSeconds: Int64 = 0,
        loggedDistractingSeconds: Int64 = 0
    ) {
        self.date = date
        self.focusedSeconds = focusedSeconds
        self.distractingSeconds = distractingSeconds
        self.loggedProductiveSeconds = loggedProductiveSeconds
        self.loggedDistractingSeconds = loggedDistractingSeconds
    }

    /// The days of `days` (the report's), with the distracting time of `distracting` and the hours of `logged` on
    /// each.
    public static func days(
        _ days: [DayFocus], distracting: [DistractingDay], logged: [LoggedHours] = []
    ) -> [DayBalance] {
        var byDay: [CivilDate: Int64] = [:]
        for d in distracting { byDay[d.date, default: 0] += d.seconds }
        var hours: [CivilDate: LoggedHours] = [:]
        for h in logged { hours[h.date] = h }
        return days.map {
            DayBalance(
                date: $0.date, focusedSeconds: $0.focusedSeconds, distractingSeconds: byDay[$0.date] ?? 0,
                loggedProductiveSeconds: hours[$0.date]?.productiveSeconds ?? 0,
                loggedDistractingSeconds: hours[$0.date]?.distractingSeconds ?? 0)
        }
    }

    enum CodingKeys: String, CodingKey {
        case date, lean
        case focusedSeconds = "focused_seconds"
        case distractingSeconds = "distracting_seconds"
        case loggedProductiveSeconds = "logged_productive_seconds"
        case loggedDistractingSeconds = "logged_distracting_seconds"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(date.description, forKey: .date)
        try c.encode(focusedSeconds, forKey: .focusedSeconds)
        try c.encode(distractingSeconds, forKey: .distractingSeconds)
        try c.encode(loggedProductiveSeconds, forKey: .loggedProductiveSeconds)
        try c.encode(loggedDistractingSeconds, forKey: .loggedDistractingSeconds)
        try c.encode(lean, forKey: .lean)
    }
}

/// Hours logged by hand on one day (by `day.starts-at`), without a shield: how a stretch of time went, from a
/// nudge's button or `hum log 1h --productive|--distracting`.
public struct LoggedHours: Sendable, Equatable, Encodable {
    public var date: CivilDate
    public var productiveSeconds: Int64
    public var distractingSeconds: Int64
    public var seconds: Int64 { productiveSeconds + distractingSeconds }

    public init(date: CivilDate, productiveSeconds: Int64 = 0, distractingSeconds: Int64 = 0) {
        self.date = date
        self.productiveSeconds = productiveSeconds
        self.distractingSeconds = distractingSeconds
    }

    enum CodingKeys: String, CodingKey {
        case date
        case productiveSeconds = "productive_seconds"
        case distractingSeconds = "distracting_seconds"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(date.description, forKey: .date)
        try c.encode(productiveSeconds, forKey: .productiveSeconds)
        try c.encode(distractingSeconds, forKey: .distractingSeconds)
    }
}

extension ShieldStatus {
    /// Lifted by a pass or an emergency: the state in which the guard measures how long the shield's programs run.
    public var isLifted: Bool {
        if case .lifted = self { return true }
        return false
    }
}
