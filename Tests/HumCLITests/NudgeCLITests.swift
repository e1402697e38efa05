import Foundation
import Testing

/// `hum log DUR --productive|--distracting` (what a nudge's buttons log) and its place in `hum report`; the
/// achievements `hum report` lists with their date, in text and JSON; `nudge.every` as a setting.
@Suite struct NudgeCLITests {
    @Test func hoursLoggedWithoutAShieldCountOnTheirSideOfTheDay() throws {
        let box = Sandbox()
        let good = box.run("log", "1h", "--productive")
        #expect(good.code == 0, "\(good.err)")
        #expect(good.out.hasPrefix("logged 1h as productive for "), "\(good.out)")
        #expect(good.out.hasSuffix("that day: 1h productive, 0s distracting (logged by hand)\n"), "\(good.out)")
        let bad = box.run("log", "30m", "--distracting", "--json")
        #expect(bad.code == 0, "\(bad.err)")
        let logged = try #require(json(bad.out) as? [String: Any])
        #expect(logged["verdict"] as? String == "distracting" && logged["logged_seconds"] as? Int == 1800)
        #expect(logged["day_productive_seconds"] as? Int == 3600 && logged["day_distracting_seconds"] as? Int == 1800)

        let report = try #require(json(box.run("report", "day", "--json").out) as? [String: Any])
        let hours = try #require(report["logged"] as? [[String: Any]])
        #expect(hours.count == 1 && hours[0]["productive_seconds"] as? Int == 3600)
        let balance = try #require((report["balance"] as? [[String: Any]])?.first)
        #expect(balance["logged_productive_seconds"] as? Int == 3600)
        #expect(balance["logged_distracting_seconds"] as? Int == 1800)
        #expect(balance["lean"] as? String == "productive", "an hour productive outweighs half an hour distracting")
        #expect(box.run("log", "1h", "--distracting").code == 0)
        let after = try #require(json(box.run("report", "day", "--json").out) as? [String: Any])
        #expect((after["balance"] as? [[String: Any]])?.first?["lean"] as? String == "distracted")
        let text = box.run("report", "day").out
        #expect(
            text.contains("  logged      1h productive, 1h30m distracting (by hand, without a shield)\n"), "\(text)")
    }

    @Test func logSaysWhatTheTimeWasOnceAndADayHoldsNoMoreThan24h() {
        let box = Sandbox()
        let none = box.run("log", "1h")
        #expect(none.code == 2 && none.err.contains("one of --shield NAME, --productive and --distracting"))
        #expect(box.run("log", "1h", "--productive", "--distracting").code == 2)
        #expect(box.run("log", "1h", "--productive", "--shield", "games").code == 2)
        #expect(box.run("log", "20h", "--productive").code == 0)
        let over = box.run("log", "5h", "--distracting")
        #expect(over.code == 3, "\(over.err)")
        #expect(over.err.contains("would make the day longer than 24h; nothing was logged"), "\(over.err)")
        #expect(box.run("log", "4h", "--distracting").code == 0, "exactly 24h fits")
        // The help and the man page come from the declaration.
        let help = box.run("log", "--help").out
        #expect(help.contains("--productive") && help.contains("--distracting") && help.contains("nudge.every"))
    }

    @Test func theReportListsTheAchievementsEarnedWithTheirDate() throws {
        let box = Sandbox()
        #expect(box.run("report").out.contains("  achieved    nothing yet"))
        #expect(box.run("config", "set", "focus.daily-goal", "1h").code == 0)
        #expect(box.run("config", "set", "day.starts-at", "04:00").code == 0)
        // Seven days of an hour each from Monday 3 March 2025; the first at 03:30 on Tuesday, which is Monday's day.
        let starts = [
            "2025-03-04T03:30:00+01:00", "2025-03-04T10:00:00+01:00", "2025-03-05T10:00:00+01:00",
            "2025-03-06T10:00:00+01:00", "2025-03-07T10:00:00+01:00", "2025-03-08T10:00:00+01:00",
            "2025-03-09T10:00:00+01:00",
        ]
        for (i, start) in starts.enumerated() {
            let r = box.run("history", "record", "--id", "r\(i)", "--start", start, "--active", "1h")
            #expect(r.code == 0, "\(r.err)")
        }
        let report = try #require(json(box.run("report", "week", "2025-03-05", "--json").out) as? [String: Any])
        let earned = try #require(report["achievements"] as? [[String: Any]])
        var dates: [String: String] = [:]
        for a in earned { dates[a["id"] as? String ?? ""] = a["date"] as? String }
        #expect(
            dates == ["first-round": "2025-03-03", "first-goal": "2025-03-03", "streak-7": "2025-03-09"], "\(dates)")
        #expect(earned.first?["title"] as? String == "First round")
        #expect(earned.first?["rule"] as? String == "a first focus round completed")
        // A report of the week before lists none: they were earned after its end.
        let before = try #require(json(box.run("report", "week", "2025-02-25", "--json").out) as? [String: Any])
        #expect((before["achievements"] as? [Any])?.isEmpty == true)
        // In 80 columns, a rule that does not fit is left to the help and the JSON.
        let text = box.run("report", "week", "2025-03-05").out
        #expect(
            text.contains(
                "  achieved    First round on 2025-03-03 (a first focus round completed)\n"
                    + "              Goal met on 2025-03-03 (a first day that met the daily goal)\n"
                    + "              A week in a row on 2025-03-09\n"),
            "\(text)")
    }

    @Test func nudgesAreASettingOffByDefault() {
        let box = Sandbox()
        #expect(box.run("config", "get", "nudge.every").out == "0s\n")
        #expect(box.run("config", "set", "nudge.every", "1h").code == 0)
        #expect(box.run("config", "get", "nudge.every").out == "1h\n")
        #expect(box.run("config", "set", "nudge.every", "2d").code == 2, "at most 24h")
    }
}
