import Foundation
import HumCore
import HumStore
import HumTestSupport
import Testing

@testable import HumCLI

@Suite struct LedgerCommandTests {
    @Test func bankOnAFreshDatabase() throws {
        let s = Sandbox()
        let r = s.run("bank", "--json")
        #expect(r.code == 0)
        let object = try #require(json(r.out) as? [String: Any])
        for key in [
            "balance_seconds", "earned_today_seconds", "daily_cap_seconds", "emergency_left_seconds", "open_pass",
        ] {
            #expect(object.keys.contains(key), "missing \(key)")
        }
        #expect(object["balance_seconds"] as? Int == 0)
        #expect(object["daily_cap_seconds"] as? Int == 10_800)
        #expect(object["emergency_left_seconds"] as? Int == 600)
        #expect(object["open_pass"] is NSNull)
    }

    @Test func exitCodes() {
        let s = Sandbox()
        #expect(s.run("spend", "5m", "--on", "video").code == 3)  // nothing banked: refused
        #expect(s.run("spend", "5x", "--on", "video").code == 2)
        #expect(s.run("spend", "5m").code == 2)
        #expect(s.run("ledger", "adjust", "10m").code == 2)
        #expect(s.run("ledger", "adjust", "+30m", "--reason", "seed").code == 0)
        let spent = s.run("spend", "10m", "--on", "video", "--key", "a")
        #expect(spent.code == 0 && spent.out.contains("20m left"))
        #expect(s.run("spend", "10m", "--on", "video", "--key", "a").out.contains("already recorded"))
        let conflict = s.run("spend", "11m", "--on", "video", "--key", "a")
        #expect(conflict.code == 3 && conflict.err.hasPrefix("hum: key \"a\""))
        #expect(s.run("spend", "1h", "--on", "video").code == 3)
        #expect(s.run("ledger", "adjust", "-1h", "--reason", "oops").code == 3)
        #expect(s.run("ledger", "--since", "never").code == 2)
        #expect(s.run("history", "--until", "2025-13-01").code == 2)
        #expect(s.run("export", "--format", "xml").code == 2)
        #expect(s.run("config", "set", "earn.ratio", "zero").code == 2)
        #expect(s.run("config", "set", "nope", "1").code == 2)
        #expect(s.run("pass", "10m").code == 2)
        #expect(s.run("pass", "10m", "--", "surely-not-a-command-xyz").code == 1)
        #expect(s.run("emergency", "5m").code == 2)
        #expect(s.run("ledger", "check").code == 0)
        #expect(s.run("ledger", "bogus").code == 2)
    }

    @Test func aRoundRecordedAgainDifferentlyIsRefused() {
        let s = Sandbox()
        #expect(s.run("history", "record", "--active", "25m", "--id", "r1").code == 0)
        #expect(s.run("history", "record", "--active", "25m", "--id", "r1").code == 0)  // a replay
        let again = s.run("history", "record", "--active", "20m", "--id", "r1")
        #expect(again.code == 3 && again.err.hasPrefix("hum: round r1 already finished as completed"), "\(again.err)")
    }

    @Test func registerShowsRunningBalanceAndCorrectionsApart() throws {
        let s = Sandbox()
        _ = s.run("ledger", "adjust", "+1h", "--reason", "seed")
        _ = s.run("history", "record", "--active", "25m", "--id", "r1")
        _ = s.run("spend", "10m", "--on", "video")
        let register = s.run("ledger")
        #expect(register.code == 0)
        let lines = register.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].contains("correction") && lines[0].hasSuffix("1h"))
        #expect(lines[1].contains("grant") && lines[1].contains("+8m20s") && lines[1].hasSuffix("1h8m20s"))
        #expect(lines[2].contains("-10m") && lines[2].hasSuffix("58m20s"))
        #expect(lines[3].hasPrefix("* 1 correction"))
        let csv = s.run("ledger", "--csv").out.split(separator: "\n")
        #expect(csv.first.map(String.init) == LedgerCommand.csvHeader)
        #expect(csv.count == 4)
        let list = try #require(json(s.run("ledger", "--json").out) as? [[String: Any]])
        #expect(list.map { $0["balance_seconds"] as? Int } == [3600, 4100, 3500])
        #expect(list.map { $0["correction"] as? Bool } == [true, false, false])
    }

    @Test func historyListsRoundsWithSummaries() throws {
        let s = Sandbox()
        _ = s.run(
            "history", "record", "--active", "25m", "--start", "2025-03-29T23:30:00+01:00", "--goal", "essay",
            "--tag", "writing", "--sound", "rain:0.5", "--sound", "cafe:0.25", "--id", "a")
        _ = s.run(
            "history", "record", "--active", "10m", "--planned", "25m", "--status", "interrupted",
            "--start", "2025-03-30T09:00:00+02:00", "--id", "b")
        _ = s.run(
            "history", "record", "--kind", "short-break", "--active", "5m", "--start", "2025-03-30T09:30:00+02:00",
            "--id", "c")
        let r = s.run("history", "--since", "2025-03-29", "--until", "2025-03-30", "--json")
        #expect(r.code == 0)
        let object = try #require(json(r.out) as? [String: Any])
        let sessions = try #require(object["sessions"] as? [[String: Any]])
        #expect(sessions.count == 3)
        #expect(sessions[0]["start"] as? String == "2025-03-29T23:30:00+01:00")
        #expect(sessions[0]["earned_seconds"] as? Int == 500)
        #expect((sessions[0]["mix"] as? [[String: Any]])?.first?["sound"] as? String == "rain")
        #expect(sessions[1]["status"] as? String == "interrupted" && sessions[1]["earned_seconds"] as? Int == 0)
        let days = try #require(object["days"] as? [[String: Any]])
        #expect(days.map { $0["period"] as? String } == ["2025-03-29", "2025-03-30"])
        #expect(days[1]["interrupted"] as? Int == 1)
        let weeks = try #require(object["weeks"] as? [[String: Any]])
        #expect(weeks.map { $0["period"] as? String } == ["2025-W13"])
        #expect(weeks[0]["focused_seconds"] as? Int == 2100)
        let text = s.run("history", "--since", "2025-03-30")
        #expect(text.out.contains("interrupted") && !text.out.contains("essay"))
    }

    @Test func exportIsAtomicAndImportRestoresIt() throws {
        let s = Sandbox()
        _ = s.run("ledger", "adjust", "+1h", "--reason", "seed")
        _ = s.run("history", "record", "--active", "25m", "--id", "r1", "--tag", "x")
        _ = s.run("spend", "5m", "--on", "video", "--key", "k")
        let file = s.root + "/backup.json"
        let r = s.run("export", "-o", file)
        #expect(r.code == 0)
        let document = try #require(
            json(String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)) as? [String: Any])
        #expect(document["schema"] as? String == "hum.export/3")
        #expect((document["sessions"] as? [Any])?.count == 1 && (document["ledger"] as? [Any])?.count == 3)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: s.root).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
        for format in ["jsonl", "csv"] {
            #expect(s.run("export", "--format", format, "-o", s.root + "/backup.\(format)").code == 0)
        }
        _ = s.run("ledger", "export", "--jsonl", "-o", s.root + "/ledger.jsonl")

        // Restore into a fresh database, from each form; twice is the same as once.
        for source in ["backup.json", "backup.jsonl", "ledger.jsonl"] {
            let other = Sandbox()
            let first = other.run("ledger", "import", s.root + "/" + source)
            #expect(first.code == 0, "\(source): \(first.err)")
            #expect(first.out.hasPrefix("imported 3 entries"))
            #expect(
                other.run("ledger", "import", s.root + "/" + source).out.hasPrefix(
                    "imported 0 entries (3 already here)"))
            #expect(other.run("bank", "--json").out.contains("\"balance_seconds\" : 3800"))
            #expect(other.run("ledger", "check").code == 0, "\(source)")
            if source != "ledger.jsonl" { #expect(other.run("history", "--json").out.contains("\"r1\"")) }
        }
    }

    @Test func importRejectsGarbageWithoutChangingAnything() throws {
        let s = Sandbox()
        _ = s.run("ledger", "adjust", "+10m", "--reason", "seed")
        let file = s.root + "/bad.jsonl"
        let good = s.run("ledger", "export").out
        var rng = SplitMix64(seed: 5)
        var bytes = Array(good.utf8)
        for attempt in 0..<150 {
            var mutated = bytes
            for _ in 0..<(1 + Int(rng.next() % 4)) where !mutated.isEmpty {
                let i = Int(rng.next() % UInt64(mutated.count))
                mutated[i] = UInt8(truncatingIfNeeded: rng.next() % 128)
            }
            if attempt % 10 == 0 {
                mutated = (0..<Int(rng.next() % 200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            }
            try Data(mutated).write(to: URL(fileURLWithPath: file))
            let r = s.run("ledger", "import", file)
            #expect([0, 1, 3].contains(r.code), "exit \(r.code)")
            #expect(s.run("ledger", "check").code == 0)
        }
        bytes = Array(
            "{\"id\":\"x\",\"kind\":\"grant\",\"amount_seconds\":99999,\"at\":\"2025-01-01T00:00:00Z\",\"device\":\"d\",\"payload\":\"p\"}\n"
                .utf8)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let r = s.run("ledger", "import", file)
        #expect(r.code == 1 && r.err.contains("invalid"))
    }

    /// Dates and amounts as people type them, generated with their known meaning: each valid one reads back to
    /// exactly that meaning, and each damaged one is refused as a usage problem (never a trap).
    @Test func dateAndAmountWordsReadToTheirMeaning() {
        var rng = SplitMix64(seed: 9)
        let calendar = LocalCalendar(clock: ManualClock(1_700_000_000), zone: FixedZone(offsetSeconds: 3600))
        func pad(_ v: Int, _ n: Int) -> String {
            String(repeating: "0", count: max(0, n - String(v).count)) + String(v)
        }
        for _ in 0..<3000 {
            let year = 1971 + Int(rng.next() % 100)
            let month = 1 + Int(rng.next() % 12)
            let day = 1 + Int(rng.next() % UInt64(CivilDate.daysIn(month: month, year: year)))
            let text = "\(year)-\(pad(month, 2))-\(pad(day, 2))"
            let date = CivilDate(year: year, month: month, day: day)!
            guard case .success(let word) = ValueKind<DateWord>.date.read(text) else {
                Issue.record("\(text) refused")
                continue
            }
            #expect(word == .day(date))
            #expect(word.epoch(endOfDay: false, calendar: calendar) == date.daysSinceEpoch * 86_400 - 3600)
            #expect(word.epoch(endOfDay: true, calendar: calendar) == (date.daysSinceEpoch + 1) * 86_400 - 3600)
            // Damaged: an impossible day or month, a stray character, a cut.
            let damaged = [
                "\(year)-\(pad(month, 2))-\(CivilDate.daysIn(month: month, year: year) + 1)",
                "\(year)-13-\(pad(day, 2))", text + "x", String(text.dropLast()), " " + text,
            ]
            for bad in damaged {
                guard case .failure(let problem) = ValueKind<DateWord>.date.read(bad) else {
                    Issue.record("\(bad) accepted")
                    continue
                }
                #expect(problem.text.hasPrefix("is not a date"))
            }
            // Amounts: h, m and s parts with a sign read back to their sum.
            let h = Int64(rng.next() % 30)
            let m = Int64(rng.next() % 60)
            let s = Int64(rng.next() % 60)
            let sign: Int64 = rng.next() % 2 == 0 ? 1 : -1
            var amount = (sign < 0 ? "-" : "+") + (h > 0 ? "\(h)h" : "") + (m > 0 ? "\(m)m" : "")
            amount += (s > 0 || (h == 0 && m == 0) ? "\(s)s" : "")
            let total = h * 3600 + m * 60 + s
            switch ValueKind<Int64>.signedSeconds.read(amount) {
            case .success(let seconds): #expect(total >= 1 && seconds == sign * total, "\(amount)")
            case .failure(let problem): #expect(total == 0 && problem.text.hasPrefix("is shorter than 1s"), "\(amount)")
            }
            #expect(throws: Never.self) { _ = ValueKind<Int64>.signedSeconds.read(amount + "h") }
            if case .success = ValueKind<Int64>.signedSeconds.read(amount + "h") { Issue.record("\(amount)h accepted") }
        }
        for word in ["today", "yesterday"] {
            guard case .success(let w) = ValueKind<DateWord>.date.read(word) else {
                Issue.record("\(word) refused")
                continue
            }
            let today = calendar.now().localDate
            let expected = word == "today" ? today : today.adding(days: -1)
            #expect(w.epoch(endOfDay: false, calendar: calendar) == calendar.startOfDay(expected))
        }
    }

    @Test func configRoundTrips() {
        let s = Sandbox()
        #expect(s.run("config", "set", "earn.daily-cap", "2h").code == 0)
        #expect(s.run("config", "get", "earn.daily-cap").out == "2h\n")
        #expect(s.run("config", "list").out.contains("earn.ratio            3          default\n"))
        #expect(s.run("config", "list").out.contains("earn.daily-cap        2h         setting\n"))
        #expect(s.run("config", "set", "earn.ratio", "5").out == "earn.ratio = 5: 25m of focus now earns 5m\n")
        _ = s.run("history", "record", "--active", "25m")
        #expect(s.run("bank", "--json").out.contains("\"balance_seconds\" : 300"))
    }

    /// A mix setting is checked on set as it is played: every sound must be in the library (as 'hum play' finds
    /// it); a bad one is refused with exit 2, one line, and nothing stored.
    @Test func aMixSettingNamesSoundsThatExist() {
        let s = Sandbox()
        for (key, value) in [
            ("play.mix", "rain=40 nosuch=3"), ("play.mix", "rian"), ("play.mix", "rain=40 rain=3"),
            ("profile.deep", "--focus 50m nosuch=3"), ("profile.deep", "--focus 50m brwn"),
        ] {
            let r = s.run("config", "set", key, value)
            #expect(r.code == 2 && r.out.isEmpty, "\(key) \(value): \(r.code) \(r.out)")
            #expect(r.err.hasPrefix("hum: \(key) \"") && r.err.hasSuffix("nothing was changed\n"), "\(r.err)")
            #expect(r.err.filter { $0 == "\n" }.count == 1)
        }
        #expect(s.run("config", "get", "play.mix").out == "\n")
        #expect(s.run("config", "get", "profile.deep").code == 1)
        #expect(s.run("config", "set", "play.mix", "rain=40 brown=25").code == 0)
        #expect(s.run("config", "get", "play.mix").out == "rain=40 brown=25\n")
        #expect(s.run("config", "set", "profile.deep", "--focus 50m brown=30").code == 0)
        // A saved mix may be named before it is saved: stored, with a warning.
        let later = s.run("config", "set", "play.mix", "@night")
        #expect(later.code == 0 && later.err.contains("there is no saved mix \"night\" yet"), "\(later.err)")
    }

    /// A bad mix stored before the check (by an older hum, by hand) makes bare 'hum' say which setting is wrong and
    /// how to fix it; a value that cannot be read at all is ignored with a warning that says how to remove it.
    @Test func aBadStoredMixSaysHowToFixIt() throws {
        let s = Sandbox()
        #expect(s.run("bank").code == 0)
        let db = try HumDatabase(path: s.databasePath)
        try db.setConfig("play.mix", to: "rain=40 nosuch=3")
        let bare = s.run([])
        #expect(bare.code == 2, "\(bare.err)")
        #expect(bare.err.hasPrefix("hum: the setting play.mix \"rain=40 nosuch=3\": unknown sound \"nosuch\""))
        #expect(bare.err.contains("'hum config unset play.mix'") && bare.err.filter { $0 == "\n" }.count == 1)
        #expect(s.run("config", "unset", "play.mix").code == 0)
        let environment = s.environment.merging(["HUM_PLAY_MIX": "nosuch"]) { $1 }
        let out = Buffer()
        let err = Buffer()
        let context = CommandContext(
            environment: environment, stdout: out, stderr: err, stdoutIsTerminal: false, stdinIsTerminal: false)
        #expect(HumMain.run(arguments: ["hum"], context: context) == 2)
        #expect(err.text.hasPrefix("hum: HUM_PLAY_MIX \"nosuch=75\": unknown sound") && err.text.contains("unset it"))
    }

    @Test func helpIsGeneratedForEveryLedgerCommand() {
        let s = Sandbox()
        for words in [
            ["bank"], ["spend"], ["ledger"], ["ledger", "adjust"], ["pass"], ["emergency"], ["history"],
            ["history", "record"], ["export"], ["config"],
        ] {
            let r = s.run(words + ["--help"])
            #expect(r.code == 0 && r.out.contains("Usage:"), "\(words)")
        }
    }
}

@Suite struct ExportSchemaTests {
    /// Checks an export against docs/export.schema.json: required keys, no unknown keys, enum values, timestamps.
    @Test func exportMatchesTheJSONSchema() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let schema = try #require(
            json(
                String(
                    decoding: try Data(contentsOf: root.appendingPathComponent("docs/export.schema.json")),
                    as: UTF8.self)) as? [String: Any])
        let defs = try #require(schema["$defs"] as? [String: Any])
        let s = Sandbox()
        _ = s.run("ledger", "adjust", "+1h", "--reason", "seed")
        _ = s.run(
            "history", "record", "--active", "25m", "--sound", "rain:0.5", "--sound", "brown=80", "--tag", "t",
            "--goal", "g")
        _ = s.run(
            "history", "record", "--active", "5m", "--kind", "short-break", "--status", "skipped", "--start",
            "2025-03-30T09:00:00+02:00")
        _ = s.run("spend", "5m", "--on", "x", "--key", "k")
        _ = s.run("emergency", "1m", "--reason", "r")
        let document = try #require(json(s.run("export").out) as? [String: Any])
        #expect(Set(document.keys) == Set(schema["required"] as? [String] ?? []))
        #expect(document["schema"] as? String == "hum.export/3")
        let properties = try #require(schema["properties"] as? [String: Any])
        #expect((properties["schema"] as? [String: Any])?["const"] as? String == document["schema"] as? String)
        #expect(schema["$id"] as? String == document["schema"] as? String)
        func check(_ object: [String: Any], against name: String) throws {
            let def = try #require(defs[name] as? [String: Any])
            let properties = try #require(def["properties"] as? [String: Any])
            for key in def["required"] as? [String] ?? [] { #expect(object[key] != nil, "\(name) lacks \(key)") }
            for (key, value) in object {
                let property = try #require(properties[key] as? [String: Any], "\(name) has unknown key \(key)")
                if let allowed = property["enum"] as? [String] {
                    #expect(allowed.contains(value as? String ?? ""), "\(key)=\(value)")
                }
                if property["$ref"] as? String == "#/$defs/timestamp" {
                    #expect(Timestamp(rfc3339: value as? String ?? "") != nil)
                }
                if property["$ref"] as? String == "#/$defs/seconds" {
                    #expect((value as? Int ?? -1) >= 0, "\(key)=\(value)")
                }
            }
        }
        let sessions = try #require(document["sessions"] as? [[String: Any]])
        let ledger = try #require(document["ledger"] as? [[String: Any]])
        #expect(sessions.count == 2 && ledger.count == 4)
        for session in sessions { try check(session, against: "session") }
        // Each sound of a mix: its keys, and its volume within the schema's range (0–100, as the command line's).
        let session = try #require(defs["session"] as? [String: Any])
        let mix = try #require(
            ((session["properties"] as? [String: Any])?["mix"] as? [String: Any])?["items"] as? [String: Any])
        let mixProperties = try #require(mix["properties"] as? [String: Any])
        let volume = try #require(mixProperties["volume"] as? [String: Any])
        let range = try #require(volume["minimum"] as? Double)...(try #require(volume["maximum"] as? Double))
        let items = sessions.flatMap { $0["mix"] as? [[String: Any]] ?? [] }
        #expect(items.map { $0["volume"] as? Double } == [50, 80])
        for item in items {
            #expect(
                Set(item.keys) == Set(mix["required"] as? [String] ?? []) && Set(item.keys) == Set(mixProperties.keys))
            #expect(range.contains(item["volume"] as? Double ?? -1), "\(item)")
        }
        for entry in ledger { try check(entry, against: "entry") }
    }
}
