import HumTestSupport
import Testing

@testable import HumCore

/// Paris in 2025: CET (+01:00) until 30 March 01:00 UTC, CEST (+02:00) until 26 October 01:00 UTC.
let paris2025 = TransitionZone(initial: 3600, transitions: [(1_743_296_400, 7200), (1_761_440_400, 3600)])
let springForward: Int64 = 1_743_296_400
let fallBack: Int64 = 1_761_440_400

func schedule(
    _ days: String, _ from: String, _ to: String, lock: [String] = ["social"], free: Bool = false,
    strict: Bool = false, name: String = "work"
) throws -> Schedule {
    try Schedule.checked(
        name: name, days: Weekdays.checked(days), from: WallTime.checked(from, allowsEndOfDay: true),
        to: WallTime.checked(to, allowsEndOfDay: true), shields: lock, strict: strict, free: free,
        created: Timestamp(epochSeconds: 0, offsetSeconds: 0))
}

@Suite struct ScheduleTests {
    @Test func daysAndTimesAreReadAndWrittenBack() throws {
        #expect(try Weekdays.checked("mon-fri").description == "mon-fri")
        #expect(try Weekdays.checked("Sat,SUN").description == "sat,sun")
        #expect(try Weekdays.checked("fri-mon").isoWeekdays == [1, 5, 6, 7])
        #expect(try Weekdays.checked("mon,wed-fri").description == "mon,wed-fri")
        #expect(try Weekdays.checked("daily") == .every)
        #expect(try Weekdays.checked("mon-sun").description == "daily")
        for bad in ["", "monday", "mon-", "-fri", "mon,,fri", "mon-fri-sat", "xyz"] {
            #expect(throws: RuleProblem.self) { try Weekdays.checked(bad) }
        }
        #expect(try WallTime.checked("9:05").description == "09:05")
        #expect(try WallTime.checked("24:00", allowsEndOfDay: true).minutes == 1440)
        for bad in ["24:00", "12:60", "1200", "12:5", "-1:00", "ab:cd", "12:00:00", ""] {
            #expect(throws: RuleProblem.self) { try WallTime.checked(bad) }
        }
    }

    @Test func aScheduleIsCheckedWhereItIsMade() throws {
        #expect(throws: RuleProblem.self) { try schedule("mon", "09:00", "09:00") }
        #expect(throws: RuleProblem.self) { try schedule("mon", "24:00", "09:00") }
        #expect(throws: RuleProblem.self) { try schedule("mon", "09:00", "10:00", lock: []) }
        #expect(throws: RuleProblem.self) { try schedule("mon", "09:00", "10:00", free: true, strict: true) }
        #expect(throws: RuleProblem.self) { try schedule("mon", "09:00", "10:00", name: "Work!") }
        #expect(try schedule("mon", "09:00", "10:00", lock: ["a", "b", "a"]).shields == ["a", "b"])
    }

    @Test func aWindowCrossingMidnightBelongsToTheDayItStarts() throws {
        let s = try schedule("sun", "22:00", "02:00")  // Sunday 22:00 to Monday 02:00
        let utc = FixedZone(offsetSeconds: 0)
        let sunday: Int64 = 1_743_292_800 - 86_400 * 7  // 2025-03-23, a Sunday, 00:00 UTC
        #expect(!s.isActive(at: sunday + 1 * 3600, zone: utc))  // Sunday 01:00: Saturday was not a day of it
        #expect(s.isActive(at: sunday + 22 * 3600, zone: utc))
        #expect(s.isActive(at: sunday + 25 * 3600, zone: utc))  // Monday 01:00
        #expect(!s.isActive(at: sunday + 26 * 3600, zone: utc))
        #expect(s.nextEdge(after: sunday, zone: utc) == sunday + 22 * 3600)
        #expect(s.nextEdge(after: sunday + 22 * 3600, zone: utc) == sunday + 26 * 3600)
    }

    @Test func springForwardSkipsWhatTheClockJumpsOver() throws {
        // 30 March 2025, Paris: 02:00 CET becomes 03:00 CEST. 02:30-03:30 holds from 03:00 to 03:30 CEST.
        let s = try schedule("sun", "02:30", "03:30")
        #expect(!s.isActive(at: springForward - 1, zone: paris2025))
        #expect(s.isActive(at: springForward, zone: paris2025))
        #expect(s.isActive(at: springForward + 1799, zone: paris2025))
        #expect(!s.isActive(at: springForward + 1800, zone: paris2025))
        #expect(s.nextEdge(after: springForward - 5000, zone: paris2025) == springForward)
        #expect(s.nextEdge(after: springForward, zone: paris2025) == springForward + 1800)
    }

    @Test func fallBackHoldsEachTimeTheClockReadsTheWindow() throws {
        // 26 October 2025, Paris: 03:00 CEST becomes 02:00 CET; 02:00-02:45 is read twice.
        let s = try schedule("sun", "02:00", "02:45")
        let edges = [fallBack - 3600, fallBack - 900, fallBack, fallBack + 2700]
        var t = fallBack - 4 * 3600
        for edge in edges {
            let next = s.nextEdge(after: t, zone: paris2025)
            #expect(next == edge)
            t = next ?? t
        }
        #expect(s.isActive(at: fallBack - 3600, zone: paris2025))
        #expect(!s.isActive(at: fallBack - 1, zone: paris2025))
        #expect(s.isActive(at: fallBack, zone: paris2025))
    }

    @Test func aZoneMoveUnderAWindowOpensItAtTheMove() throws {
        // Monday 31 March 2025, 07:00 UTC (09:00 in Paris) the user lands in Tokyo (+09:00): 16:00 there.
        let move: Int64 = 1_743_404_400
        let zone = TransitionZone(initial: 7200, transitions: [(move, 9 * 3600)])
        let s = try schedule("mon-fri", "17:00", "18:00")
        #expect(!s.isActive(at: move - 1, zone: zone))
        #expect(s.nextEdge(after: move - 600, zone: zone) == move + 3600)  // 17:00 in Tokyo
        let evening = try schedule("mon", "12:00", "20:00")
        #expect(!evening.isActive(at: move - 1, zone: zone))  // 09:00 in Paris
        #expect(evening.nextEdge(after: move - 600, zone: zone) == move)  // jumps into the window
        #expect(evening.nextEdge(after: move, zone: zone) == move + 4 * 3600)  // 20:00 in Tokyo
    }

    @Test func aWindowOverEveryHourNeverChanges() throws {
        let s = try schedule("daily", "00:00", "24:00")
        #expect(s.isActive(at: springForward, zone: paris2025))
        #expect(s.nextEdge(after: springForward - 10, zone: paris2025) == nil)
    }

    @Test func theDayBoundaryMovesWhichDayAnInstantIsIn() throws {
        let four = try #require(DayBoundary(start: WallTime.checked("04:00")))
        let utc = FixedZone(offsetSeconds: 0)
        let midnight: Int64 = 1_743_292_800  // 2025-03-30 00:00 UTC
        #expect(four.day(of: midnight + 3 * 3600 + 3599, zone: utc).description == "2025-03-29")
        #expect(four.day(of: midnight + 4 * 3600, zone: utc).description == "2025-03-30")
        #expect(DayBoundary.midnight.day(of: midnight, zone: utc).description == "2025-03-30")
        #expect(four.nextDayStart(after: midnight, zone: utc) == midnight + 4 * 3600)
        // In Paris on the day of the jump, 04:00 CEST is 02:00 UTC.
        #expect(four.nextDayStart(after: midnight, zone: paris2025) == midnight + 2 * 3600)
        #expect(DayBoundary(settingText: "bad") == .midnight)
        #expect(Settings(stored: ["day.starts-at": "4:00"]).dayBoundary == four)
        #expect(throws: SettingError.self) { try SettingCatalog.normalise("day.starts-at", "24:00") }
    }
}
