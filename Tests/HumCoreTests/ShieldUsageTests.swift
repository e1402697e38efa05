import HumCore
import Testing

@Suite struct ShieldUsageTests {
    @Test func theMeterCountsTheTimeFromALookWhereTheProgramsRan() {
        var meter = ShieldUsageMeter()
        #expect(meter.observe(at: 10, running: ["games"]).isEmpty, "the first look has nothing before it")
        #expect(meter.observe(at: 11, running: ["games", "social"]) == ["games": 1])
        #expect(meter.observe(at: 12.5, running: []) == ["games": 1.5, "social": 1.5])
        #expect(meter.observe(at: 13.5, running: ["games"]).isEmpty, "nothing ran between 12.5 and 13.5")
        // A gap longer than the longest is counted as the longest.
        #expect(meter.observe(at: 100, running: []) == ["games": ShieldUsageMeter.longestGap])
        meter.reset()
        #expect(meter.observe(at: 101, running: []).isEmpty)
        // A clock that did not move adds nothing.
        _ = meter.observe(at: 102, running: ["games"])
        #expect(meter.observe(at: 102, running: ["games"]).isEmpty)
    }

    @Test func aDayLeansProductiveWhenFocusIsAtLeastTheDistraction() {
        #expect(DayLean(focusedSeconds: 0, distractingSeconds: 0) == .none)
        #expect(DayLean(focusedSeconds: 3600, distractingSeconds: 3600) == .productive, "a tie leans productive")
        #expect(DayLean(focusedSeconds: 3600, distractingSeconds: 0) == .productive)
        #expect(DayLean(focusedSeconds: 3599, distractingSeconds: 3600) == .distracted)
        #expect(DayLean(focusedSeconds: 0, distractingSeconds: 1) == .distracted)
    }

    @Test func aDaysBalanceAddsEveryShieldsMeasuredAndLoggedTime() throws {
        let day = try #require(CivilDate(year: 2026, month: 12, day: 2))
        var focus = DayFocus(date: day)
        focus.focusedSeconds = 1800
        let balance = DayBalance.days(
            [focus],
            distracting: [
                DistractingDay(shield: "games", date: day, measuredSeconds: 600, loggedSeconds: 600),
                DistractingDay(shield: "social", date: day, loggedSeconds: 601),
                DistractingDay(shield: "games", date: day.adding(days: 1), measuredSeconds: 9999),
            ])
        #expect(balance.count == 1)
        #expect(balance.first?.distractingSeconds == 1801 && balance.first?.lean == .distracted)
    }
}
