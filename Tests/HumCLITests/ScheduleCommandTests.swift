import Foundation
import Testing

@testable import HumCLI

/// `hum schedule` and `hum shield set --quota` through the built binary: a schedule's round trip (add, list, show,
/// rm) and its `--json` shape, a strict schedule refusing removal in its window (exit 3), strict contracts refusing
/// what loosens (exit 3), quotas shown with this week's and next week's, and every bad word a usage error (exit 2).
@Suite struct ScheduleCommandTests {
    func hum(_ box: Sandbox, _ words: String...) throws -> (code: Int32, out: String, err: String) {
        try runBinary(words, environment: box.environment)
    }

    func schedules(_ box: Sandbox) throws -> [[String: Any]] {
        let list = try hum(box, "schedule", "list", "--json")
        return ((json(list.out) as? [String: Any])?["schedules"] as? [[String: Any]]) ?? []
    }

    /// `HH:MM` in Paris (the sandbox's zone), `hours` from now.
    func parisClock(hoursFromNow hours: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Paris")!
        let parts = calendar.dateComponents([.hour, .minute], from: Date().addingTimeInterval(Double(hours) * 3600))
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    @Test func aSchedulesRoundTrip() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        #expect(try hum(box, "schedule").out.hasPrefix("no schedules; make one with 'hum schedule add work"))
        #expect(try hum(box, "shield", "add", "social", "--app", "fakechat").code == 0)
        #expect(try hum(box, "shield", "add", "video", "--app", "fakevideo").code == 0)
        // A window that opens two hours from now and closes an hour later: not holding now.
        let (from, to) = (parisClock(hoursFromNow: 2), parisClock(hoursFromNow: 3))
        let add = try hum(
            box, "schedule", "add", "work", "--days", "daily", "--from", from, "--to", to, "--lock", "social,video")
        #expect(add.code == 0, "\(add.err)")
        #expect(add.out == "schedule work made: locks social, video daily \(from)-\(to)\n")
        // `shield add` started a guard: it is told, so nothing is said.
        #expect(add.err.isEmpty, "\(add.err)")
        let again = try hum(
            box, "schedule", "add", "work", "--days", "mon", "--from", "09:00", "--to", "10:00", "--lock", "social")
        #expect(again.code == 2 && again.err.hasPrefix("hum: a schedule \"work\" exists already"), "\(again.err)")

        let list = try hum(box, "schedule", "list")
        #expect(list.out.hasPrefix("work  daily \(from)-\(to)  locks social, video  opens "), "\(list.out)")
        let all = try schedules(box)
        let work = try #require(all.first)
        #expect(all.count == 1)
        #expect(
            Set(work.keys) == ["name", "days", "from", "to", "shields", "strict", "free", "created", "active", "next"])
        #expect(work["days"] as? String == "daily" && work["from"] as? String == from && work["to"] as? String == to)
        #expect(work["shields"] as? [String] == ["social", "video"] && work["active"] as? Bool == false)
        #expect((work["next"] as? String)?.count == 25)
        let show = try hum(box, "schedule", "show", "work")
        #expect(show.out.hasPrefix("schedule work: locks social, video\ndays daily, from \(from) to \(to)"))
        #expect(show.out.contains("not strict\nopens "), "\(show.out)")

        #expect(try hum(box, "schedule", "rm", "work").out == "schedule work removed\n")
        #expect(try schedules(box).isEmpty)
        #expect(try hum(box, "schedule", "rm", "work").code == 2)

        // With no player, the schedule is saved and hum says that nothing applies it yet.
        stopShieldPlayer(box)
        let unguarded = try hum(
            box, "schedule", "add", "late", "--days", "daily", "--from", from, "--to", to, "--lock", "social")
        #expect(unguarded.code == 0, "\(unguarded.err)")
        #expect(
            unguarded.err.contains("hum: warning: no player runs, so nothing applies the schedule until one starts"),
            "\(unguarded.err)")
    }

    @Test func aStrictScheduleInItsWindowCannotBeRemoved() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        #expect(try hum(box, "shield", "add", "social", "--app", "fakechat").code == 0)
        let add = try hum(
            box, "schedule", "add", "always", "--days", "daily", "--from", "00:00", "--to", "24:00", "--lock",
            "social", "--strict")
        #expect(add.code == 0, "\(add.err)")
        let shown = try #require(try schedules(box).first)
        #expect(shown["active"] as? Bool == true && shown["strict"] as? Bool == true && shown["next"] == nil)
        #expect(try hum(box, "schedule", "show", "always").out.contains("\nlocked always\n"))
        let rm = try hum(box, "schedule", "rm", "always")
        #expect(rm.code == 3 && rm.err.hasPrefix("hum: the schedule always is strict and its window holds"))
        #expect(try schedules(box).count == 1, "nothing changed")
        // A free window and a lock that is not strict go whenever asked.
        #expect(
            try hum(
                box, "schedule", "add", "lunch", "--days", "mon-fri", "--from", "12:30", "--to", "13:30", "--lock",
                "social", "--free"
            ).code == 0)
        #expect(try hum(box, "schedule", "rm", "lunch").code == 0)
    }

    @Test func quotasShowThisWeekAndNextAndStrictContractsRefuseMore() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        #expect(try hum(box, "shield", "add", "video", "--app", "fakevideo").code == 0)
        let set = try hum(box, "shield", "set", "video", "--quota", "30m", "--reduce", "10%/week", "--floor", "10m")
        #expect(set.code == 0 && set.out == "shield video: a daily quota of 30m, -10%/week down to 10m\n", "\(set.err)")
        let show = try hum(box, "shield", "show", "video")
        #expect(
            show.out.contains(
                "quota 30m a day, -10%/week down to 10m: this week 30m, next week 27m (from "), "\(show.out)")
        #expect(show.out.contains("used today 0s, 30m left\n"), "\(show.out)")
        let shown = try #require(json(try hum(box, "shield", "show", "video", "--json").out) as? [String: Any])
        let quota = try #require(shown["quota"] as? [String: Any])
        #expect(quota["thisWeek"] as? Int == 1800 && quota["nextWeek"] as? Int == 1620)
        #expect(quota["reduce"] as? String == "10%/week" && quota["floor"] as? Int == 600)
        let step = try hum(box, "shield", "set", "video", "--quota", "1h", "--reduce", "5m/week")
        #expect(step.out == "shield video: a daily quota of 1h, -5m/week down to 0s\n", "\(step.err)")
        #expect(try hum(box, "config", "set", "day.starts-at", "04:00").code == 0)
        #expect(try hum(box, "config", "get", "day.starts-at").out == "04:00\n")

        let e2e = ContractEndToEndTests()
        let focus = try e2e.startHum(
            box, ["focus", "--no-sound", "--focus", "1m", "--goal", "g", "--done-when", "x", "--strict"], in: box.root)
        defer {
            focus.signal(SIGTERM)
            focus.wait()
        }
        _ = try #require(e2e.waitUntilRunning(box))
        #expect(
            try hum(
                box, "schedule", "add", "x", "--days", "daily", "--from", "00:00", "--to", "24:00", "--lock",
                "video"
            ).code == 0, "a lock tightens")
        for words in [
            ["shield", "set", "video", "--quota", "2h"],
            [
                "schedule", "add", "free", "--days", "sat", "--from", "10:00", "--to", "11:00", "--lock", "video",
                "--free",
            ],
            ["schedule", "rm", "x"],
        ] {
            let r = try runBinary(words, environment: box.environment)
            #expect(r.code == 3, "\(words): \(r.err)")
            #expect(r.err.hasPrefix("hum: a strict contract is running"), "\(words): \(r.err)")
        }
        #expect(
            try hum(box, "shield", "set", "video", "--quota", "20m", "--reduce", "5m/week").code == 0,
            "a quota smaller every week tightens")
        // 20m a day forever is more, from week 12 on, than 1h less 5m a week: refused.
        #expect(try hum(box, "shield", "set", "video", "--quota", "20m").code == 3)
        #expect(try hum(box, "shield", "set", "video", "--no-quota").code == 0)
    }

    @Test func badWordsAreUsageErrors() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        #expect(try hum(box, "shield", "add", "social", "--app", "fakechat").code == 0)
        let add = ["schedule", "add", "w"]
        let cases: [([String], String)] = [
            (
                add + ["--days", "mon-fry", "--from", "09:00", "--to", "10:00", "--lock", "social"],
                "is not a list of days"
            ),
            (add + ["--days", "mon", "--from", "9h", "--to", "10:00", "--lock", "social"], "is not a time of day"),
            (add + ["--days", "mon", "--from", "24:00", "--to", "10:00", "--lock", "social"], "is not a time of day"),
            (add + ["--days", "mon", "--from", "09:00", "--to", "24:01", "--lock", "social"], "is not a time of day"),
            (
                add + ["--days", "mon", "--from", "09:00", "--to", "09:00", "--lock", "social"],
                "the window would be empty"
            ),
            (add + ["--days", "mon", "--from", "09:00", "--to", "10:00", "--lock", "So cial"], "shield names"),
            (add + ["--days", "mon", "--from", "09:00", "--to", "10:00", "--lock", "nope"], "no shield \"nope\""),
            (add + ["--days", "mon", "--from", "09:00", "--to", "10:00"], "--lock"),
            (
                add + ["--days", "mon", "--from", "09:00", "--to", "10:00", "--lock", "social", "--free", "--strict"],
                "a free window cannot be strict"
            ),
            (
                ["schedule", "add", "Bad!", "--days", "mon", "--from", "09:00", "--to", "10:00", "--lock", "social"],
                "is not a schedule name"
            ),
            (["schedule", "show", "nope"], "hum: no schedule \"nope\""),
            (["shield", "set", "social"], "shield set needs --quota DURATION or --no-quota"),
            (["shield", "set", "social", "--quota", "25h"], "--quota must be from 1s to 24h"),
            (["shield", "set", "social", "--quota", "30m", "--reduce", "100%"], "is not a weekly reduction"),
            (["shield", "set", "social", "--quota", "30m", "--reduce", "10%/day"], "is not a weekly reduction"),
            (["shield", "set", "social", "--quota", "30m", "--reduce", "1h/week"], "is more than the quota"),
            (["shield", "set", "social", "--quota", "30m", "--reduce", "10%", "--floor", "1h"], "is above the quota"),
            (["shield", "set", "social", "--quota", "30m", "--floor", "10m"], "--floor goes with --reduce"),
            (["shield", "set", "social", "--no-quota", "--quota", "5m"], "--no-quota takes no --quota"),
            (["shield", "set", "nope", "--quota", "5m"], "no shield \"nope\""),
            (["config", "set", "day.starts-at", "25:00"], "bad value \"25:00\" for day.starts-at"),
        ]
        for (words, message) in cases {
            let r = try runBinary(words, environment: box.environment)
            #expect(r.code == 2, "\(words): \(r.err)")
            #expect(r.err.hasPrefix("hum: ") && r.err.contains(message), "\(words): \(r.err)")
            #expect(r.err.split(separator: "\n").count == 1, "one line: \(words): \(r.err)")
        }
        #expect(try schedules(box).isEmpty, "nothing was made")
    }
}
