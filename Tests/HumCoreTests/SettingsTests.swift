import HumTestSupport
import Testing

@testable import HumCore

@Suite struct SettingsTests {
    @Test func everyDefaultIsValidAndWrittenInItsOneForm() throws {
        for d in SettingCatalog.definitions {
            if !d.defaultText.isEmpty { #expect(try d.normalise(d.defaultText) == d.defaultText, "\(d.key)") }
            #expect(!d.summary.isEmpty && !d.summary.contains("\n") && d.summary.first?.isLowercase == true)
        }
        #expect(Set(SettingCatalog.keys).count == SettingCatalog.keys.count)
        // The ledger's rules are the database's alone: no environment variable can change them for one process.
        for key in LedgerConfig.keys { #expect(try SettingCatalog.definition(key).environment == nil) }
        #expect(try SettingCatalog.definition("play.device").environment == "HUM_DEVICE")
        let speakers = try SettingCatalog.definition("play.speakers")
        #expect(speakers.environment == "HUM_SPEAKERS" && speakers.defaultText == "full")
        #expect(try speakers.normalise("small") == "small")
        #expect(throws: SettingError.self) { try speakers.normalise("tiny") }
        #expect(!SyncSettings.travels("play.speakers"))  // the speakers are this machine's, like its sound card
        let settings = Settings(stored: [:])
        #expect(try settings.focusPlan() == FocusPlan.standard)
        #expect(settings.ledger == LedgerConfig())
        #expect(settings.dailyGoalSeconds == 7200)
    }

    @Test func theEnvironmentWinsOverTheStoredValueWhichWinsOverTheDefault() {
        let stored = ["focus.length": "50m", "focus.rounds": "3", "earn.ratio": "4", "notify.bell": "banana"]
        let env = ["HUM_FOCUS_ROUNDS": "6", "HUM_DEVICE": "hw:1", "HUM_FOCUS_FADE": "forever", "HUM_EARN_RATIO": "1"]
        let s = Settings(stored: stored, environment: env)
        #expect(s.value("focus.length") == .init(key: "focus.length", text: "50m", source: .stored))
        #expect(
            s.value("focus.rounds") == .init(key: "focus.rounds", text: "6", source: .environment("HUM_FOCUS_ROUNDS")))
        #expect(s.value("play.device").source == .environment("HUM_DEVICE"))
        #expect(s.value("focus.short-break").source == .builtIn)
        #expect(s.value("earn.ratio").text == "4" && s.ledger.earnRatioMilli == 4000)
        // What cannot be read is ignored, and said.
        #expect(s.value("notify.bell") == .init(key: "notify.bell", text: "on", source: .builtIn))
        #expect(s.value("focus.fade").text == "10s")
        #expect(s.ignored.count == 2)
        #expect(s.ignored.contains { $0.contains("HUM_FOCUS_FADE") })
        #expect(s.value("earn.ratio").source == .stored)
        #expect(Source.environment("HUM_DEVICE").description == "environment HUM_DEVICE")
    }

    typealias Source = Settings.Source

    @Test func valuesAreNormalisedAndRefusedWithTheirReason() throws {
        #expect(try SettingCatalog.normalise("focus.length", "90") == "1h30m")
        #expect(try SettingCatalog.normalise("focus.fade", "500ms") == "500ms")
        #expect(try SettingCatalog.normalise("notify.desktop", "FALSE") == "off")
        #expect(try SettingCatalog.normalise("play.mix", "rain=40  brown") == "rain=40 brown=75")
        #expect(try SettingCatalog.normalise("play.mix", "@night") == "@night")
        #expect(try SettingCatalog.normalise("focus.on-event", "notify.sh  --loud") == "notify.sh --loud")
        #expect(
            try SettingCatalog.normalise("focus.on-event", "notify-send  \"hum says\"") == "notify-send 'hum says'")
        #expect(try SettingCatalog.normalise("focus.daily-goal", "0") == "0s")
        for (key, bad) in [
            ("focus.length", "0s"), ("focus.daily-goal", "25h"), ("focus.daily-goal", "1.5s"), ("focus.rounds", "0"),
            ("focus.auto-advance", "some"), ("play.mix", "@night rain"), ("play.mix", "=4"), ("play.device", "a b"),
            ("notify.bell", "maybe"), ("earn.ratio", "0"), ("focus.on-event", "say 'open"), ("profile.deep", "--focus"),
            ("profile.deep", "--volume 3"),
        ] {
            #expect(throws: SettingError.self, "\(key) \(bad)") { try SettingCatalog.normalise(key, bad) }
        }
        #expect(throws: SettingError.unknownKey("focus.lenght")) { try SettingCatalog.normalise("focus.lenght", "1") }
        #expect(throws: SettingError.self) { try SettingCatalog.definition("profile.") }
        #expect(throws: SettingError.self) { try SettingCatalog.definition("profile.a b") }
    }

    @Test func profilesReadAsOptionsAndWriteBackCanonically() throws {
        let p = try FocusProfile(
            text: "--focus 50m --short-break=10m --rounds 3 brown=30 --goal 'deep work' --tag a --tag \"b c\"")
        #expect(p.focus == 3_000_000 && p.shortBreak == 600_000 && p.rounds == 3)
        #expect(p.goal == "deep work" && p.tags == ["a", "b c"] && p.mix == ["brown=30"])
        #expect(
            p.text == "--focus 50m --short-break 10m --rounds 3 --goal \"deep work\" --tag a --tag \"b c\" brown=30")
        #expect(try FocusProfile(text: p.text) == p)
        #expect(try FocusProfile(text: "--no-sound --auto-advance none").autoAdvance == FocusPlan.AutoAdvance.off)
        for bad in [
            "--no-sound rain", "--rounds 0", "--goal", "--fade -1s", "\"open", "--goal \"it's\"'\"'", "--long-every x",
        ] {
            #expect(throws: FocusProfile.Problem.self, "\(bad)") { try FocusProfile(text: bad) }
        }
    }

    /// Random words through every setting: an accepted value is written in one form that reads back as itself,
    /// a refused one says why on one line; nothing traps.
    @Test func randomValuesNeverTrapAndRoundTrip() {
        var rng = SplitMix64(seed: 150)
        let pieces = [
            "0", "1", "25", "1000", "1001", "m", "s", "h", "ms", ".", "-", "--", "focus", "rounds", " ", "'", "\"", "=",
            "@", "rain", "on", "off", "yes", "all", "none", "é", "\u{0}", "\n", "--focus ", "--tag ", "--no-sound",
        ]
        for _ in 0..<3000 {
            let text = (0..<(1 + Int(rng.next() % 6))).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }
                .joined()
            for key in SettingCatalog.keys + ["profile.x"] {
                do {
                    let once = try SettingCatalog.normalise(key, text)
                    #expect(try SettingCatalog.normalise(key, once) == once, "\(key) \(text.debugDescription)")
                } catch {
                    #expect(!error.message.isEmpty && !error.message.contains("\n"))
                }
            }
        }
    }
}
