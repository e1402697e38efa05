import HumCore
import Testing

/// `hum status`'s views of a player: the line, the fields of --template, Waybar's object, the JSON document, and
/// when a followed output changes with the clock alone.
@Suite struct StatusReportTests {
    static let mix = Mix(tracks: [.init(sound: "rain", volume: 40), .init(sound: "brown", volume: 25)])

    static func focus(
        remaining: Int64 = 724, planned: Int64 = 1500, paused: Bool = false, waiting: Bool = false,
        goal: String? = nil
    ) -> PlayerStatus.Focus {
        PlayerStatus.Focus(
            phase: .focus, round: 2, rounds: 4, remainingSeconds: remaining, plannedSeconds: planned,
            deadline: paused || waiting ? nil : Timestamp(epochSeconds: 1_764_526_320, offsetSeconds: 3600),
            paused: paused, waiting: waiting, goal: goal, tags: ["writing", "book"])
    }

    static func player(
        focus: PlayerStatus.Focus? = nil, state: PlayerStatus.State = .playing, mix: Mix = mix,
        endsIn: Int64? = nil, elapsed: Int64 = 100
    ) -> PlayerStatus {
        PlayerStatus(
            pid: 4242, session: "abc", state: state, mix: mix, focus: focus, elapsedSeconds: elapsed,
            endsInSeconds: endsIn)
    }

    @Sendable static func plain(_ text: String) -> String { VisibleText.escape(text) }

    @Test func theLineSaysThePhaseTheClockTheMixAndTheBank() {
        let focused = StatusReport(player: Self.player(focus: Self.focus()), bankSeconds: 42 * 60 + 59)
        #expect(focused.line(Self.plain) == "focus 2/4 · 12:04 · rain 40 brown 25 · 42m banked")
        let paused = StatusReport(player: Self.player(focus: Self.focus(paused: true)), bankSeconds: 0)
        #expect(paused.line(Self.plain) == "focus 2/4 · 12:04 paused · rain 40 brown 25 · 0m banked")
        var quiet = Self.mix
        quiet.master = 80
        _ = try? quiet.mute("rain", true)
        let playing = StatusReport(player: Self.player(mix: quiet), bankSeconds: 3900)
        #expect(playing.line(Self.plain) == "playing · rain muted brown 25 · master 80 · 1h5m banked")
        let timed = StatusReport(player: Self.player(state: .paused, endsIn: 1710), bankSeconds: nil)
        #expect(timed.line(Self.plain) == "paused · 28:30 left · rain 40 brown 25")
        #expect(StatusReport(player: nil, bankSeconds: 2520).line(Self.plain) == "idle · 42m banked")
        let silent = StatusReport(player: Self.player(focus: Self.focus(), mix: Mix(tracks: [])), bankSeconds: 60)
        #expect(silent.line(Self.plain) == "focus 2/4 · 12:04 · 1m banked")
    }

    @Test func namesFromOutsideAreEscaped() {
        let odd = Mix(tracks: [.init(sound: "/home/me/ca\u{1B}[2Jfe.flac", volume: 30)])
        let report = StatusReport(player: Self.player(mix: odd), bankSeconds: nil)
        #expect(report.line(Self.plain) == "playing · ca\\e[2Jfe 30")
        #expect(WaybarStatus.escape("<b>rock & roll</b>") == "&lt;b&gt;rock &amp; roll&lt;/b&gt;")
    }

    @Test func templatesFillFieldsAndSections() throws {
        let report = StatusReport(player: Self.player(focus: Self.focus(goal: "draft")), bankSeconds: 2520)
        func render(_ text: String, _ r: StatusReport = report) throws -> String {
            try StatusTemplate(parsing: text).render(r, escape: Self.plain)
        }
        #expect(try render("{phase} {round}/{rounds} {remaining}") == "focus 2/4 12:04")
        #expect(
            try render("{remaining_seconds}s {remaining_minutes}m {percent}% until {deadline}")
                == "724s 13m 51% until 19:12")
        #expect(
            try render("{mix} | {sounds} | {master} | {bank} {bank_seconds}")
                == "rain 40 brown 25 | rain brown | 100 | 42m 2520")
        #expect(try render("{goal} [{tags}] {pid} {session} {state}") == "draft [writing,book] 4242 abc playing")
        #expect(try render("{{{phase}}}") == "{focus}")
        let idle = StatusReport(player: nil, bankSeconds: 0)
        let sections = "{#phase}{phase} {remaining}{/phase}{^phase}{state}{/phase}{#paused} ⏸{/paused}"
        #expect(try render(sections) == "focus 12:04")
        #expect(try render(sections, idle) == "idle")
        let paused = StatusReport(player: Self.player(focus: Self.focus(paused: true)), bankSeconds: 0)
        #expect(try render(sections, paused) == "focus 12:04 ⏸")
        #expect(try render("{line}", idle) == "idle · 0m banked")
        #expect(try render("{phase}{deadline}{percent}{mix}{pid}", idle) == "")
    }

    @Test func badTemplatesAreRefusedWithTheReason() {
        func problem(_ text: String) -> StatusTemplate.Problem? {
            do {
                _ = try StatusTemplate(parsing: text)
                return nil
            } catch {
                return error
            }
        }
        #expect(problem("{phse}") == .unknownField("phse"))
        #expect(problem("{phase") == .unclosedBrace)
        #expect(problem("phase}") == .strayClosingBrace)
        #expect(problem("{#phase}x") == .unclosedSection("phase"))
        #expect(problem("{#phase}x{/state}") == .unexpectedEnd("state"))
        #expect(problem("x{/phase}") == .unexpectedEnd("phase"))
        #expect(problem(String(repeating: "{#phase}", count: 40)) == .tooDeep)
        #expect(problem("{}") == .unknownField(""))
        #expect(problem("") == nil)
    }

    @Test func everyFieldIsAPlaceholder() throws {
        for field in StatusField.allCases {
            let template = try StatusTemplate(parsing: "{\(field.rawValue)}")
            #expect(template.fields == [field])
        }
    }

    @Test func waybarHasTextTooltipClassesAndPercentage() {
        let report = StatusReport(player: Self.player(focus: Self.focus(goal: "a <b>")), bankSeconds: 2520)
        let waybar = WaybarStatus(report, template: nil)
        #expect(waybar.text == "focus 2/4 12:04")
        #expect(
            waybar.tooltip == "focus 2 of 4, ends at 19:12\ngoal: a &lt;b&gt;\nrain 40 brown 25, master 100\n42m banked"
        )
        #expect(waybar.class == ["playing", "focus"])
        #expect(waybar.percentage == 51)
        let waiting = WaybarStatus(
            StatusReport(player: Self.player(focus: Self.focus(waiting: true)), bankSeconds: 0), template: nil)
        #expect(waiting.class == ["playing", "focus", "waiting"])
        #expect(waiting.text == "focus 2/4 12:04 waiting")
        let idle = WaybarStatus(StatusReport(player: nil, bankSeconds: 60), template: nil)
        #expect(idle.text == "idle" && idle.class == ["idle"] && idle.percentage == 0)
        #expect(idle.tooltip == "no hum player is running\n1m banked")
    }

    @Test func theDocumentHasEveryKeyWithAndWithoutAPlayer() throws {
        let encoder = CompactJSONEncoder()
        let idle = String(
            decoding: try encoder.encode(StatusDocument(StatusReport(player: nil, bankSeconds: 5))), as: UTF8.self)
        #expect(
            idle
                == #"{"state":"idle","pid":null,"session":null,"phase":null,"round":null,"rounds":null,"remaining_seconds":null,"planned_seconds":null,"deadline":null,"paused":false,"waiting":false,"percent":null,"goal":null,"tags":[],"mix":null,"master":null,"elapsed_seconds":null,"ends_in_seconds":null,"note":null,"bank_seconds":5,"shields":null,"underruns":null}"#
        )
        var playing = Self.player(focus: Self.focus())
        playing.underruns = 3
        let busy = String(
            decoding: try encoder.encode(StatusDocument(StatusReport(player: playing, bankSeconds: nil))),
            as: UTF8.self)
        #expect(busy.contains(#""state":"playing","pid":4242,"session":"abc","phase":"focus","round":2,"rounds":4"#))
        #expect(
            busy.contains(#""remaining_seconds":724,"planned_seconds":1500,"deadline":"2025-11-30T19:12:00+01:00""#))
        #expect(
            busy.contains(
                #""master":100,"elapsed_seconds":100,"ends_in_seconds":null,"note":null,"bank_seconds":null,"shields":null,"underruns":3}"#
            ))
    }

    @Test func aFollowedOutputWakesOnlyWhenWhatItShowsMoves() {
        let running = StatusReport(player: Self.player(focus: Self.focus(remaining: 724)), bankSeconds: 0)
        #expect(running.secondsUntilChange(of: [.remaining]) == 1)
        #expect(running.secondsUntilChange(of: [.line]) == 1)
        // 12:04 reads 13 minutes until 12:00.
        #expect(running.secondsUntilChange(of: [.remainingMinutes]) == 4)
        let onTheMinute = StatusReport(player: Self.player(focus: Self.focus(remaining: 720)), bankSeconds: 0)
        #expect(onTheMinute.secondsUntilChange(of: [.remainingMinutes]) == 60)
        // 776 of 1500 done is 51 %; 52 % is 780 done.
        #expect(running.secondsUntilChange(of: [.percent]) == 4)
        #expect(running.secondsUntilChange(of: [.state, .phase, .mix, .bank, .deadline]) == nil)
        #expect(running.secondsUntilChange(of: [.elapsed, .remainingMinutes]) == 1)
        // Nothing counts down while paused, waiting, idle or playing without a timer.
        let paused = StatusReport(player: Self.player(focus: Self.focus(paused: true)), bankSeconds: 0)
        #expect(paused.secondsUntilChange(of: [.line, .remainingMinutes, .percent]) == nil)
        let waiting = StatusReport(player: Self.player(focus: Self.focus(waiting: true)), bankSeconds: 0)
        #expect(waiting.secondsUntilChange(of: [.line]) == nil)
        #expect(StatusReport(player: nil, bankSeconds: 0).secondsUntilChange(of: Set(StatusField.allCases)) == nil)
        #expect(StatusReport(player: Self.player(), bankSeconds: 0).secondsUntilChange(of: [.line]) == nil)
        // The countdown's end is the last wake-up: the player announces the next phase.
        let ending = StatusReport(player: Self.player(focus: Self.focus(remaining: 3)), bankSeconds: 0)
        #expect(ending.secondsUntilChange(of: [.remainingMinutes]) == 3)
        #expect(
            StatusReport(player: Self.player(focus: Self.focus(remaining: 0)), bankSeconds: 0)
                .secondsUntilChange(of: [.line]) == nil)
        // A timed play counts down too.
        let timed = StatusReport(player: Self.player(endsIn: 90), bankSeconds: 0)
        #expect(timed.secondsUntilChange(of: [.remaining]) == 1)
        #expect(timed.secondsUntilChange(of: [.remainingMinutes]) == 30)
    }

    /// Each predicted wake-up is exactly when the text changes: never later (a stale bar), and the text is the
    /// same at every second before it (no wake-up for nothing).
    @Test(arguments: ["{remaining_minutes}", "{percent}", "{remaining}", "{state} {remaining_minutes} {percent}"])
    func predictedWakeUpsMatchTheTextChanges(_ text: String) throws {
        let template = try StatusTemplate(parsing: text)
        var report = StatusReport(
            player: Self.player(focus: Self.focus(remaining: 1499, planned: 1500)), bankSeconds: 0)
        var waited: Int64 = 0
        while let next = report.secondsUntilChange(of: template.fields) {
            let before = template.render(report, escape: Self.plain)
            for k in 1..<next {
                #expect(template.render(report.advanced(by: k), escape: Self.plain) == before)
            }
            report = report.advanced(by: next)
            #expect(template.render(report, escape: Self.plain) != before, "at \(waited + next)")
            waited += next
        }
        #expect(waited == 1499)
    }
}
