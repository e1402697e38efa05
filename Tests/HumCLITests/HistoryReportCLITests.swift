import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumCLI

/// `hum history`, `hum report`, `hum export --format ical` and `hum config` on a month of rounds (March 2025) that
/// crosses the spring change of Paris (+01:00 to +02:00 on the 30th) and a trip to New York (-04:00, 10th to 14th).
@Suite struct HistoryReportCLITests {
    struct Planned {
        var id: String
        var start: String
        var active: Int
        var status = "completed"
        var kind = "focus"
        var tags: [String] = []
        var goal: String? = nil
    }

    /// Every day of March but the 5th and the 20th; a skipped round every 7th day; a break each day.
    static let month: [Planned] = {
        var out: [Planned] = []
        for d in 1...31 where d != 5 && d != 20 {
            let date = "2025-03-" + (d < 10 ? "0\(d)" : "\(d)")
            let offset = (10...14).contains(d) ? "-04:00" : d == 31 ? "+02:00" : "+01:00"
            if d == 30 {
                out.append(Planned(id: "r30-a", start: "\(date)T00:30:00+01:00", active: 3600, tags: ["dst"]))
                out.append(Planned(id: "r30-b", start: "\(date)T03:30:00+02:00", active: 3600, tags: ["dst"]))
                out.append(Planned(id: "r30-c", start: "\(date)T04:30:00+02:00", active: 1200, status: "interrupted"))
                continue
            }
            out.append(
                Planned(
                    id: "r\(d)-0", start: "\(date)T09:00:00\(offset)", active: 5700, tags: ["writing"],
                    goal: "chapter \(d)"))
            out.append(
                Planned(
                    id: "r\(d)-1", start: "\(date)T13:00:00\(offset)", active: d % 3 == 0 ? 3600 : 1500,
                    tags: d % 2 == 0 ? ["code", "deep work"] : []))
            out.append(Planned(id: "r\(d)-b", start: "\(date)T15:00:00\(offset)", active: 300, kind: "short-break"))
            if d % 7 == 0 {
                out.append(Planned(id: "r\(d)-s", start: "\(date)T16:00:00\(offset)", active: 100, status: "skipped"))
            }
        }
        return out
    }()

    static func record(_ p: Planned, in s: Sandbox) {
        var words = [
            "history", "record", "--id", p.id, "--start", p.start, "--active", "\(p.active)s", "--status", p.status,
            "--kind", p.kind,
        ]
        for tag in p.tags { words += ["--tag", tag] }
        if let goal = p.goal { words += ["--goal", goal] }
        let r = s.run(words)
        #expect(r.code == 0, "\(r.err)")
    }

    /// A sandbox with the month recorded (a daily cap of 24h, so nothing is cut by it).
    static func march() -> Sandbox {
        let s = Sandbox()
        _ = s.run("config", "set", "earn.daily-cap", "24h")
        for p in month { record(p, in: s) }
        return s
    }

    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func theTableFitsEightyColumns() throws {
        let s = Self.march()
        // Long goals and tags, and ids that share a long start.
        for i in 0..<3 {
            Self.record(
                Planned(
                    id: "imported-from-another-timer-2025-03-31-\(i)", start: "2025-03-31T1\(i + 7):00:00+02:00",
                    active: 600, tags: ["a-long-tag-name", "another-long-tag"],
                    goal: [
                        String(repeating: "a goal that goes on ", count: 8),
                        String(repeating: "集中して論文を書く", count: 8),  // two columns a character
                        String(repeating: "ship it 🚀 ", count: 10),
                    ][i]), in: s)
        }
        // Columns as a terminal draws them: these ideographs and the rocket take two.
        func columns(_ line: Substring) -> Int {
            line.unicodeScalars.reduce(0) { sum, scalar in
                sum + ((0x3000...0x9FFF).contains(scalar.value) || scalar.value >= 0x1F300 ? 2 : 1)
            }
        }
        let r = s.run("history", "--since", "2025-03-01", "--until", "2025-03-31")
        #expect(r.code == 0)
        let lines = r.out.split(separator: "\n")
        #expect(lines.count > 100)
        for line in lines { #expect(columns(line) <= 80, "\(columns(line)): \(line)") }
        #expect(r.out.contains("集中して") && r.out.contains("🚀"))
        // The ids shown are the shortest starts that tell them apart.
        #expect(r.out.contains("  r12-1  ") && r.out.contains("  imported-fr…  a goal that goes on"))
        #expect(!r.out.contains("T09:00:00"))
        // Days in two offsets say so; New York's rounds show their own clock.
        #expect(r.out.contains("Sun 2025-03-30  (UTC+01:00, UTC+02:00)"))
        #expect(r.out.contains("Wed 2025-03-12  (UTC-04:00)\n  09:00  focus"))
        // Without a range the table is the last 7 days: the month is older.
        let recent = s.run("history")
        #expect(recent.out.hasPrefix("no rounds recorded in the last 7 days; try --since 30d\n"))
        // --long: full ids and instants, and the mix.
        let long = s.run("history", "--since", "2025-03-12", "--until", "2025-03-12", "--long")
        #expect(long.out.contains("id r12-0\n      2025-03-12T09:00:00-04:00 to "))
    }

    @Test func filtersAndDateForms() throws {
        let s = Self.march()
        func ids(_ words: String...) throws -> [String] {
            let r = s.run(["history"] + words + ["--json"])
            #expect(r.code == 0, "\(words): \(r.err)")
            let sessions = try #require(try Self.object(r.out)["sessions"] as? [[String: Any]])
            return sessions.compactMap { $0["id"] as? String }
        }
        let all = Self.month
        #expect(
            try ids("--since", "2025-03-29", "--until", "2025-03-30")
                == all.filter { $0.start.hasPrefix("2025-03-29") || $0.start.hasPrefix("2025-03-30") }.map(\.id))
        #expect(try ids("--since", "2025-03-01", "--tag", "code") == all.filter { $0.tags.contains("code") }.map(\.id))
        #expect(
            try ids("--since", "2025-03-01", "--tag", "code", "--tag", "deep work", "--goal", "x").isEmpty)
        #expect(
            try ids("--since", "2025-03-01", "--goal", "CHAPTER 2")
                == all.filter { $0.goal?.hasPrefix("chapter 2") == true }.map(\.id))
        #expect(try ids("--since", "2025-03-01", "--limit", "3") == all.suffix(3).map(\.id))
        #expect(try ids("--until", "2025-03-01", "--limit", "2") == ["r1-1", "r1-b"])
        // A range's summaries count what is shown: the filtered ones leave the ledger's columns out.
        let tagged = s.run("history", "--since", "2025-03-01", "--tag", "writing")
        #expect(tagged.out.contains("\nday         focused  done stopped skipped   earned\n"))
        // Words relative to today, on rounds recorded relative to now.
        let t = Sandbox()
        let now = Date()
        let stamp = ISO8601DateFormatter()
        for (id, ago) in [
            ("ten-days", 10.0 * 86_400), ("eight-days", 8.0 * 86_400), ("an-hour", 3600.0),
            ("in-two-days", -2 * 86_400.0),
        ] {
            _ = t.run("history", "record", "--id", id, "--active", "10m", "--start", stamp.string(from: now - ago))
        }
        let recent = t.run("history", "--json")
        #expect(recent.out.contains("\"an-hour\"") && !recent.out.contains("eight-days"))
        #expect(!recent.out.contains("in-two-days"))  // the last 7 days end today
        let month = t.run("history", "--since", "30d", "--json")
        #expect(month.out.contains("ten-days") && month.out.contains("eight-days"))
        for word in ["today", "yesterday", "monday", "Sun", "this week", "last week", "this month", "last month", "1d"]
        {
            let r = t.run("history", "--since", word)
            #expect(r.code == 0, "\(word): \(r.err)")
        }
        for bad in ["0d", "3661d", "last year", "mondays", "7 d"] {
            let r = t.run("history", "--since", bad)
            #expect(r.code == 2 && r.err.hasPrefix("hum: --since \"\(bad)\" is"), "\(bad): \(r.err)")
        }
    }

    /// What each date word names, on a fixed calendar: Wednesday 2025-03-12 in New York.
    @Test func dateWordsNameTheirDays() throws {
        let zone = TransitionZone(initial: -18_000, transitions: [(epoch: 1_741_503_600, offset: -14_400)])
        let calendar = LocalCalendar(clock: ManualClock(1_741_795_200), zone: zone)  // 2025-03-12T12:00:00-04:00
        let today = calendar.now().localDate
        #expect(today.description == "2025-03-12")
        func read(_ text: String) throws -> DateWord {
            guard case .success(let w) = ValueKind<DateWord>.date.read(text) else { throw HumError.usage(text) }
            return w
        }
        func days(_ text: String) throws -> String {
            let (first, last) = try #require(try read(text).days(today: today))
            return "\(first) \(last)"
        }
        #expect(try days("monday") == "2025-03-10 2025-03-10")
        #expect(try days("wednesday") == "2025-03-12 2025-03-12")
        #expect(try days("thu") == "2025-03-06 2025-03-06")
        #expect(try days("last week") == "2025-03-03 2025-03-09")
        #expect(try days("this week") == "2025-03-10 2025-03-16")
        #expect(try days("last month") == "2025-02-01 2025-02-28")
        #expect(try days("this month") == "2025-03-01 2025-03-31")
        #expect(try days("7d") == "2025-03-06 2025-03-06")
        #expect(try days("1d") == "2025-03-12 2025-03-12")
        // Bounds: last week starts at its Monday's midnight (-05:00) and ends at this Monday's (-04:00: the clocks
        // went forward on Sunday the 9th): a week of 167 hours.
        let week = try read("last week")
        let from = week.epoch(endOfDay: false, calendar: calendar)
        let to = week.epoch(endOfDay: true, calendar: calendar)
        #expect(calendar.stamp(from).rfc3339 == "2025-03-03T00:00:00-05:00")
        #expect(calendar.stamp(to).rfc3339 == "2025-03-10T00:00:00-04:00" && to - from == 167 * 3600)
        // January: last month is December of the year before.
        let january = LocalCalendar(clock: ManualClock(1_736_000_000), zone: FixedZone(offsetSeconds: 0))
        #expect(try read("last month").days(today: january.now().localDate)?.first.description == "2024-12-01")
    }

    @Test func reportTotalsAreTheSumsOfTheExport() throws {
        let s = Self.march()
        _ = s.run("config", "set", "focus.daily-goal", "2h")
        let report = try Self.object(s.run("report", "month", "2025-03-15", "--json").out)
        let export = try Self.object(s.run("export", "--format", "json").out)
        let sessions = try #require(export["sessions"] as? [[String: Any]]).filter {
            ($0["start"] as? String)?.hasPrefix("2025-03") == true
        }
        let focus = sessions.filter { $0["kind"] as? String == "focus" }
        func sum(_ rows: [[String: Any]], _ key: String) -> Int { rows.compactMap { $0[key] as? Int }.reduce(0, +) }
        func count(_ status: String) -> Int { focus.filter { $0["status"] as? String == status }.count }
        #expect(report["focused_seconds"] as? Int == sum(focus, "active_seconds"))
        #expect(report["earned_seconds"] as? Int == sum(sessions, "earned_seconds"))
        #expect(report["completed"] as? Int == count("completed"))
        #expect(report["interrupted"] as? Int == count("interrupted") && count("interrupted") == 1)
        #expect(report["skipped"] as? Int == count("skipped") && count("skipped") == 4)
        #expect(report["breaks"] as? Int == sessions.count - focus.count)
        #expect(report["days_met_goal"] as? Int == 29 && report["label"] as? String == "2025-03")
        let days = try #require(report["days"] as? [[String: Any]])
        #expect(days.count == 31 && sum(days, "focused_seconds") == sum(focus, "active_seconds"))
        let tags = try #require(report["tags"] as? [[String: Any]])
        #expect(tags.first?["tag"] as? String == "writing")
        #expect(
            tags.first { $0["tag"] as? String == "deep work" }?["rounds"] as? Int
                == focus.filter { ($0["tags"] as? [String])?.contains("deep work") == true }.count)
        #expect(report["best_hour"] as? Int == 9)
        // The ledger's side, today: spends, a pass's use and emergency draws by the day of each entry.
        _ = s.run("ledger", "adjust", "+1h", "--reason", "seed")
        _ = s.run("spend", "5m", "--on", "video")
        _ = s.run("emergency", "2m", "--reason", "call")
        let day = try Self.object(s.run("report", "day", "--json").out)
        let ledger = try #require(
            try Self.object(s.run("export", "--since", "today").out)["ledger"] as? [[String: Any]])
        let spends = ledger.filter { $0["kind"] as? String == "spend" }.compactMap { $0["amount_seconds"] as? Int }
        #expect(day["spent_seconds"] as? Int == -spends.reduce(0, +) && spends == [-300])
        #expect(day["emergency_seconds"] as? Int == 120 && day["emergency_draws"] as? Int == 1)
        // The text says the same, skipped rounds and emergency draws included.
        let text = s.run("report", "month", "2025-03-15").out
        #expect(text.contains("4 skipped") && text.contains("1 stopped"))
        let today = s.run("report", "day").out
        #expect(today.contains("emergency 2m (1 draw)") && today.contains("spent 5m"))
        let history = s.run("history", "--since", "today").out
        #expect(history.contains("spent emergency") && history.contains("5m        2m"))
    }

    @Test func theReportDrawsBarsAndAHeatMapInOneAccentColour() throws {
        let s = Self.march()
        _ = s.run("config", "set", "focus.daily-goal", "2h")
        func report(color: Bool, _ words: String...) -> String {
            let out = Buffer()
            var environment = s.environment
            if color { environment.removeValue(forKey: "NO_COLOR") }
            let context = CommandContext(
                environment: environment, stdout: out, stderr: Buffer(), stdoutIsTerminal: true, stdinIsTerminal: false)
            #expect(HumMain.run(arguments: ["hum", "report"] + words, context: context) == 0)
            return out.text
        }
        let plain = report(color: false, "month", "2025-03-15")
        #expect(!plain.contains("\u{1B}"))
        #expect(plain.contains("  Wed 03-12 ███"))
        let heat = plain.split(separator: "\n").filter {
            ($0.hasPrefix("  Mon ") || $0.hasPrefix("  Sun ")) && !$0.contains("03-")
        }
        #expect(heat.count == 2 && heat.allSatisfy { $0.contains("█") })
        let colored = report(color: true, "month", "2025-03-15")
        let escapes = Set(colored.matches(of: /\u{1B}\[[0-9;]*m/).map { String($0.output) })
        #expect(escapes == ["\u{1B}[36m", "\u{1B}[0m"])
        for line in plain.split(separator: "\n") { #expect(line.count <= 80, "\(line)") }
        let year = report(color: false, "year", "2025-03-15")
        for line in year.split(separator: "\n") { #expect(line.count <= 80, "\(line)") }
        #expect(year.contains("  Mar ███") && year.contains("  Apr "))
    }

    /// Every period kind, through the built binary (a trap is an exit code there, not a crashed test run), for a
    /// period in the future, a past one with no rounds and one with rounds only in its middle, in every format
    /// `hum report` offers.
    @Test func everyPeriodReportsAFuturePastOrSparsePeriodInEveryFormat() throws {
        let s = Sandbox()
        // Rounds only in the middle of a week, a month and a year (Wednesday 2024-07-17) and of a day (noon).
        for (id, start) in [("mid-1", "2024-07-17T12:00:00+02:00"), ("mid-2", "2024-07-17T13:00:00+02:00")] {
            #expect(s.run("history", "record", "--id", id, "--start", start, "--active", "25m").code == 0)
        }
        let thisYear = Calendar(identifier: .gregorian).component(.year, from: Date())
        let dates = [
            "\(thisYear + 1)-01-01", "\(thisYear + 1)-06-15", "\(thisYear + 40)-12-31", "9999-12-31",  // future
            "2020-06-15", "1970-01-01",  // past, nothing recorded
            "2024-07-17",  // rounds in the middle
        ]
        let formats = ReportCommand.format.info.valueWords
        #expect(formats.count >= 2)
        for period in ReportPeriod.allCases {
            for date in dates {
                for format in formats {
                    let r = try runBinary(
                        ["report", period.rawValue, date, "--format", format], environment: s.environment)
                    #expect(r.code == 0 && r.err.isEmpty, "report \(period) \(date) \(format): \(r.code) \(r.err)")
                    #expect(!r.out.isEmpty, "report \(period) \(date) \(format) printed nothing")
                    if format == "json" {
                        let object = try Self.object(r.out)
                        #expect(object["period"] as? String == period.rawValue)
                        if date == "2024-07-17" { #expect(object["focused_seconds"] as? Int == 3000) }
                    } else if date == "2024-07-17" {
                        #expect(r.out.contains("focused     50m"), "\(r.out)")
                    } else if date.hasPrefix("\(thisYear + 1)-06") {
                        #expect(r.out.contains("no day of this \(period.rawValue) has begun yet"), "\(r.out)")
                    }
                }
            }
        }
    }

    /// The text of a report never traps, whatever the period, the day it holds, today and the width: every period
    /// kind at dates from years before today to years after, with rounds at its edges, its middle or nowhere.
    @Test func reportTextRendersForAnyPeriodTodayAndWidth() {
        let todays = ["2026-12-02", "2025-01-01", "2024-02-29", "2027-12-31", "1970-01-01", "9999-12-31"].compactMap {
            CivilDate(text: $0)
        }
        var checked = 0
        for today in todays {
            for period in ReportPeriod.allCases {
                for offset in stride(from: Int64(-800), through: 800, by: 37) {
                    let date = today.adding(days: offset)
                    guard (1970...9999).contains(date.year) else { continue }
                    let (first, last) = period.days(holding: date)
                    let middle = first.adding(days: (last.daysSinceEpoch - first.daysSinceEpoch) / 2)
                    let placements: [[CivilDate]] = [[], [middle], [first, last]]
                    for (p, days) in placements.enumerated() {
                        let rounds = days.enumerated().map { i, day in
                            RoundRecord(
                                id: "r\(i)", kind: .focus, status: .completed,
                                start: Timestamp(epochSeconds: day.daysSinceEpoch * 86_400 + 36_000, offsetSeconds: 0),
                                end: nil, plannedSeconds: 1500, activeSeconds: 1500, pausedSeconds: 0, tags: ["t"])
                        }
                        var focus: [CivilDate: Int64] = [:]
                        for day in days { focus[day, default: 0] += 1500 }
                        let report = HistoryReport(
                            period: period, holding: date, today: today, goalSeconds: p == 0 ? 0 : 3600,
                            rounds: rounds, entries: [], focusByDay: focus)
                        for width in [1, 40, 80, 400] {
                            let text = ReportText(
                                report: report, focusByDay: focus, width: width, color: p == 2, tags: []
                            ).text()
                            #expect(text.hasPrefix("\(period.rawValue) \(report.label)"))
                            #expect(text.contains("\n  Sun"), "no heat map: \(period) \(date) today \(today)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 1000)
    }

    @Test func iCalendarParsesAndRoundTripsTimesWithTheirOffsets() throws {
        let s = Self.march()
        let file = s.root + "/march.ics"
        let r = s.run("export", "--format", "ical", "-o", file)
        #expect(r.code == 0, "\(r.err)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n") && text.hasSuffix("END:VCALENDAR\r\n"))
        let export = try Self.object(s.run("export", "--format", "json").out)
        let sessions = try #require(export["sessions"] as? [[String: Any]])
        var expected = ""
        for session in sessions {
            expected +=
                "\(session["id"] as? String ?? "")@hum \(session["start"] as? String ?? "") "
                + "\(session["end"] as? String ?? "-")\n"
        }
        // Python's icalendar (Debian's python3-icalendar), when installed, reads it back.
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python),
            (try? runProgram(python, ["-c", "import icalendar"])) == 0
        else {
            // ICalendarTests checks the same file's rules with a reader of its own.
            Issue.record("python3-icalendar is not installed ('make test-deps'); only the built-in checks ran")
            return
        }
        let script = """
            import sys, icalendar
            cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
            for ev in cal.walk('VEVENT'):
                end = ev.get('DTEND')
                print(str(ev.get('UID')), ev.get('DTSTART').dt.isoformat(), end.dt.isoformat() if end else '-')
            """
        let out = s.root + "/python.out"
        #expect(try runProgram(python, ["-c", script, file], stdout: out) == 0)
        #expect(try String(contentsOfFile: out, encoding: .utf8) == expected)
    }

    @Test func settingsShowTheirSourceAndFocusTakesThem() throws {
        let s = Sandbox()
        #expect(s.run("config", "set", "earn.ratio", "4").out == "earn.ratio = 4: 25m of focus now earns 6m15s\n")
        #expect(s.run("config", "set", "focus.length", "50").out == "focus.length = 50m\n")
        #expect(s.run("config", "set", "earn.ratio", "4").out == "earn.ratio = 4: 50m of focus now earns 12m30s\n")
        let r = s.run("config", "set", "profile.deep", "--focus 90m --rounds 2 --tag deep brown=30")
        #expect(r.code == 0 && r.out.contains("use it with 'hum focus --profile deep'"), "\(r.err)")
        #expect(s.run("config", "set", "focus.rounds", "none").code == 2)
        // Where each value comes from.
        let out = Buffer()
        var environment = s.environment
        environment["HUM_FOCUS_ROUNDS"] = "6"
        let context = CommandContext(
            environment: environment, stdout: out, stderr: Buffer(), stdoutIsTerminal: false, stdinIsTerminal: false)
        #expect(HumMain.run(arguments: ["hum", "config", "list"], context: context) == 0)
        #expect(out.text.contains("focus.length          50m        setting\n"))
        #expect(out.text.contains("focus.rounds          6          environment HUM_FOCUS_ROUNDS\n"))
        #expect(out.text.contains("focus.fade            10s        default\n"))
        #expect(out.text.contains("profile.deep          --focus 1h30m --rounds 2 --tag deep brown=30\n"))
        let json = try Self.object(s.run("config", "list", "--json").out)
        let rows = try #require(json["settings"] as? [[String: Any]])
        #expect(rows.count == SettingCatalog.keys.count + 1)
        #expect(rows.allSatisfy { ($0["description"] as? String)?.isEmpty == false && $0["type"] != nil })
        #expect(s.run("config", "unset", "focus.length").out == "focus.length = 25m (default)\n")
        #expect(s.run("config", "get", "profile.deep").out == "--focus 1h30m --rounds 2 --tag deep brown=30\n")
        #expect(s.run("config", "unset", "profile.deep").out == "removed profile.deep\n")
    }

    /// `history record --start` takes the words of `--since` with a local time after them, or an instant.
    @Test func recordStartTakesDateWordsWithATime() throws {
        func start(_ words: String...) throws -> String {
            let parsed = try ArgumentParser.parse(
                ["--active", "25m"] + words, declarations: HistoryCommand.Record.infos, path: "history record")
            // Now is Monday 2025-03-31 12:00 in Paris (+02:00 since the day before).
            let zone = TransitionZone(initial: 3600, transitions: [(1_743_296_400, 7200)])
            let calendar = LocalCalendar(clock: ManualClock(1_743_415_200), zone: zone)
            return try HistoryCommand.Record(parsed).record(calendar: calendar).start.rfc3339
        }
        #expect(try start("--start", "yesterday 14:00") == "2025-03-30T14:00:00+02:00")
        #expect(try start("--start", "saturday 9:05") == "2025-03-29T09:05:00+01:00")
        #expect(try start("--start", "2025-03-01 08:15:30") == "2025-03-01T08:15:30+01:00")
        #expect(try start("--start", "13:00") == "2025-03-31T13:00:00+02:00")
        #expect(try start("--start", "yesterday") == "2025-03-30T00:00:00+01:00")
        #expect(try start("--start", "last week 10:00") == "2025-03-24T10:00:00+01:00")
        #expect(try start("--start", "2025-03-01T10:00:00-05:00") == "2025-03-01T10:00:00-05:00")
        let defaultStart = try start()
        #expect(defaultStart == "2025-03-31T11:35:00+02:00")
        for bad in ["yesterday 25:00", "yesterday 14:7", "tomorrow 14:00", "14:00 yesterday", "2025-03-01T10:00 9:00"] {
            #expect(throws: HumError.self, "\(bad)") { try start("--start", bad) }
        }
        let s = Sandbox()
        let r = s.run("history", "record", "--active", "25m", "--start", "yesterday 14:00")
        #expect(r.code == 0, "\(r.err)")
    }

    /// hum focus's command line reaches FocusOptions, which layers it (FocusOptionsTests holds the rules).
    @Test func focusCommandLineReachesItsOptions() throws {
        func focus(_ words: String...) throws -> FocusCommand {
            try FocusCommand(try ArgumentParser.parse(words, declarations: FocusCommand.infos, path: "focus"))
        }
        #expect(try focus().options == FocusOptions())
        let all = try focus(
            "--focus", "50m", "--short-break", "90s", "--long-break", "1h", "--long-every", "3", "--rounds", "2",
            "--fade", "2.5s", "--auto-advance", "none", "--quiet", "--inhibit", "--goal", "draft", "--tag", "a",
            "--tag", "b", "--profile", "deep", "rain=40", "brown")
        #expect(
            all.options
                == FocusOptions(
                    focus: .seconds(3000), shortBreak: .seconds(90), longBreak: .seconds(3600), longEvery: 3,
                    rounds: 2, fade: .milliseconds(2500), autoAdvance: .off, quiet: true, inhibit: true,
                    goal: "draft", tags: ["a", "b"], profile: "deep", words: ["rain=40", "brown"]))
        #expect(try focus("--no-sound").options == FocusOptions(noSound: true))
        #expect(throws: HumError.self) { try focus("--no-sound", "rain") }
        // --on-event is split as a shell would: quoted words stay whole; a quote left open is a usage error.
        let quoted = try focus("--on-event", "notify-send \"hum says\" 'it is time'")
        #expect(quoted.options.onEvent == ["notify-send", "hum says", "it is time"])
        #expect(throws: HumError.self) { try focus("--on-event", "say 'open") }
        // Every option a profile takes is hum focus's own, spelled the same.
        let names = Set(FocusCommand.arguments.map(\.info.name))
        for option in FocusProfile.options { #expect(names.contains(option), "\(option)") }
    }
}

/// Runs a program and waits; its exit code.
@discardableResult
func runProgram(_ path: String, _ arguments: [String], stdout: String = "/dev/null") throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if stdout != "/dev/null" { _ = FileManager.default.createFile(atPath: stdout, contents: nil) }
    process.standardOutput = FileHandle(forWritingAtPath: stdout) ?? FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
