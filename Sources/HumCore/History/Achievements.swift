/// A milestone of the history (docs/rules.md, "Achievements"). Never stored: each is computed from the rounds, the
/// contracts and the shields' distracting time every time it is asked for, so it cannot drift from the history.
public enum Achievement: String, Sendable, CaseIterable, Codable {
    case firstRound = "first-round"
    case firstGoal = "first-goal"
    case streak7 = "streak-7"
    case streak30 = "streak-30"
    case rounds100 = "rounds-100"
    case rounds500 = "rounds-500"
    case hours100 = "hours-100"
    case contracts10 = "contracts-10"
    case weekUnderQuota = "week-under-quota"

    /// What it is called.
    public var title: String {
        switch self {
        case .firstRound: "First round"
        case .firstGoal: "Goal met"
        case .streak7: "A week in a row"
        case .streak30: "A month in a row"
        case .rounds100: "100 rounds"
        case .rounds500: "500 rounds"
        case .hours100: "100 hours"
        case .contracts10: "10 contracts kept"
        case .weekUnderQuota: "A week under the quota"
        }
    }

    /// What earns it, in one line (`hum report --help`, docs/rules.md).
    public var rule: String {
        switch self {
        case .firstRound: "a first focus round completed"
        case .firstGoal: "a first day that met the daily goal"
        case .streak7: "7 days in a row that met the daily goal"
        case .streak30: "30 days in a row that met the daily goal"
        case .rounds100: "100 focus rounds completed"
        case .rounds500: "500 focus rounds completed"
        case .hours100: "100 hours of focus in all"
        case .contracts10: "10 contracts whose proof was approved"
        case .weekUnderQuota:
            "a whole week (Monday to Sunday, over) in which no shield with a quota had more distracting time on a "
                + "day than its quota of that day"
        }
    }

    /// Every achievement and its rule, one per line, for the help.
    public static var rules: String {
        allCases.map { "\($0.rawValue): \($0.rule)" }.joined(separator: "; ")
    }
}

/// An achievement earned, and the day it was (by `day.starts-at`).
public struct EarnedAchievement: Sendable, Equatable, Encodable {
    public var achievement: Achievement
    public var date: CivilDate

    public init(_ achievement: Achievement, date: CivilDate) {
        self.achievement = achievement
        self.date = date
    }

    enum CodingKeys: String, CodingKey { case id, title, rule, date }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(achievement.rawValue, forKey: .id)
        try c.encode(achievement.title, forKey: .title)
        try c.encode(achievement.rule, forKey: .rule)
        try c.encode(date.description, forKey: .date)
    }
}

/// What achievements are computed from: the history as the ledger holds it, the settings in force and today.
public struct AchievementHistory {
    /// Every round (breaks are left out by the rules).
    public var rounds: [RoundRecord]
    /// When each approved contract's proof was approved.
    public var approvals: [Timestamp]
    /// The shields with a quota now, by name.
    public var quotas: [String: ShieldQuota]
    /// Distracting time per shield per day (measured and logged).
    public var distracting: [DistractingDay]
    /// The daily goal (`focus.daily-goal`), as the streak reads it.
    public var goalSeconds: Int64
    public var boundary: DayBoundary
    /// Today by `boundary`: a week under the quota must be over.
    public var today: CivilDate
    /// Dates the time zone skipped: they break no streak (as `Streak`).
    public var skippedByZone: (CivilDate) -> Bool

    public init(
        rounds: [RoundRecord], approvals: [Timestamp] = [], quotas: [String: ShieldQuota] = [:],
        distracting: [DistractingDay] = [], goalSeconds: Int64, boundary: DayBoundary = .midnight, today: CivilDate,
        skippedByZone: @escaping (CivilDate) -> Bool = { _ in false }
    ) {
        self.rounds = rounds
        self.approvals = approvals
        self.quotas = quotas
        self.distracting = distracting
        self.goalSeconds = goalSeconds
        self.boundary = boundary
        self.today = today
        self.skippedByZone = skippedByZone
    }
}

/// The rules that compute achievements from the history.
public enum Achievements {
    /// Every achievement the history holds, each with the day it was earned, in the order of `Achievement`.
    public static func earned(_ history: AchievementHistory) -> [EarnedAchievement] {
        var out: [EarnedAchievement] = []
        let b = history.boundary
        // Focus rounds in the order they started (the id breaks ties, so the same history gives the same days).
        let focus = history.rounds.filter { $0.kind == .focus }.sorted {
            ($0.start.epochSeconds, $0.id) < ($1.start.epochSeconds, $1.id)
        }
        let completed = focus.filter { $0.status == .completed }
        if let first = completed.first { out.append(.init(.firstRound, date: b.day(of: first.start))) }
        // Days that met the goal, as the streak reads them: a day's focused time of every focus round.
        var byDay: [CivilDate: Int64] = [:]
        for r in focus { byDay[b.day(of: r.start), default: 0] += r.activeSeconds }
        let met = byDay.filter { Streak.meets($0.value, goal: history.goalSeconds) }.keys.sorted()
        if let first = met.first { out.append(.init(.firstGoal, date: first)) }
        for (achievement, length) in [(Achievement.streak7, 7), (.streak30, 30)] {
            if let day = firstRun(of: length, in: met, skipped: history.skippedByZone) {
                out.append(.init(achievement, date: day))
            }
        }
        for (achievement, count) in [(Achievement.rounds100, 100), (.rounds500, 500)] where completed.count >= count {
            out.append(.init(achievement, date: b.day(of: completed[count - 1].start)))
        }
        var total: Int64 = 0
        for r in focus {
            total = total.adding(saturating: r.activeSeconds)
            if total >= 100 * 3600 {
                out.append(.init(.hours100, date: b.day(of: r.start)))
                break
            }
        }
        let approvals = history.approvals.sorted { $0.epochSeconds < $1.epochSeconds }
        if approvals.count >= 10 { out.append(.init(.contracts10, date: b.day(of: approvals[9]))) }
        if let sunday = firstWeekUnderQuota(history) { out.append(.init(.weekUnderQuota, date: sunday)) }
        return out
    }

    /// The achievements the round `roundID` earned: those the history holds with it and not without it. Nothing is
    /// stored: a player that restarts computes the same, and a round earns an achievement once.
    public static func earned(by roundID: String, in history: AchievementHistory) -> [Achievement] {
        let after = Set(earned(history).map(\.achievement))
        var before = history
        before.rounds.removeAll { $0.id == roundID }
        let had = Set(earned(before).map(\.achievement))
        return Achievement.allCases.filter { after.contains($0) && !had.contains($0) }
    }

    /// The last day of the first run of `length` met days in a row (`met` sorted; skipped dates break nothing).
    static func firstRun(of length: Int, in met: [CivilDate], skipped: (CivilDate) -> Bool) -> CivilDate? {
        var run = 0
        var previous: CivilDate?
        for d in met {
            if let p = previous {
                var next = p.adding(days: 1)
                while next < d && skipped(next) { next = next.adding(days: 1) }
                run = next == d ? run + 1 : 1
            } else {
                run = 1
            }
            if run >= length { return d }
            previous = d
        }
        return nil
    }

    /// The Sunday of the first whole week, over before today, that began on or after the day a quota was set, in
    /// which every shield whose quota was set by its Monday stayed within that quota each day (distracting time,
    /// measured and logged, at most the quota of the day: the quota shrinks by its own weeks).
    static func firstWeekUnderQuota(_ history: AchievementHistory) -> CivilDate? {
        let b = history.boundary
        let since = history.quotas.mapValues { b.day(of: $0.since) }
        guard let earliest = since.values.min() else { return nil }
        var used: [String: [CivilDate: Int64]] = [:]
        for d in history.distracting { used[d.shield, default: [:]][d.date, default: 0] += d.seconds }
        // The first Monday on or after the earliest quota's day.
        var monday = earliest.adding(days: Int64((8 - earliest.isoWeekday) % 7))
        while monday.adding(days: 6) < history.today {
            let held = history.quotas.filter { since[$0.key]! <= monday }
            let kept = held.allSatisfy { name, quota in
                (0..<7).allSatisfy { i in
                    let day = monday.adding(days: Int64(i))
                    let week = Int((day.daysSinceEpoch - since[name]!.daysSinceEpoch) / 7)
                    return (used[name]?[day] ?? 0) <= quota.seconds(inWeek: week)
                }
            }
            if !held.isEmpty, kept { return monday.adding(days: 6) }
            monday = monday.adding(days: 7)
        }
        return nil
    }
}
