import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumStore

/// Schedules and quotas in the database (schema 6): saved and read back, handed to the guard in one read with the
/// shields, and refused by strict mode where they would loosen the rules.
@Suite struct ScheduleStoreTests {
    /// Wednesday 26 March 2025, 15:40 at +01:00.
    let t0: Int64 = 1_743_000_000

    func work(_ db: HumDatabase, strict: Bool = false, free: Bool = false, name: String = "work") throws -> Schedule {
        try Schedule.checked(
            name: name, days: Weekdays.checked("mon-fri"), from: WallTime.checked("09:00"),
            to: WallTime.checked("18:00"), shields: ["social"], strict: strict, free: free,
            created: db.calendar.now())
    }

    func refusal(_ body: () throws -> Void) -> StrictRules.Loosening? {
        do {
            try body()
            return nil
        } catch let r as StrictRules.Refusal {
            return r.what
        } catch {
            return nil
        }
    }

    @Test func schedulesAreSavedListedAndRemovedOnTheRecord() throws {
        let dir = TempDirectory()
        let db = try open(dir, clock: ManualClock(t0))
        #expect(try db.db.scalarInt("PRAGMA user_version") ?? 0 >= 6)
        _ = try db.addShield(name: "social", targets: [.app("telegram-desktop")])
        let schedule = try work(db)
        try db.addSchedule(schedule)
        #expect(throws: ScheduleStoreError.exists("work")) { try db.addSchedule(schedule) }
        var unknown = schedule
        unknown.name = "other"
        unknown.shields = ["video"]
        #expect(throws: ShieldStoreError.unknown("video", known: ["social"])) { try db.addSchedule(unknown) }
        let again = try open(dir, clock: ManualClock(t0))
        #expect(try again.schedules() == [schedule])
        #expect(try again.schedule(named: "work") == schedule)
        try db.removeSchedule(named: "work")
        #expect(try db.schedules().isEmpty)
        #expect(throws: ScheduleStoreError.unknown("work", known: [])) { try db.removeSchedule(named: "work") }
        #expect(try db.db.scalarInt("SELECT COUNT(*) FROM schedules WHERE removed_epoch = ?", [.int(t0)]) == 1)
        try db.addSchedule(schedule)  // the name is free again
        #expect(try db.schedules().count == 1)
    }

    @Test func theGuardReadsEverythingInOneReadAndALockBeatsABankLift() throws {
        let dir = TempDirectory()
        let clock = ManualClock(t0)
        let db = try open(dir, clock: clock)
        _ = try db.addShield(name: "social", targets: [.app("telegram-desktop")])
        try db.addSchedule(try work(db))
        try db.setConfig("day.starts-at", to: "04:00")
        let bank = try db.openLift(shield: "social", seconds: 600, entryID: "E1", budget: .bank)
        var inputs = try db.shieldInputs()
        #expect(inputs.schedules.map(\.name) == ["work"])
        #expect(inputs.dayBoundary == DayBoundary(start: WallTime(minutes: 240)!))
        #expect(inputs.lifts.map(\.budget) == [.bank] && inputs.lifts.first?.id == bank.id)
        #expect(ShieldState.shielded(inputs, now: t0)["social"] == .up)
        let lock = try #require(ShieldState.lock(on: "social", inputs, now: t0))
        #expect(lock.message.hasPrefix("social is locked by schedule work until 18:00"))
        #expect(lock.kind == .refused)
        // 18:00 at +01:00 is 17:00 UTC: the guard's one timer.
        #expect(ShieldState.nextChange(inputs, after: t0) == t0 + 601)  // the bank lift's end (rounded up) comes first
        let emergency = try db.openLift(shield: "social", seconds: 300, entryID: "E2", budget: .emergency)
        inputs = try db.shieldInputs()
        #expect(ShieldState.shielded(inputs, now: t0) == ["social": .lifted(until: t0 + 301, lift: emergency.id)])
        clock.advance(3 * 3600)  // 18:40: the window is over, the lifts too
        inputs = try db.shieldInputs()
        #expect(ShieldState.lock(on: "social", inputs, now: t0 + 3 * 3600) == nil)
        // Thursday 09:00 at +01:00.
        #expect(ShieldState.nextChange(inputs, after: t0 + 3 * 3600) == t0 + 17 * 3600 + 20 * 60)
    }

    @Test func quotasAreStoredAndTheirUseCountedFromTheLifts() throws {
        let dir = TempDirectory()
        let clock = ManualClock(t0)
        let db = try open(dir, clock: clock)
        _ = try db.addShield(name: "video", targets: [.app("mpv")])
        let quota = try ShieldQuota.checked(
            dailySeconds: 1800, reduction: .percent(basisPoints: 1000), floorSeconds: 600, since: db.calendar.now())
        try db.setShieldQuota(shield: "video", quota: quota)
        #expect(try open(dir, clock: clock).shield(named: "video")?.quota == quota)
        _ = try db.openLift(shield: "video", seconds: 600, entryID: nil, budget: .quota)
        clock.advance(700)
        let second = try db.openLift(shield: "video", seconds: 600, entryID: nil, budget: .quota)
        clock.advance(100)
        try db.endLift(id: second.id)
        _ = try db.openLift(shield: "video", seconds: 900, entryID: "E", budget: .bank)
        var standing = try #require(try db.shieldInputs().quota(of: "video", now: t0 + 800))
        #expect(standing.thisWeek == 1800 && standing.nextWeek == 1620)
        #expect(standing.usedToday == 700 && standing.leftToday == 1100)
        // A week and a day later: 27m, and nothing used that day.
        clock.set(t0 + 8 * 86_400)
        standing = try #require(try db.shieldInputs().quota(of: "video", now: t0 + 8 * 86_400))
        #expect(standing.thisWeek == 1620 && standing.usedToday == 0)
        try db.setShieldQuota(shield: "video", quota: nil)
        #expect(try db.shield(named: "video")?.quota == nil)
    }

    @Test func strictModeRefusesWhatLoosens() throws {
        let dir = TempDirectory()
        let clock = ManualClock(t0)
        let db = try open(dir, clock: clock)
        _ = try db.addShield(name: "social", targets: [.app("telegram-desktop")])
        try db.addSchedule(try work(db, strict: true))
        // A strict schedule in its window (Wednesday 15:40) cannot be removed; it says until when.
        do {
            try db.removeSchedule(named: "work")
            Issue.record("removed a strict schedule in its window")
        } catch let error as ScheduleStoreError {
            #expect(error.kind == .refused && error.message.contains("after 18:00"))
        }
        try db.setShieldQuota(
            shield: "social", quota: ShieldQuota(dailySeconds: 1200, since: db.calendar.now()))
        var strict = ContractStoreTests.start
        strict.strict = true
        _ = try db.createContract(
            strict, rounds: 1, focusSeconds: 1500, endsAt: db.calendar.stamp(t0 + 1500), baseline: [])
        clock.advance(3 * 3600)  // the window is over, the contract still runs
        #expect(refusal { try db.removeSchedule(named: "work") } == .removeSchedule("work"))
        #expect(refusal { try db.addSchedule(try work(db, free: true, name: "lunch")) } == .freeWindow("lunch"))
        let more = ShieldQuota(dailySeconds: 1800, since: db.calendar.now())
        #expect(refusal { try db.setShieldQuota(shield: "social", quota: more) } == .quota("social"))
        // Tightening stays open: a smaller quota, none at all, another lock.
        let less = ShieldQuota(dailySeconds: 600, since: db.calendar.now())
        #expect(try db.setShieldQuota(shield: "social", quota: less).quota == less)
        try db.setShieldQuota(shield: "social", quota: nil)
        try db.addSchedule(try work(db, name: "evening"))
        #expect(try db.schedules().map(\.name) == ["work", "evening"])
    }
}
