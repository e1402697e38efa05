import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumStore

/// Distracting time in the ledger (migration "shield-usage"): the guard's measurement added per shield and day,
/// hand logs kept apart, days by `day.starts-at`, at most 24 h a day for a shield.
@Suite struct ShieldUsageStoreTests {
    let t0: Int64 = 1_743_000_000  // 2025-03-26 14:40 UTC, 15:40 in the zone of `open`

    @Test func measuredTimeIsAddedAndLoggedTimeKeptApart() throws {
        let dir = TempDirectory()
        let clock = ManualClock(t0)
        let db = try open(dir, clock: clock)
        _ = try db.addShield(name: "games", targets: [.app("steam")])
        _ = try db.addShield(name: "social", targets: [.app("telegram-desktop")])
        let today = try db.usageToday()
        #expect(today == CivilDate(year: 2025, month: 3, day: 26))
        try db.addMeasuredUsage([("games", today, 30), ("social", today, 0)])
        try db.addMeasuredUsage([("games", today, 12), ("games", today.adding(days: -1), 5)])
        let logged = try db.logUsage(shield: "games", seconds: 1200)
        #expect(logged == DistractingDay(shield: "games", date: today, measuredSeconds: 42, loggedSeconds: 1200))
        _ = try db.logUsage(shield: "games", seconds: 60)
        #expect(
            try db.distractingDays(from: today.adding(days: -1), to: today) == [
                DistractingDay(shield: "games", date: today.adding(days: -1), measuredSeconds: 5),
                DistractingDay(shield: "games", date: today, measuredSeconds: 42, loggedSeconds: 1260),
            ])
        #expect(try db.db.scalarInt("SELECT COUNT(*) FROM shield_usage WHERE source = 'logged'") == 2)
        // More than a day's 24 h for a shield is refused, and nothing is written.
        #expect(throws: UsageLogRefusal.self) { try db.logUsage(shield: "games", seconds: 86_400 - 1301) }
        #expect(throws: ShieldStoreError.self) { try db.logUsage(shield: "nope", seconds: 60) }
        // Measured time is capped at a day too.
        try db.addMeasuredUsage([("social", today, 90_000)])
        #expect(try db.distractingDays(from: today, to: today).last?.measuredSeconds == 86_400)
    }

    @Test func theDayIsTheOneDayStartsAtPutsNowIn() throws {
        let dir = TempDirectory()
        // 02:00 in the zone of `open` (UTC+1) on 2025-03-27.
        let clock = ManualClock(1_743_037_200)
        let db = try open(dir, clock: clock)
        _ = try db.addShield(name: "games", targets: [.app("steam")])
        #expect(try db.usageToday() == CivilDate(year: 2025, month: 3, day: 27))
        try db.setConfig("day.starts-at", to: "04:00")
        #expect(try db.usageToday() == CivilDate(year: 2025, month: 3, day: 26))
        #expect(try db.logUsage(shield: "games", seconds: 60).date == CivilDate(year: 2025, month: 3, day: 26))
    }
}
