/// The span a report covers: one local day, an ISO week, a calendar month or a year.
public enum ReportPeriod: String, Sendable, CaseIterable, Codable {
    case day, week, month, year

    /// The first and last local day of the period that holds `date`.
    public func days(holding date: CivilDate) -> (first: CivilDate, last: CivilDate) {
        switch self {
        case .day: return (date, date)
        case .week:
            let monday = date.adding(days: -Int64(date.isoWeekday - 1))
            return (monday, monday.adding(days: 6))
        case .month:
            let first = CivilDate(year: date.year, month: date.month, day: 1) ?? date
            let last = CivilDate(
                year: date.year, month: date.month, day: CivilDate.daysIn(month: date.month, year: date.year))
            return (first, last ?? date)
        case .year:
            return (
                CivilDate(year: date.year, month: 1, day: 1) ?? date,
                CivilDate(year: date.year, month: 12, day: 31) ?? date
            )
        }
    }

    /// `2025-03-30`, `2025-W13`, `2025-03`, `2025`.
    public func label(_ first: CivilDate) -> String {
        switch self {
        case .day: return first.description
        case .week: return first.isoWeek.description
        case .month: return String(first.description.prefix(7))
        case .year: return String(first.description.prefix(4))
        }
    }
}

/// A day's focus: what the streak, the heat map and the bars are made of.
public struct DayFocus: Sendable, Equatable, Encodable {
    public var date: CivilDate
    /// Active seconds of focus rounds that started on that local day (any status; a running one as of its last
    /// heartbeat).
    public var focusedSeconds: Int64 = 0
    public var completed = 0
    public var interrupted = 0
    public var skipped = 0
    public var metGoal = false

    public init(date: CivilDate) { self.date = date }

    enum CodingKeys: String, CodingKey {
        case date
        case focusedSeconds = "focused_seconds"
        case completed, interrupted, skipped
        case metGoal = "met_goal"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(date.description, forKey: .date)
        try c.encode(focusedSeconds, forKey: .focusedSeconds)
        try c.encode(completed, forKey: .completed)
        try c.encode(interrupted, forKey: .interrupted)
        try c.encode(skipped, forKey: .skipped)
        try c.encode(metGoal, forKey: .metGoal)
    }
}

/// Consecutive days that met the daily goal, computed from the history.
public struct Streak: Sendable, Equatable, Encodable {
    /// Days in a row up to today: today counts once it meets the goal; until then the day is still running and the
    /// streak is the one that ended yesterday (a missed day breaks it, today does not until it is over).
    public var current: Int
    /// The longest run of such days in the whole history.
    public var longest: Int
    /// Whether today already met the goal.
    public var todayMet: Bool

    enum CodingKeys: String, CodingKey {
        case current = "current_days"
        case longest = "longest_days"
        case todayMet = "today_met"
    }

    /// A day meets the goal when its focused time reaches it (exactly at the goal counts); with no goal (0), any
    /// focused time does. `skippedByZone` tells a date the time zone skipped (it breaks nothing).
    public static func meets(_ seconds: Int64, goal: Int64) -> Bool { seconds > 0 && seconds >= goal }

    public init(
        focusByDay: [CivilDate: Int64], goal: Int64, today: CivilDate,
        skippedByZone: (CivilDate) -> Bool = { _ in false }
    ) {
        func met(_ d: CivilDate) -> Bool { Streak.meets(focusByDay[d] ?? 0, goal: goal) }
        todayMet = met(today)
        var count = 0
        var day = todayMet ? today : today.adding(days: -1)
        // Walk back over met days (and days the zone skipped); the history's first day bounds the walk.
        let earliest = focusByDay.keys.min() ?? today
        while day >= earliest {
            if met(day) {
                count += 1
            } else if !skippedByZone(day) {
                break
            }
            day = day.adding(days: -1)
        }
        current = count
        var longest = 0
        var run = 0
        var previous: CivilDate? = nil
        for d in focusByDay.keys.filter({ met($0) }).sorted() {
            if let p = previous {
                var next = p.adding(days: 1)
                while next < d && skippedByZone(next) { next = next.adding(days: 1) }
                run = next == d ? run + 1 : 1
            } else {
                run = 1
            }
            longest = max(longest, run)
            previous = d
        }
        self.longest = longest
    }
}

/// Focused time per tag.
public struct TagTotal: Sendable, Equatable, Encodable {
    public var tag: String
    public var focusedSeconds: Int64
    public var rounds: Int
    enum CodingKeys: String, CodingKey {
        case tag
        case focusedSeconds = "focused_seconds"
        case rounds
    }
}

/// `hum report`: focused time against the daily goal, rounds, earnings and spending, tags, the best hour and the
/// streak, over one period. Pure: the caller hands in the rounds and entries of the period and the focus per day of
/// the whole history.
public struct HistoryReport: Sendable, Encodable {
    public var period: ReportPeriod
    public var label: String
    public var first: CivilDate
    public var last: CivilDate
    public var today: CivilDate
    public var goalSeconds: Int64
    /// Focus rounds of the period (by the local day they started): active seconds and counts by status.
    public var focusedSeconds: Int64 = 0
    public var completed = 0
    public var interrupted = 0
    public var skipped = 0
    public var running = 0
    /// Break rounds, and their active seconds.
    public var breaks = 0
    public var breakSeconds: Int64 = 0
    /// Seconds the period's rounds earned (after the daily cap).
    public var earnedSeconds: Int64 = 0
    /// From the ledger, by the local day of each entry: spends and the used part of settled passes, and emergency
    /// draws. Nil when the report is filtered by tag (the ledger has no tags).
    public var spentSeconds: Int64? = nil
    public var emergencySeconds: Int64? = nil
    public var emergencyDraws: Int? = nil
    /// Every day of the period, future days included (with nothing).
    public var days: [DayFocus] = []
    public var tags: [TagTotal] = []
    /// The hour of the day (0–23, on the recorded local clock) with the most focused time, and that time.
    public var bestHour: Int? = nil
    public var bestHourSeconds: Int64 = 0
    public var streak: Streak
    /// Distracting time per shield per day, and each day's lean (`DayLean`), when the caller read them (ShieldUsage).
    public var distracting: [DistractingDay]? = nil
    public var balance: [DayBalance]? = nil
    /// Hours logged by hand without a shield (a nudge's buttons, `hum log 1h --productive`), per day of the period.
    public var logged: [LoggedHours]? = nil
    /// The achievements earned up to the period's last day, from the whole history (`Achievements`).
    public var achievements: [EarnedAchievement]? = nil

    /// Days of the period up to today that met the goal, and how many days of it have begun.
    public var daysMet: Int { days.filter { $0.metGoal && $0.date <= today }.count }
    public var daysElapsed: Int { days.filter { $0.date <= today }.count }

    public init(
        period: ReportPeriod, holding date: CivilDate, today: CivilDate, goalSeconds: Int64, rounds: [RoundRecord],
        entries: [LedgerEntry]?, focusByDay: [CivilDate: Int64], skippedByZone: (CivilDate) -> Bool = { _ in false },
        dayBoundary: DayBoundary = .midnight
    ) {
        self.period = period
        (first, last) = period.days(holding: date)
        label = period.label(first)
        self.today = today
        self.goalSeconds = goalSeconds
        streak = Streak(focusByDay: focusByDay, goal: goalSeconds, today: today, skippedByZone: skippedByZone)
        var byDay: [CivilDate: DayFocus] = [:]
        var tagTotals: [String: TagTotal] = [:]
        var hours = [Int64](repeating: 0, count: 24)
        for r in rounds {
            let day = dayBoundary.day(of: r.start)
            guard day >= first && day <= last else { continue }
            earnedSeconds = earnedSeconds.adding(saturating: r.earnedSeconds)
            guard r.kind == .focus else {
                breaks += 1
                breakSeconds = breakSeconds.adding(saturating: r.activeSeconds)
                continue
            }
            var d = byDay[day] ?? DayFocus(date: day)
            d.focusedSeconds = d.focusedSeconds.adding(saturating: r.activeSeconds)
            focusedSeconds = focusedSeconds.adding(saturating: r.activeSeconds)
            switch r.status {
            case .completed:
                completed += 1
                d.completed += 1
            case .interrupted:
                interrupted += 1
                d.interrupted += 1
            case .skipped:
                skipped += 1
                d.skipped += 1
            case .running: running += 1
            }
            byDay[day] = d
            for tag in Set(r.tags) {
                var t = tagTotals[tag] ?? TagTotal(tag: tag, focusedSeconds: 0, rounds: 0)
                t.focusedSeconds = t.focusedSeconds.adding(saturating: r.activeSeconds)
                t.rounds += 1
                tagTotals[tag] = t
            }
            // The active time, laid from the start on the recorded clock, hour by hour.
            var second = r.start.localSecondOfDay
            var left = max(0, min(r.activeSeconds, 366 * 86_400))
            while left > 0 {
                let take = min(left, 3600 - second % 3600)
                hours[Int(second / 3600 % 24)] += take
                left -= take
                second = (second + take) % 86_400
            }
        }
        var day = first
        while day <= last {
            var d = byDay[day] ?? DayFocus(date: day)
            d.metGoal = Streak.meets(d.focusedSeconds, goal: goalSeconds)
            days.append(d)
            day = day.adding(days: 1)
        }
        tags = tagTotals.values.sorted { ($0.focusedSeconds, $1.tag) > ($1.focusedSeconds, $0.tag) }
        if let best = hours.indices.max(by: { (hours[$0], $1) < (hours[$1], $0) }), hours[best] > 0 {
            bestHour = best
            bestHourSeconds = hours[best]
        }
        if let entries {
            var spent: Int64 = 0
            var emergency: Int64 = 0
            var draws = 0
            for e in entries where (first...last).contains(dayBoundary.day(of: e.at)) {
                switch e.kind {
                case .spend: spent = spent.subtracting(saturating: e.amount)
                case .settle: spent = spent.adding(saturating: e.used ?? 0)
                case .emergency:
                    emergency = emergency.adding(saturating: e.reserve ?? 0)
                    draws += 1
                case .grant, .hold, .adjustment: break
                }
            }
            spentSeconds = spent
            emergencySeconds = emergency
            emergencyDraws = draws
        }
    }

    enum CodingKeys: String, CodingKey {
        case period, label, first, last, today
        case goalSeconds = "goal_seconds"
        case focusedSeconds = "focused_seconds"
        case completed, interrupted, skipped, running, breaks
        case breakSeconds = "break_seconds"
        case earnedSeconds = "earned_seconds"
        case spentSeconds = "spent_seconds"
        case emergencySeconds = "emergency_seconds"
        case emergencyDraws = "emergency_draws"
        case daysMet = "days_met_goal"
        case daysElapsed = "days_elapsed"
        case days, tags
        case bestHour = "best_hour"
        case bestHourSeconds = "best_hour_seconds"
        case streak, distracting, balance, logged, achievements
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(period, forKey: .period)
        try c.encode(label, forKey: .label)
        try c.encode(first.description, forKey: .first)
        try c.encode(last.description, forKey: .last)
        try c.encode(today.description, forKey: .today)
        try c.encode(goalSeconds, forKey: .goalSeconds)
        try c.encode(focusedSeconds, forKey: .focusedSeconds)
        try c.encode(completed, forKey: .completed)
        try c.encode(interrupted, forKey: .interrupted)
        try c.encode(skipped, forKey: .skipped)
        try c.encode(running, forKey: .running)
        try c.encode(breaks, forKey: .breaks)
        try c.encode(breakSeconds, forKey: .breakSeconds)
        try c.encode(earnedSeconds, forKey: .earnedSeconds)
        try c.encodeIfPresent(spentSeconds, forKey: .spentSeconds)
        try c.encodeIfPresent(emergencySeconds, forKey: .emergencySeconds)
        try c.encodeIfPresent(emergencyDraws, forKey: .emergencyDraws)
        try c.encode(daysMet, forKey: .daysMet)
        try c.encode(daysElapsed, forKey: .daysElapsed)
        try c.encode(days, forKey: .days)
        try c.encode(tags, forKey: .tags)
        try c.encode(bestHour, forKey: .bestHour)
        try c.encode(bestHourSeconds, forKey: .bestHourSeconds)
        try c.encode(streak, forKey: .streak)
        try c.encodeIfPresent(distracting, forKey: .distracting)
        try c.encodeIfPresent(balance, forKey: .balance)
        try c.encodeIfPresent(logged, forKey: .logged)
        try c.encodeIfPresent(achievements, forKey: .achievements)
    }
}

/// Which rounds a listing or a report keeps: every tag given (a round must carry them all), and a goal holding the
/// text given (any case).
public struct RoundFilter: Sendable, Equatable {
    public var tags: [String]
    public var goal: String?

    public init(tags: [String] = [], goal: String? = nil) {
        self.tags = tags
        self.goal = goal
    }

    /// True when nothing is filtered.
    public var isEmpty: Bool { tags.isEmpty && goal == nil }

    public func keeps(_ round: RoundRecord) -> Bool {
        for tag in tags where !round.tags.contains(tag) { return false }
        if let goal {
            guard let text = round.goal, text.lowercased().contains(goal.lowercased()) else { return false }
        }
        return true
    }
}
