import FoundationEssentials
import HumCore
import HumStore

/// `hum report [day|week|month|year] [DATE]`: focused time against the daily goal, rounds, earnings and spending,
/// tags, the best hour and the streak; in text, a bar per day and a calendar heat map of the last weeks.
struct ReportCommand: HumCommand {
    static let name = "report"
    static let abstract = "report a day, week, month or year: focus against the daily goal, streak, tags, earnings"
    static let discussion: String = """
        PERIOD is day, week (the default: Monday to Sunday), month or year, the one holding DATE (default today;
        the same words as 'hum history --since': yesterday, monday, "last week", "last month", 2025-03-01, ...).
        The daily goal is the setting focus.daily-goal (default 2h; 'hum config set focus.daily-goal 3h'): a day
        meets it when its focused time reaches it, exactly at the goal included. The streak is the number of days
        in a row, up to today, that met it, computed from the whole history: today counts once it meets the goal,
        and until then the streak is the one that ended yesterday (the day is still running). Focused time is the
        active time of focus rounds, by the day each started (interrupted ones included; a day begins at the setting
        day.starts-at, midnight by default, so with 04:00 a round at 03:59 counts for the day before); "stopped" rounds
        are the interrupted ones. With --tag, only rounds carrying every tag given are counted (the streak and
        the heat map stay those of all focus, and the ledger's spending is left out: it has no tags).
        Distracting time is how long each shield's programs ran while it was lifted (measured by the guard) plus time
        logged by hand ('hum log 20m --shield social'), by the day day.starts-at puts it in; hours logged without a
        shield ('hum log 1h --productive', '--distracting', a nudge's buttons) are shown apart and count on their
        side. How a day leaned: \(DayLean.rule).
        Achievements are computed from the whole history every time (never stored), and listed with the day each was
        earned, up to the period's end: \(Achievement.rules).
        The text shows a bar per day (per month for a year) and a heat map of the last weeks: · nothing,
        ░ ▒ ▓ up to a third, two thirds or just under the goal, █ the goal met (in the accent colour on a
        terminal, unless NO_COLOR is set).
        """
    static let examples = [
        "hum report",
        "hum report month",
        "hum report week \"last week\"",
        "hum report year --tag writing",
        "hum report day --json",
    ]
    static let period = Positional(
        "PERIOD", ValueKind<ReportPeriod>.choice("PERIOD"), required: false, help: "day, week (default), month or year")
    static let date = Positional("DATE", .date, required: false, help: "a day of the period (default today)")
    static let tag = Option(
        "tag", .words("TAG"), repeatable: true, help: "only rounds with this tag (repeatable: all of them)")
    static let format = Option.format([.text, .json])
    static let arguments: [any Declared] = [period, date, tag, format]

    let period: ReportPeriod
    let date: DateWord?
    let filter: RoundFilter
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        period = try arguments.positional(Self.period, at: 0) ?? .week
        date = try arguments.positional(Self.date, at: 1)
        filter = RoundFilter(tags: try arguments.values(Self.tag))
        json = try arguments.value(Self.format) == .json
    }

    /// The report, from the database (the goal from the settings in force).
    func report(_ db: HumDatabase, context: CommandContext) throws -> (HistoryReport, [CivilDate: Int64]) {
        let calendar = db.calendar
        let settings = try db.settings(environment: context.environment)
        for problem in settings.ignored { context.warn(problem) }
        // Days begin at day.starts-at: with 04:00, 03:59 is still yesterday's.
        let boundary = settings.dayBoundary
        let today = boundary.day(of: calendar.now())
        let anchor =
            date?.days(today: today)?.first ?? date.map {
                calendar.stamp($0.epoch(endOfDay: false, calendar: calendar)).localDate
            } ?? today
        let (first, last) = period.days(holding: anchor)
        // Two days either side: a round recorded in another time zone can bear a date of the period from there.
        let low = calendar.startOfDay(first) - 2 * 86_400
        let high = calendar.startOfDay(last.adding(days: 1)) + 2 * 86_400
        var rounds = try db.rounds(from: low, to: high)
        if !filter.isEmpty { rounds = rounds.filter(filter.keeps) }
        let entries = filter.isEmpty ? try db.entries(from: low, to: high).entries : nil
        let focus = try db.focusByDay(boundary: boundary)
        var report = HistoryReport(
            period: period, holding: anchor, today: today, goalSeconds: settings.dailyGoalSeconds, rounds: rounds,
            entries: entries, focusByDay: focus,
            skippedByZone: { calendar.startOfDay($0) == calendar.startOfDay($0.adding(days: 1)) },
            dayBoundary: boundary)
        // Distracting time per shield per day, and which way each day leaned (docs/shields.md).
        let distracting = try db.distractingDays(from: first, to: last)
        report.distracting = distracting
        // Hours logged by hand without a shield (a nudge's buttons, 'hum log 1h --productive'), on their side.
        let logged = try db.loggedHours(from: first, to: last)
        report.logged = logged
        report.balance = DayBalance.days(
            report.days.filter { $0.date <= today }, distracting: distracting, logged: logged)
        // Achievements, from the whole history, earned by the period's end (docs/rules.md).
        let history = try db.achievementHistory(goalSeconds: settings.dailyGoalSeconds)
        report.achievements = Achievements.earned(history).filter { $0.date <= last }
        return (report, focus)
    }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context, reading: true)
        let (report, focus) = try report(db, context: context)
        if json {
            var bytes = try CompactJSONEncoder().encode(report)
            bytes.append(10)
            context.stdout.write(String(decoding: bytes, as: UTF8.self))
            return ExitCode.success
        }
        let view = ReportText(
            report: report, focusByDay: focus, width: LedgerCLI.width(context), color: context.useColor,
            tags: filter.tags)
        context.stdout.write(view.text())
        return ExitCode.success
    }
}

/// The report for people: the figures, a bar per day, a heat map. Plain characters; one accent colour (the days
/// that met the goal) when colour is allowed.
struct ReportText {
    var report: HistoryReport
    var focusByDay: [CivilDate: Int64]
    var width: Int
    var color: Bool
    /// The tags the report was filtered by.
    var tags: [String]

    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let accent = "\u{1B}[36m"
    static let reset = "\u{1B}[0m"

    func accented(_ text: String) -> String { color ? ReportText.accent + text + ReportText.reset : text }

    func text() -> String {
        let f = LedgerCLI.format
        let r = report
        var out = ""
        let span = r.first == r.last ? "\(r.first)" : "\(r.first) to \(r.last)"
        out += "\(r.period.rawValue) \(r.label)" + (r.label == span ? "" : " (\(span))")
        if !tags.isEmpty { out += ", rounds tagged " + tags.map { "#" + $0.visible }.joined(separator: " ") }
        out += "\n\n"
        func row(_ name: String, _ value: String) { out += "  \(name.padding(11)) \(value)\n" }
        let goal = r.goalSeconds > 0 ? "a daily goal of \(f(r.goalSeconds))" : "no daily goal (any focus counts)"
        row(
            "focused",
            "\(f(r.focusedSeconds)); \(goal), met on \(r.daysMet) of \(r.daysElapsed) "
                + "day\(r.daysElapsed == 1 ? "" : "s")"
        )
        var rounds = "\(r.completed) completed, \(r.interrupted) stopped, \(r.skipped) skipped"
        if r.running > 0 { rounds += ", \(r.running) running" }
        row("rounds", rounds + "; \(r.breaks) break\(r.breaks == 1 ? "" : "s") (\(f(r.breakSeconds)))")
        var money = "earned \(f(r.earnedSeconds))"
        if let spent = r.spentSeconds, let emergency = r.emergencySeconds, let draws = r.emergencyDraws {
            money += ", spent \(f(spent)), emergency \(f(emergency)) (\(draws) draw\(draws == 1 ? "" : "s"))"
        }
        row("bank", money)
        var streak = "\(r.streak.current) day\(r.streak.current == 1 ? "" : "s") (longest \(r.streak.longest))"
        let todayFocus = focusByDay[r.today] ?? 0
        streak +=
            r.streak.todayMet
            ? "; today met the goal (\(f(todayFocus)))"
            : "; today \(f(todayFocus))\(r.goalSeconds > 0 ? " of \(f(r.goalSeconds))" : ""), still running"
        row("streak", streak)
        if let hour = r.bestHour {
            row("best hour", "\(pad2(hour)):00-\(pad2((hour + 1) % 24)):00 (\(f(r.bestHourSeconds)) focused)")
        }
        distraction(row)
        achievements(row)
        if !r.tags.isEmpty {
            let shown = r.tags.prefix(8)
            let tagWidth = min(20, shown.map { $0.tag.visible.count }.max() ?? 0)
            for (i, t) in shown.enumerated() {
                let text =
                    "\(LedgerCLI.fit(t.tag.visible, tagWidth)) \(LedgerCLI.rightAligned(f(t.focusedSeconds), 7)) in "
                    + "\(t.rounds) round\(t.rounds == 1 ? "" : "s")"
                row(i == 0 ? "tags" : "", text)
            }
            if r.tags.count > shown.count { row("", "and \(r.tags.count - shown.count) more") }
        }
        out += "\n" + bars() + "\n" + heatMap()
        return out
    }

    func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    /// Distracting time per shield (measured while lifted, and logged by hand), and how the days leaned.
    func distraction(_ row: (String, String) -> Void) {
        let f = LedgerCLI.format
        let days = report.distracting ?? []
        var shields: [String: (measured: Int64, logged: Int64)] = [:]
        for d in days {
            shields[d.shield, default: (0, 0)].measured += d.measuredSeconds
            shields[d.shield, default: (0, 0)].logged += d.loggedSeconds
        }
        var first = true
        for (name, time) in shields.sorted(by: { $0.key < $1.key }) {
            let logged = time.logged > 0 ? " (\(f(time.logged)) logged by hand)" : ""
            row(first ? "distracting" : "", "\(name.visible) \(f(time.measured + time.logged))\(logged)")
            first = false
        }
        if first { row("distracting", "none measured or logged") }
        let hours = report.logged ?? []
        let wentWell = hours.reduce(Int64(0)) { $0 + $1.productiveSeconds }
        let wentBadly = hours.reduce(Int64(0)) { $0 + $1.distractingSeconds }
        if wentWell + wentBadly > 0 {
            row("logged", "\(f(wentWell)) productive, \(f(wentBadly)) distracting (by hand, without a shield)")
        }
        let balance = report.balance ?? []
        let leaned = balance.filter { $0.lean != .none }
        guard !leaned.isEmpty else { return }
        let productive = leaned.filter { $0.lean == .productive }.count
        var text =
            "productive on \(productive) of \(leaned.count) day\(leaned.count == 1 ? "" : "s") with focus or distraction"
        if let today = balance.first(where: { $0.date == report.today }), today.lean != .none {
            var figures = "\(f(today.focusedSeconds)) focused, \(f(today.distractingSeconds)) distracting"
            if today.loggedProductiveSeconds + today.loggedDistractingSeconds > 0 {
                figures +=
                    "; logged \(f(today.loggedProductiveSeconds)) productive, "
                    + "\(f(today.loggedDistractingSeconds)) distracting"
            }
            text += "; today \(today.lean.rawValue) (\(figures))"
        }
        row("leaned", text)
    }

    /// The achievements earned by the period's end, with their day.
    func achievements(_ row: (String, String) -> Void) {
        let earned = report.achievements ?? []
        guard !earned.isEmpty else {
            row("achieved", "nothing yet (see 'hum report --help')")
            return
        }
        for (i, a) in earned.enumerated() {
            // The rule too where it fits the width (the help and --json always carry it).
            let line = "\(a.achievement.title) on \(a.date)"
            let ruled = line + " (\(a.achievement.rule))"
            row(i == 0 ? "achieved" : "", 14 + ruled.count <= width ? ruled : line)
        }
    }

    /// A bar per day of the period up to today (per month for a year), scaled to the longest or the goal, with
    /// the goal marked `|` where the bar does not reach it.
    func bars() -> String {
        let f = LedgerCLI.format
        var rows: [(label: String, seconds: Int64, met: Bool, goal: Int64)] = []
        if report.period == .year {
            var months = [Int64](repeating: 0, count: 12)
            for d in report.days { months[d.date.month - 1] += d.focusedSeconds }
            for m in 0..<12
            where CivilDate(year: report.first.year, month: m + 1, day: 1).map({ $0 <= report.today }) ?? false {
                let days = Int64(CivilDate.daysIn(month: m + 1, year: report.first.year))
                rows.append((ReportText.months[m], months[m], false, report.goalSeconds * days))
            }
        } else {
            for d in report.days where d.date <= report.today {
                let label = "\(HistoryTable.weekday(d.date)) \(String(d.date.description.suffix(5)))"
                rows.append((label, d.focusedSeconds, d.metGoal, report.goalSeconds))
            }
        }
        guard !rows.isEmpty else { return "  no day of this \(report.period.rawValue) has begun yet\n" }
        let labelWidth = rows.map(\.label.count).max() ?? 0
        let room = max(10, min(50, width - labelWidth - 12))
        let scale = max(1, rows.map { max($0.seconds, $0.goal) }.max() ?? 1)
        var out = ""
        for row in rows {
            let cells = Int((Double(row.seconds) / Double(scale) * Double(room)).rounded())
            let goalAt = row.goal > 0 ? Int((Double(row.goal) / Double(scale) * Double(room)).rounded()) : -1
            var bar = String(repeating: "█", count: cells)
            if row.met { bar = accented(bar) }
            var rest = ""
            if goalAt > cells {
                rest = String(repeating: " ", count: max(0, goalAt - cells - 1)) + "|"
            }
            let used = cells + rest.count
            let tail = String(repeating: " ", count: max(1, room + 1 - used))
            out +=
                "  \(row.label.padding(labelWidth)) \(bar)\(rest)\(tail)\(LedgerCLI.rightAligned(f(row.seconds), 7))\n"
        }
        return out
    }

    /// Weeks as columns (Monday to Sunday down), the last 12 up to the period's end (the whole year for a year).
    /// The map ends at today while the period runs, and at its first day while it has not begun (a period in the
    /// future shows its first week empty, never a map that ends before it starts).
    func heatMap() -> String {
        let end = max(report.first, min(report.last, report.today))
        let lastMonday = end.adding(days: -Int64(end.isoWeekday - 1))
        var weeks = 12
        var firstMonday = lastMonday.adding(days: -7 * Int64(weeks - 1))
        if report.period == .year {
            firstMonday = report.first.adding(days: -Int64(report.first.isoWeekday - 1))
            weeks = max(1, Int((lastMonday.daysSinceEpoch - firstMonday.daysSinceEpoch) / 7) + 1)
        }
        let step = 4 + weeks * 2 <= width ? 2 : 1
        var header = [Character](repeating: " ", count: 4 + weeks * step)
        var lastMonth = -1
        for w in 0..<weeks {
            let monday = firstMonday.adding(days: Int64(7 * w))
            let sunday = monday.adding(days: 6)
            let month = sunday.day <= 7 ? sunday.month : (w == 0 ? monday.month : -1)
            if month > 0, month != lastMonth {
                let name = Array(ReportText.months[month - 1])
                let at = 4 + w * step
                if at + 3 <= header.count, header[max(0, at - 1)] == " " {
                    for (i, c) in name.enumerated() { header[at + i] = c }
                    lastMonth = month
                }
            }
        }
        var out = "  " + String(header).trimmingTrailingSpaces() + "\n"
        for weekday in 0..<7 {
            var line = "  " + ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][weekday] + " "
            for w in 0..<weeks {
                let day = firstMonday.adding(days: Int64(7 * w + weekday))
                line += cell(day) + (step == 2 ? " " : "")
            }
            out += line.trimmingTrailingSpaces() + "\n"
        }
        out += "      · none  ░ ▒ ▓ toward the goal  " + accented("█") + " goal met\n"
        return out
    }

    func cell(_ day: CivilDate) -> String {
        guard day <= report.today else { return " " }
        let seconds = focusByDay[day] ?? 0
        if Streak.meets(seconds, goal: report.goalSeconds) { return accented("█") }
        guard seconds > 0 else { return "·" }
        let part = Double(seconds) / Double(max(1, report.goalSeconds))
        return part < 1.0 / 3 ? "░" : part < 2.0 / 3 ? "▒" : "▓"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
