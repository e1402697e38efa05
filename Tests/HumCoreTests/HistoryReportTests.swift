import HumTestSupport
import Testing

@testable import HumCore

/// A month of history (March 2025) across the spring change of Europe/Paris and a week in New York, reported on.
@Suite struct HistoryReportTests {
    /// Paris (+01:00, +02:00 from 2025-03-30T01:00Z), with a trip to New York (-04:00) from 2025-03-10T12:00Z to
    /// 2025-03-15T12:00Z.
    static let zone = TransitionZone(
        initial: 3600,
        transitions: [
            (epoch: 1_741_608_000, offset: -14_400), (epoch: 1_742_040_000, offset: 3600),
            (epoch: 1_743_296_400, offset: 7200),
        ])

    static func day(_ text: String) -> CivilDate { CivilDate(text: text)! }

    /// A round at a local date and time in the zone in force then.
    static func round(
        _ id: String, _ date: String, _ hour: Int, _ minute: Int = 0, active: Int64 = 1500,
        status: RoundStatus = .completed, kind: RoundKind = .focus, tags: [String] = [], goal: String? = nil
    ) -> RoundRecord {
        let calendar = LocalCalendar(clock: ManualClock(0), zone: zone)
        let start = calendar.startOfDay(day(date)) + Int64(hour * 3600 + minute * 60)
        let end = status == .running ? nil : calendar.stamp(start + active)
        return RoundRecord(
            id: id, kind: kind, status: status, start: calendar.stamp(start), end: end, plannedSeconds: 1500,
            activeSeconds: active, pausedSeconds: 0, goal: goal, tags: tags,
            earnedSeconds: status == .completed && kind == .focus ? active / 3 : 0)
    }

    /// Every day from the 1st to the 31st has rounds that meet a 2h goal, except the 5th and the 20th (missed); the
    /// 12th
    /// (in New York) has exactly the goal (2h = four 30-minute rounds); the 30th (the spring change) has rounds
    /// either side of the jump; the 31st is today, still running.
    static func fixture() -> [RoundRecord] {
        var rounds: [RoundRecord] = []
        for d in 1...31 where d != 5 && d != 20 {
            let date = "2025-03-" + (d < 10 ? "0\(d)" : "\(d)")
            switch d {
            case 12:
                for i in 0..<4 { rounds.append(round("r\(d)-\(i)", date, 9 + i, active: 1800, tags: ["ny"])) }
            case 30:
                rounds.append(round("r30-a", date, 0, 30, active: 3600, tags: ["dst"]))  // 00:30+01:00
                rounds.append(round("r30-b", date, 2, 30, active: 3600, tags: ["dst"]))  // 03:30+02:00
                rounds.append(round("r30-c", date, 3, 0, active: 1200, status: .interrupted))
            case 31:
                rounds.append(round("r31-a", date, 8, active: 1500, tags: ["writing"]))
                rounds.append(round("r31-b", date, 9, active: 600, status: .running))
            default:
                // 1h35m from 09:00, then 25m or 1h from 13:00: at least the goal.
                rounds.append(round("r\(d)-0", date, 9, active: 5700, tags: ["writing"], goal: "chapter \(d)"))
                rounds.append(
                    round("r\(d)-1", date, 13, active: d % 3 == 0 ? 3600 : 1500, tags: d % 2 == 0 ? ["code"] : []))
                rounds.append(round("r\(d)-b", date, 15, active: 300, kind: .shortBreak))
                if d % 7 == 0 { rounds.append(round("r\(d)-s", date, 16, active: 100, status: .skipped)) }
            }
        }
        return rounds
    }

    static func byDay(_ rounds: [RoundRecord]) -> [CivilDate: Int64] {
        var out: [CivilDate: Int64] = [:]
        for r in rounds where r.kind == .focus { out[r.start.localDate, default: 0] += r.activeSeconds }
        return out
    }

    @Test func theFixtureCrossesTheSpringChangeAndATrip() {
        let rounds = Self.fixture()
        let dst = rounds.filter { $0.tags == ["dst"] }
        #expect(dst.map(\.start.rfc3339) == ["2025-03-30T00:30:00+01:00", "2025-03-30T03:30:00+02:00"])
        #expect(rounds.first { $0.id == "r12-0" }?.start.rfc3339 == "2025-03-12T09:00:00-04:00")
    }

    @Test func totalsAreTheSumsOfTheRounds() {
        let rounds = Self.fixture()
        let report = HistoryReport(
            period: .month, holding: Self.day("2025-03-17"), today: Self.day("2025-03-31"), goalSeconds: 7200,
            rounds: rounds, entries: [], focusByDay: Self.byDay(rounds))
        let focus = rounds.filter { $0.kind == .focus }
        #expect(report.focusedSeconds == focus.map(\.activeSeconds).reduce(0, +))
        #expect(report.completed == focus.filter { $0.status == .completed }.count)
        #expect(report.interrupted == 1 && report.running == 1)
        #expect(report.skipped == focus.filter { $0.status == .skipped }.count && report.skipped == 4)
        #expect(report.earnedSeconds == rounds.map(\.earnedSeconds).reduce(0, +))
        #expect(report.breaks == rounds.filter { $0.kind != .focus }.count)
        #expect(report.days.count == 31 && report.days.map(\.focusedSeconds).reduce(0, +) == report.focusedSeconds)
        #expect(report.label == "2025-03" && report.daysElapsed == 31)
        // The 30th has 23 hours: its rounds either side of the jump are on one day.
        #expect(report.days[29].focusedSeconds == 3600 + 3600 + 1200)
        // Tags: a round counts once per tag it carries.
        let writing = report.tags.first { $0.tag == "writing" }
        #expect(writing?.rounds == focus.filter { $0.tags.contains("writing") }.count)
        #expect(report.tags.first?.tag == "writing")
        // Best hour: 09:00 on the recorded clock, New York and Paris alike.
        #expect(report.bestHour == 9)
        // Outside the month: nothing of it counts.
        let april = HistoryReport(
            period: .month, holding: Self.day("2025-04-01"), today: Self.day("2025-04-01"), goalSeconds: 7200,
            rounds: rounds, entries: nil, focusByDay: Self.byDay(rounds))
        #expect(april.focusedSeconds == 0 && april.spentSeconds == nil && april.days.count == 30)
    }

    @Test func theStreakCountsDaysAtTheGoalAndWaitsForToday() {
        let rounds = Self.fixture()
        let days = Self.byDay(rounds)
        // The 12th has exactly the goal: it meets it. The 20th was missed: the streak up to the 30th starts on the
        // 21st. The 31st is still running below the goal: the streak is the one that ended on the 30th.
        #expect(days[Self.day("2025-03-12")] == 7200)
        var streak = Streak(focusByDay: days, goal: 7200, today: Self.day("2025-03-31"))
        #expect(!streak.todayMet)
        #expect(streak.current == 10)  // 21st … 30th
        #expect(streak.longest == 14)  // 6th … 19th, the 12th included
        // Today reaching the goal counts at once.
        var more = days
        more[Self.day("2025-03-31"), default: 0] += 7200
        streak = Streak(focusByDay: more, goal: 7200, today: Self.day("2025-03-31"))
        #expect(streak.todayMet && streak.current == 11)
        // One second under the goal on the 12th breaks the run there.
        var under = days
        under[Self.day("2025-03-12")] = 7199
        #expect(Streak(focusByDay: under, goal: 7200, today: Self.day("2025-03-31")).longest == 10)
        // A day missed yesterday: nothing in a row (today still running).
        #expect(Streak(focusByDay: days, goal: 7200, today: Self.day("2025-04-02")).current == 0)
        // A date the zone skipped breaks nothing.
        let skipped = Streak(
            focusByDay: days, goal: 7200, today: Self.day("2025-03-25"), skippedByZone: { $0 == Self.day("2025-03-20") }
        )
        #expect(skipped.current == 5 + 14)  // 25th … 21st, (20th), 19th … 6th
        #expect(Streak(focusByDay: days, goal: 7200, today: Self.day("2025-03-25")).current == 5)
        // Without a goal, any focused time counts.
        #expect(Streak(focusByDay: days, goal: 0, today: Self.day("2025-03-31")).current == 11)
    }

    @Test func periodsAndTheirDays() {
        let d = Self.day("2025-03-30")  // a Sunday
        #expect(ReportPeriod.week.days(holding: d) == (Self.day("2025-03-24"), d))
        #expect(ReportPeriod.week.label(Self.day("2025-03-24")) == "2025-W13")
        #expect(ReportPeriod.month.days(holding: Self.day("2024-02-10")).last == Self.day("2024-02-29"))
        #expect(ReportPeriod.year.days(holding: d) == (Self.day("2025-01-01"), Self.day("2025-12-31")))
        #expect(ReportPeriod.day.days(holding: d) == (d, d))
    }

    @Test func theLedgerCountsByTheDayOfEachEntry() {
        func entry(_ kind: EntryKind, _ amount: Int64, at: String) -> LedgerEntry {
            var e = LedgerEntry(
                id: at, key: nil, kind: kind, amount: amount, at: Timestamp(rfc3339: at)!, device: "d", payload: "")
            if kind == .settle { e.used = 600 }
            if kind == .emergency { e.reserve = 120 }
            return e
        }
        let entries = [
            entry(.spend, -300, at: "2025-03-03T10:00:00+01:00"), entry(.settle, 0, at: "2025-03-31T23:59:59+02:00"),
            entry(.emergency, 0, at: "2025-03-12T22:00:00-04:00"), entry(.spend, -60, at: "2025-04-01T00:00:00+02:00"),
            entry(.grant, 500, at: "2025-03-03T10:00:00+01:00"),
        ]
        let report = HistoryReport(
            period: .month, holding: Self.day("2025-03-01"), today: Self.day("2025-03-31"), goalSeconds: 0, rounds: [],
            entries: entries, focusByDay: [:])
        #expect(report.spentSeconds == 900 && report.emergencySeconds == 120 && report.emergencyDraws == 1)
    }

    @Test func filtersKeepRoundsWithEveryTagAndTheGoalText() {
        let rounds = Self.fixture()
        let both = RoundFilter(tags: ["writing"], goal: "CHAPTER 1")
        let kept = rounds.filter(both.keeps)
        #expect(
            Set(kept.map(\.id)) == [
                "r1-0", "r10-0", "r11-0", "r13-0", "r14-0", "r15-0", "r16-0", "r17-0", "r18-0", "r19-0",
            ])
        #expect(rounds.filter(RoundFilter(tags: ["writing", "code"]).keeps).isEmpty)
        #expect(RoundFilter().isEmpty && rounds.filter(RoundFilter().keeps).count == rounds.count)
    }
}
