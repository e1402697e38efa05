import HumTestSupport
import Testing

@testable import HumCore

@Suite struct TimestampTests {
    @Test func formatsWithOffset() {
        #expect(Timestamp(epochSeconds: 0, offsetSeconds: 0).rfc3339 == "1970-01-01T00:00:00+00:00")
        #expect(Timestamp(epochSeconds: 1_743_296_399, offsetSeconds: 3600).rfc3339 == "2025-03-30T01:59:59+01:00")
        #expect(Timestamp(epochSeconds: 0, offsetSeconds: -16_200).rfc3339 == "1969-12-31T19:30:00-04:30")
    }

    @Test(arguments: [
        "2025-03-30T01:59:59+01:00", "1970-01-01T00:00:00+00:00", "1969-12-31T19:30:00-04:30",
        "2000-02-29T23:59:59+14:00", "9999-12-30T00:00:00-12:00",
    ])
    func roundTrips(text: String) throws {
        let t = try #require(Timestamp(rfc3339: text))
        #expect(t.rfc3339 == text)
    }

    @Test func parsesVariants() {
        #expect(Timestamp(rfc3339: "2025-01-02T03:04:05Z")?.epochSeconds == 1_735_787_045)
        #expect(Timestamp(rfc3339: "2025-01-02t03:04:05.123456z")?.epochSeconds == 1_735_787_045)
        #expect(Timestamp(rfc3339: "2025-01-02 04:04:05+01:00")?.epochSeconds == 1_735_787_045)
        #expect(Timestamp(rfc3339: "2016-12-31T23:59:60Z")?.epochSeconds == 1_483_228_799)
    }

    @Test(arguments: [
        "", "2025-01-02", "2025-13-02T00:00:00Z", "2025-02-30T00:00:00Z", "2025-01-02T24:00:00Z",
        "2025-01-02T00:00:00", "2025-01-02T00:00:00+1:00", "2025-01-02T00:00:00+24:00", "2025-01-02T00:00:00.Z",
        "0000-01-01T00:00:00Z", "2025-01-02T00:00:00Zjunk", "２025-01-02T00:00:00Z",
    ])
    func rejects(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test func civilDatesRoundTripOverCenturies() {
        var days: Int64 = -719_162  // 0001-01-01
        while days < 2_932_896 {  // 9999-12-31
            let date = CivilDate(daysSinceEpoch: days)
            #expect(date.daysSinceEpoch == days)
            #expect(CivilDate(text: date.description) == date)
            days += 997
        }
    }

    @Test func isoWeeks() {
        func week(_ s: String) -> String { CivilDate(text: s)!.isoWeek.description }
        #expect(week("2025-01-01") == "2025-W01")
        #expect(week("2024-12-30") == "2025-W01")
        #expect(week("2021-01-03") == "2020-W53")
        #expect(week("2026-12-31") == "2026-W53")
        #expect(week("2027-01-03") == "2026-W53")
        #expect(week("2027-01-04") == "2027-W01")
        #expect(CivilDate(text: "2025-03-31")!.isoWeekday == 1)
        #expect(CivilDate(text: "2025-03-30")!.isoWeekday == 7)
    }

    @Test func fuzzNeverCrashes() {
        var rng = SplitMix64(seed: 11)
        let alphabet = Array("0123456789-:T+Zz. tx")
        let seed = Array("2025-03-30T01:59:59+01:00")
        for i in 0..<30_000 {
            var chars = seed
            if i % 2 == 0 {
                for _ in 0..<Int(rng.next() % 4 + 1) {
                    chars[Int(rng.next() % UInt64(chars.count))] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                }
            } else {
                chars = (0..<Int(rng.next() % 30)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            }
            if let t = Timestamp(rfc3339: String(chars)) {
                #expect(Timestamp(rfc3339: t.rfc3339)?.epochSeconds == t.epochSeconds)
            }
            _ = CivilDate(text: String(chars.prefix(10)))
        }
    }

    @Test func startOfDayAcrossDST() {
        // Europe/Paris 2025: +01:00, then +02:00 from 2025-03-30T01:00:00Z, and back on 2025-10-26T01:00:00Z.
        let zone = TransitionZone(initial: 3600, transitions: [(1_743_296_400, 7200), (1_761_440_400, 3600)])
        let cal = LocalCalendar(clock: ManualClock(0), zone: zone)
        let start = cal.startOfDay(CivilDate(text: "2025-03-30")!)
        #expect(cal.stamp(start).rfc3339 == "2025-03-30T00:00:00+01:00")
        let next = cal.startOfDay(CivilDate(text: "2025-03-31")!)
        #expect(next - start == 23 * 3600)
        let autumn = cal.startOfDay(CivilDate(text: "2025-10-26")!)
        #expect(cal.startOfDay(CivilDate(text: "2025-10-27")!) - autumn == 25 * 3600)
        // A zone that skips midnight (a jump from 23:59:59 to 01:00): the day starts at 01:00.
        let skip = TransitionZone(initial: 0, transitions: [(86_400, 3600)])
        let c2 = LocalCalendar(clock: ManualClock(0), zone: skip)
        #expect(c2.stamp(c2.startOfDay(CivilDate(text: "1970-01-02")!)).rfc3339 == "1970-01-02T01:00:00+01:00")
    }

    /// A local time on a local day (`hum history record --start "yesterday 14:00"`), across both DST changes.
    @Test func aLocalTimeOnADayAcrossDST() {
        let zone = TransitionZone(initial: 3600, transitions: [(1_743_296_400, 7200), (1_761_440_400, 3600)])
        let cal = LocalCalendar(clock: ManualClock(0), zone: zone)
        func at(_ day: String, _ h: Int64, _ m: Int64) -> String {
            cal.stamp(cal.instant(on: CivilDate(text: day)!, secondsOfDay: h * 3600 + m * 60)).rfc3339
        }
        #expect(at("2025-03-29", 14, 0) == "2025-03-29T14:00:00+01:00")
        #expect(at("2025-03-31", 12, 0) == "2025-03-31T12:00:00+02:00")
        // 02:30 does not exist on the spring day: the first instant after the jump.
        #expect(at("2025-03-30", 2, 30) == "2025-03-30T03:00:00+02:00")
        // 02:30 happens twice on the autumn day: the first of the two.
        #expect(at("2025-10-26", 2, 30) == "2025-10-26T02:30:00+02:00")
        #expect(at("2025-10-26", 3, 30) == "2025-10-26T03:30:00+01:00")
        #expect(at("2025-10-26", 0, 0) == cal.stamp(cal.startOfDay(CivilDate(text: "2025-10-26")!)).rfc3339)
    }
}
