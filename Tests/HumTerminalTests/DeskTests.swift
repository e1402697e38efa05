import HumCore
import Testing

@testable import HumTerminal

/// The full screen's pure parts: the layout at 80×24 and 40×12, the big digits, the key map, the add filter.
@Suite struct DeskLayoutTests {
    static func status(focus: PlayerStatus.Focus? = nil, state: PlayerStatus.State = .playing) -> PlayerStatus {
        PlayerStatus(
            pid: 42, session: "s", state: state,
            mix: Mix(tracks: [.init(sound: "rain", volume: 75), .init(sound: "brown", volume: 50, muted: true)]),
            focus: focus)
    }

    static func focus(remaining: Int64 = 724, paused: Bool = false) -> PlayerStatus.Focus {
        PlayerStatus.Focus(
            phase: .focus, round: 2, rounds: 4, remainingSeconds: remaining, plannedSeconds: 1500, deadline: nil,
            paused: paused, waiting: false, goal: "draft chapter 2", tags: [], fadeSeconds: 10)
    }

    static func state(_ status: PlayerStatus? = status()) -> DeskState {
        var state = DeskState(color: false)
        state.status = status
        state.clock = "09:41"
        state.bank = DeskBank(
            balanceSeconds: 3900, earnedTodaySeconds: 1500, dailyCapSeconds: 10800, emergencyLeftSeconds: 600,
            emergencyWeeklySeconds: 600, pass: nil)
        state.sounds = [
            DeskSound(name: "rain", description: "Steady rain on a roof."),
            DeskSound(name: "birds", description: "Birds waking a wood at dawn."),
            DeskSound(name: "brown", description: "A deep, soft rumble."),
            DeskSound(name: "stream", description: "A brook over stones."),
            DeskSound(name: "fire", description: "A wood fire, crackling."),
        ]
        return state
    }

    /// Every line fits the width and there is exactly one line per row.
    static func checkFits(_ frame: DeskFrame) {
        #expect(frame.lines.count == frame.rows)
        for line in frame.lines { #expect(line.width <= frame.columns, "\(line.text)") }
    }

    @Test func deskFormAt80x24ShowsTheBigClockTheMixerAndTheBank() {
        let frame = DeskLayout.frame(Self.state(), columns: 80, rows: 24)
        Self.checkFits(frame)
        let expected = """
             hum                                                                    playing

                                   ██████  ██████      ██  ██    ██
                                   ██  ██  ██  ██  ██  ██  ██  ████
                                   ██  ██  ██████      ██████    ██
                                   ██  ██      ██  ██      ██    ██
                                   ██████  ██████          ██  ██████

                                         f starts focus rounds


              sounds                                              bank
            › rain         █████████████████████░░░░░░░ 75        balance  1h5m
              brown        ██████████████░░░░░░░░░░░░░░ muted     today    25m / 3h
              master       ████████████████████████████ 100       reserve  10m / 10m
                                                                  pass     none open







             a add · x remove · f focus · space pause · S save · l load · ? keys · q quit
            """
        #expect(frame.text == expected, "\n\(frame.text)")
        // The volume bars are where a click sets them: rain, brown, then the master.
        #expect(frame.bars.map(\.sound) == ["rain", "brown", nil])
        #expect(frame.bars.allSatisfy { $0.width == 28 && $0.column == 15 })
    }

    @Test func theShieldsShowUnderTheBankInEveryForm() {
        var status = Self.status()
        let at = { (h: Int64, m: Int64) in Timestamp(epochSeconds: h * 3600 + m * 60, offsetSeconds: 0) }
        status.shields = [
            ShieldLine(name: "games", state: "up"), ShieldLine(name: "social", state: "lifted", until: at(14, 32)),
            ShieldLine(name: "news", state: "off", until: at(15, 0)),
        ]
        let frame = DeskLayout.frame(Self.state(status), columns: 80, rows: 24)
        Self.checkFits(frame)
        let lines = frame.lines.map(\.text)
        #expect(lines[18].hasSuffix("shields"), "\(frame.text)")
        #expect(lines[19].hasSuffix("games   up"), "\(frame.text)")
        #expect(lines[20].hasSuffix("social  lifted until 14:32"), "\(frame.text)")
        #expect(lines[21].hasSuffix("news    off until 15:00"), "\(frame.text)")
        // More shields than rows: the last row says how many more.
        status.shields = (1...6).map { ShieldLine(name: "s\($0)", state: "up") }
        let crowded = DeskLayout.frame(Self.state(status), columns: 80, rows: 24)
        Self.checkFits(crowded)
        #expect(crowded.lines[21].text.hasSuffix("+4 more (hum shield list)"), "\(crowded.text)")
        // The small form: one line under the bank; the calm form: in the summary.
        status.shields = [ShieldLine(name: "games", state: "lifted", until: at(14, 32))]
        let small = DeskLayout.frame(Self.state(status), columns: 40, rows: 12)
        Self.checkFits(small)
        #expect(small.lines[10].text.contains("shields: games lifted until 14:32"), "\(small.text)")
        var calm = Self.state(status)
        calm.controlsShown = false
        let quiet = DeskLayout.frame(calm, columns: 120, rows: 24)
        #expect(quiet.text.contains("bank 1h5m │ shields: games lifted until 14:32"), "\(quiet.text)")
    }

    @Test func smallFormAt40x12GivesUpTheBigDigitsButKeepsEverything() {
        var state = Self.state(Self.status(focus: Self.focus()))
        let frame = DeskLayout.frame(state, columns: 40, rows: 12)
        Self.checkFits(frame)
        #expect(!frame.text.contains("██████  "), "\(frame.text)")  // no big digits
        let lines = frame.lines.map(\.text)
        #expect(lines[1].contains("12:04  (09:41)"), "\(frame.text)")
        #expect(lines[2].contains("focus · round 2/4 · draft chapter 2"), "\(frame.text)")
        #expect(lines[3].contains("51%"), "\(frame.text)")
        #expect(lines[4].hasPrefix("› rain") && lines[4].hasSuffix("░ 75   "), "\(frame.text)")
        #expect(lines[5].hasPrefix("  brown") && lines[5].hasSuffix("muted"), "\(frame.text)")
        #expect(lines[6].hasPrefix("  master"), "\(frame.text)")
        #expect(lines[9].contains("bank 1h5m · today 25m/3h"), "\(frame.text)")
        #expect(lines[11].contains("? keys · q quit"), "\(frame.text)")
        // The help fits too.
        state.panel = .help
        let help = DeskLayout.frame(state, columns: 40, rows: 12)
        Self.checkFits(help)
        #expect(help.text.contains("select a sound"), "\(help.text)")
    }

    @Test func focusShowsTheCountdownRoundGoalAndProgress() {
        let frame = DeskLayout.frame(Self.state(Self.status(focus: Self.focus())), columns: 80, rows: 24)
        let digits = BigDigits.render("12:04")
        for (offset, line) in digits.enumerated() {
            #expect(frame.lines[2 + offset].text.contains(line))
            #expect(frame.lines[2 + offset].spans.contains { $0.style == .bold })
        }
        #expect(frame.lines[0].text.contains("09:41  playing"))
        #expect(frame.lines[8].text.contains("focus · round 2/4 · draft chapter 2"))
        #expect(frame.lines[9].text.contains("████████████████████░░░░░░░░░░░░░░░░░░░░ 51%"), "\(frame.lines[9].text)")
    }

    @Test func theFadeDimsTheDigitsAsItHappens() {
        let frame = DeskLayout.frame(Self.state(Self.status(focus: Self.focus(remaining: 8))), columns: 80, rows: 24)
        #expect(frame.lines[2].spans.contains { $0.style == .dim && $0.text.contains("██") })
        #expect(frame.lines[8].text.contains("fading out"))
        let before = DeskLayout.frame(Self.state(Self.status(focus: Self.focus(remaining: 11))), columns: 80, rows: 24)
        #expect(!before.lines[8].text.contains("fading"))
    }

    @Test func aBreakSaysWhatComesNext() {
        var focus = Self.focus(remaining: 300)
        focus.phase = .shortBreak
        let frame = DeskLayout.frame(Self.state(Self.status(focus: focus)), columns: 80, rows: 24)
        #expect(frame.lines[8].text.contains("break · next: focus 3/4"), "\(frame.text)")
    }

    @Test func hiddenControlsLeaveTheClockAndOneSummaryLine() {
        var state = Self.state()
        state.controlsShown = false
        let frame = DeskLayout.frame(state, columns: 80, rows: 24)
        Self.checkFits(frame)
        let used = frame.lines.map(\.text).filter { !$0.allSatisfy { $0 == " " } }
        #expect(used.count == 7, "\(frame.text)")  // five rows of digits, the caption, the summary
        #expect(used.last?.contains("♪ rain 75 · brown muted │ master 100 │ bank 1h5m") == true, "\(frame.text)")
        #expect(frame.bars.isEmpty)
    }

    @Test func earnedTimeShowsInTheAccentColourOnly() {
        var state = Self.state()
        state.earned = 1500
        let frame = DeskLayout.frame(state, columns: 80, rows: 24)
        let accents = frame.lines.flatMap(\.spans).filter { $0.style == .accent }
        #expect(accents.map(\.text) == [" +25m earned "])
        state.earned = nil
        #expect(!DeskLayout.frame(state, columns: 80, rows: 24).lines.flatMap(\.spans).contains { $0.style == .accent })
    }

    @Test func aRoundThatEarnedFlashesAndAnOpenPassCountsDown() {
        var state = Self.state()
        var bank = state.bank!
        let unchanged = state.receive(bank: bank)
        #expect(!unchanged)  // nothing new
        #expect(state.earned == nil)
        bank.earnedTodaySeconds += 1500
        bank.balanceSeconds += 1500
        bank.pass = DeskBank.Pass(label: "walk", deadlineEpoch: 1_000_900)
        let flashed = state.receive(bank: bank)
        #expect(flashed)
        #expect(state.earned == 1500)
        state.nowEpoch = 1_000_000
        var frame = DeskLayout.frame(state, columns: 80, rows: 24)
        #expect(frame.lines[13].text.hasSuffix("today    50m / 3h"), "\(frame.text)")
        #expect(frame.lines[15].text.hasSuffix("pass     walk 15m left"), "\(frame.text)")
        #expect(frame.lines[17].spans.last == DeskFrame.Span(" +25m earned ", .accent), "\(frame.text)")
        state.nowEpoch += 60
        frame = DeskLayout.frame(state, columns: 80, rows: 24)
        #expect(frame.lines[15].text.hasSuffix("pass     walk 14m left"), "\(frame.text)")
        // A bank that cannot be read, then read again, is no earning.
        state.earned = nil
        let unread = state.receive(bank: nil)
        let readAgain = state.receive(bank: bank)
        #expect(!unread && !readAgain)
        #expect(state.earned == nil)
    }

    @Test func colonsBlinkOnlyWhenAskedFor() {
        var state = Self.state()
        state.nowEpoch = 1_000_001  // an odd second
        #expect(DeskLayout.frame(state, columns: 80, rows: 24).lines[3].text.contains(BigDigits.render("09:41")[1]))
        state.blink = true
        let odd = DeskLayout.frame(state, columns: 80, rows: 24)
        #expect(odd.lines[3].text.contains(BigDigits.render("09 41")[1]), "\(odd.text)")
        state.nowEpoch += 1
        let even = DeskLayout.frame(state, columns: 80, rows: 24)
        #expect(even.lines[3].text.contains(BigDigits.render("09:41")[1]), "\(even.text)")
        state.controlsShown = true
        state.nowEpoch += 1
        let small = DeskLayout.frame(state, columns: 40, rows: 12)
        #expect(small.lines[1].text.contains("09 41"), "\(small.text)")
    }

    @Test func everySizeFitsWithoutATrap() {
        var state = Self.state(Self.status(focus: Self.focus()))
        for panel: DeskState.Panel in [.main, .add, .save, .load, .help] {
            state.panel = panel
            for columns in [0, 1, 10, 39, 40, 49, 50, 80, 200] {
                for rows in [0, 1, 3, 11, 12, 19, 20, 24, 60] {
                    Self.checkFits(DeskLayout.frame(state, columns: columns, rows: rows))
                }
            }
        }
    }

    /// Names and goals in wide characters (two columns each) stay inside the screen: counted here by an oracle of
    /// the test's own (these ideographs and the rocket take two columns, everything else one).
    @Test func wideNamesAndGoalsFit() {
        func columns(_ text: String) -> Int {
            text.unicodeScalars.reduce(0) { $0 + ((0x3000...0x9FFF).contains($1.value) || $1.value >= 0x1F300 ? 2 : 1) }
        }
        var focus = Self.focus()
        focus.goal = String(repeating: "論文を書く🚀", count: 12)
        var status = Self.status(focus: focus)
        status.mix = Mix(tracks: [.init(sound: "雨の音と遠くの雷と風の音", volume: 75), .init(sound: "rain", volume: 40)])
        var state = Self.state(status)
        state.mixes = [DeskMix(name: "夜の雨の音", summary: "雨の音と遠くの雷 75")]
        for panel: DeskState.Panel in [.main, .load] {
            state.panel = panel
            for (c, r) in [(80, 24), (40, 12), (50, 20)] {
                let frame = DeskLayout.frame(state, columns: c, rows: r)
                for line in frame.lines { #expect(columns(line.text) <= c, "\(c)x\(r): \(line.text)") }
                #expect(frame.lines.contains { $0.text.contains("雨の") }, "\(c)x\(r) \(panel): \(frame.text)")
            }
        }
    }

    @Test func bigDigitsAreFiveRowsOfBlocks() {
        let rows = BigDigits.render("10:05")
        #expect(rows.count == 5)
        #expect(rows.allSatisfy { $0.count == BigDigits.width("10:05") })
        #expect(rows[0] == "  ██    ██████      ██████  ██████")
        #expect(rows[4] == "██████  ██████      ██████  ██████")
    }
}

@Suite struct DeskKeysTests {
    @Test func arrowsDigitsMuteAndMasterSteerTheSelectedSound() {
        var state = DeskLayoutTests.state()
        #expect(DeskKeys.handle(.right, state: &state) == .command(.volume(sound: "rain", volume: 80)))
        #expect(DeskKeys.handle(.down, state: &state) == .none)
        #expect(state.selected == 1)
        #expect(DeskKeys.handle(.left, state: &state) == .command(.volume(sound: "brown", volume: 45)))
        #expect(DeskKeys.handle(.character("3"), state: &state) == .command(.volume(sound: "brown", volume: 30)))
        #expect(DeskKeys.handle(.character("m"), state: &state) == .command(.mute(sound: "brown", muted: nil)))
        #expect(DeskKeys.handle(.character("-"), state: &state) == .command(.master(volume: 95)))
        #expect(DeskKeys.handle(.character("x"), state: &state) == .command(.remove(sound: "brown")))
        #expect(DeskKeys.handle(.down, state: &state) == .none)
        #expect(state.selected == 0)  // wraps
    }

    @Test func addFiltersAsYouTypeAndAddsTheChosenSound() {
        var state = DeskLayoutTests.state()
        #expect(DeskKeys.handle(.character("a"), state: &state) == .none)
        #expect(state.panel == .add)
        // Sounds already in the mix are not offered.
        #expect(state.matches.map(\.name) == ["birds", "stream", "fire"])
        _ = DeskKeys.handle(.character("s"), state: &state)
        // Names that start with the filter first, then those whose name or description holds it.
        #expect(state.matches.map(\.name) == ["stream", "birds"])
        _ = DeskKeys.handle(.down, state: &state)
        _ = DeskKeys.handle(.character("r"), state: &state)  // typing puts the cursor back on the first match
        #expect(state.cursor == 0)
        #expect(state.matches.map(\.name) == [])
        _ = DeskKeys.handle(.backspace, state: &state)
        _ = DeskKeys.handle(.character("t"), state: &state)
        #expect(state.matches.map(\.name) == ["stream"])
        _ = DeskKeys.handle(.backspace, state: &state)
        _ = DeskKeys.handle(.down, state: &state)
        #expect(DeskKeys.handle(.enter, state: &state) == .command(.add(sound: "birds", volume: Volume.default)))
        #expect(state.panel == .main)
        #expect(state.selected == 2)
    }

    @Test func escapeAndBackspaceInTheAddPanel() {
        var state = DeskLayoutTests.state()
        _ = DeskKeys.handle(.character("a"), state: &state)
        for c in "zz" { _ = DeskKeys.handle(.character(c), state: &state) }
        #expect(state.matches.isEmpty)
        #expect(DeskKeys.handle(.enter, state: &state) == .none)
        #expect(state.message == "no sound matches \"zz\"")
        _ = DeskKeys.handle(.backspace, state: &state)
        #expect(state.filter == "z")
        _ = DeskKeys.handle(.escape, state: &state)
        #expect(state.panel == .main)
    }

    @Test func saveAsTakesAValidNameAndLoadPicksAMix() {
        var state = DeskLayoutTests.state()
        _ = DeskKeys.handle(.character("S"), state: &state)
        #expect(state.panel == .save)
        for c in "deep work" { _ = DeskKeys.handle(.character(c), state: &state) }
        #expect(state.name == "deepwork")  // a space cannot be in a name
        #expect(DeskKeys.handle(.enter, state: &state) == .saveMix("deepwork"))
        _ = DeskKeys.handle(.character("S"), state: &state)
        state.name = ""
        #expect(DeskKeys.handle(.enter, state: &state) == .none)
        #expect(state.message?.contains("cannot name a mix") == true)
        _ = DeskKeys.handle(.escape, state: &state)
        #expect(DeskKeys.handle(.character("l"), state: &state) == .openLoad)
        state.mixes = [DeskMix(name: "night", summary: "rain 40"), DeskMix(name: "deep", summary: "brown 50")]
        state.panel = .load
        _ = DeskKeys.handle(.down, state: &state)
        #expect(DeskKeys.handle(.enter, state: &state) == .loadMix("deep"))
    }

    @Test func focusKeysQuitAndStop() {
        var state = DeskLayoutTests.state()
        #expect(DeskKeys.handle(.character("f"), state: &state) == .toggleFocus)
        #expect(DeskKeys.handle(.character(" "), state: &state) == .command(.toggle))
        // Skip and extend need rounds running.
        #expect(DeskKeys.handle(.character("s"), state: &state) == .none)
        #expect(state.message?.contains("no focus rounds") == true)
        state.status = DeskLayoutTests.status(focus: DeskLayoutTests.focus())
        #expect(DeskKeys.handle(.character("s"), state: &state) == .command(.skip))
        #expect(DeskKeys.handle(.character("e"), state: &state) == .command(.extend(seconds: nil)))
        #expect(DeskKeys.handle(.character("?"), state: &state) == .none)
        #expect(state.panel == .help)
        #expect(DeskKeys.handle(.character("x"), state: &state) == .none)  // any key closes the help
        #expect(state.panel == .main)
        #expect(DeskKeys.handle(.character("q"), state: &state) == .quit)
        #expect(DeskKeys.handle(.character("Q"), state: &state) == .stopPlayer)
        #expect(DeskKeys.handle(.interrupt, state: &state) == .quit)
    }

    @Test func aClickOnABarSetsThatVolume() {
        var state = DeskLayoutTests.state()
        let frame = DeskLayout.frame(state, columns: 80, rows: 24)
        let brown = frame.bars[1]
        #expect(
            DeskKeys.handle(
                .click(column: brown.column + brown.width - 1, row: brown.row), state: &state, bars: frame.bars)
                == .command(.volume(sound: "brown", volume: 100)))
        #expect(state.selected == 1)
        let master = frame.bars[2]
        #expect(
            DeskKeys.handle(.click(column: master.column, row: master.row), state: &state, bars: frame.bars)
                == .command(.master(volume: 0)))
        #expect(DeskKeys.handle(.click(column: 0, row: 0), state: &state, bars: frame.bars) == .none)
    }

    @Test func anyKeyBringsTheHiddenControlsBack() {
        var state = DeskLayoutTests.state()
        state.controlsShown = false
        #expect(DeskKeys.handle(.right, state: &state) == .command(.volume(sound: "rain", volume: 80)))
        #expect(state.controlsShown)
    }
}
