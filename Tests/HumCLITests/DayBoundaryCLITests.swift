import Foundation
import Testing

/// `day.starts-at 04:00` is the day of the daily cap and of `hum report` alike (not only of quotas): a round at 03:59
/// belongs to the day before, one at 04:01 to the new day.
@Suite struct DayBoundaryCLITests {
    @Test func theDailyCapAndReportsTurnTheDayAtTheBoundary() throws {
        let box = Sandbox()
        #expect(box.run("config", "set", "day.starts-at", "04:00").code == 0)
        #expect(box.run("config", "set", "earn.daily-cap", "10m").code == 0)
        // Paris, +01:00. An hour at 02:00 earns 20m, cut to the cap of 10 March's day (it began on the 10th at
        // 04:00); 03:59 is still that day, capped to nothing; 04:01 starts the 11th's day: 10m again.
        for (id, start, active) in [
            ("a", "2025-03-11T02:00:00+01:00", "1h"), ("b", "2025-03-11T03:59:00+01:00", "1m"),
            ("c", "2025-03-11T04:01:00+01:00", "1h"),
        ] {
            let r = box.run("history", "record", "--id", id, "--start", start, "--active", active)
            #expect(r.code == 0, "\(r.err)")
        }
        let bank = json(box.run("bank", "--json").out) as? [String: Any]
        #expect(bank?["balance_seconds"] as? Int == 1200, "\(String(describing: bank))")

        func focused(_ date: String) -> Int? {
            (json(box.run("report", "day", date, "--json").out) as? [String: Any])?["focused_seconds"] as? Int
        }
        #expect(focused("2025-03-10") == 3600 + 60)
        #expect(focused("2025-03-11") == 3600)
        // The audit counts the cap by the same days: the calendar day of the 11th earned 20m, within the rules.
        let check = box.run("ledger", "check")
        #expect(check.code == 0, "\(check.out)\(check.err)")
    }
}
