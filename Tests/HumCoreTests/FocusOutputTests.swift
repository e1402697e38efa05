import Testing

@testable import HumCore

@Suite struct FocusOutputTests {
    let start = FocusNotice(event: .start, phase: .focus, round: 1, rounds: 4, remaining: .seconds(1500), at: .zero)

    @Test func oneLinePerNoticeForScripts() {
        #expect(FocusOutput.line(time: "14:03:07", notice: start) == "14:03:07 start focus 1/4 25:00")
        let longBreak = FocusNotice(
            event: .start, phase: .longBreak, round: 4, rounds: 8, remaining: .seconds(3600 + 62),
            at: .zero)
        #expect(FocusOutput.line(time: "09:00:00", notice: longBreak) == "09:00:00 start long-break 4/8 1:01:02")
        // Part seconds round up, as on the countdown.
        let paused = FocusNotice(
            event: .pause, phase: .shortBreak, round: 2, rounds: 4,
            remaining: .milliseconds(59_001), at: .zero)
        #expect(FocusOutput.line(time: "t", notice: paused) == "t pause short-break 2/4 01:00")
        let finish = FocusNotice(event: .finish, phase: nil, round: 4, rounds: 4, remaining: .zero, at: .zero)
        #expect(FocusOutput.line(time: "t", notice: finish) == "t finish finished 4/4 00:00")
    }

    @Test func environmentForOnEvent() {
        let wait = FocusNotice(
            event: .wait, phase: .shortBreak, round: 3, rounds: 4, remaining: .milliseconds(299_500),
            at: .zero)
        #expect(
            FocusOutput.environment(for: wait, sessionID: "s-42") == [
                "HUM_EVENT": "wait", "HUM_PHASE": "short-break", "HUM_ROUND": "3", "HUM_ROUNDS": "4",
                "HUM_REMAINING_SECONDS": "300", "HUM_SESSION_ID": "s-42",
            ])
        let finish = FocusNotice(event: .finish, phase: nil, round: 4, rounds: 4, remaining: .zero, at: .zero)
        #expect(FocusOutput.environment(for: finish, sessionID: "x")["HUM_PHASE"] == "finished")
        #expect(FocusOutput.environment(for: finish, sessionID: "x")["HUM_REMAINING_SECONDS"] == "0")
    }

    @Test func eventNamesAreStable() {
        #expect(
            FocusNotice.Event.allCases.map(\.rawValue)
                == ["start", "wait", "pause", "resume", "skip", "extend", "stop", "finish", "wake", "restart"])
        #expect(FocusRoundRecord.Status.allCases.map(\.rawValue) == ["completed", "interrupted", "skipped"])
    }

    @Test func countdownText() {
        let c = FocusCountdown(
            state: .running(.focus), phase: .focus, round: 2, rounds: 4,
            remaining: .milliseconds(1_499_200), planned: .seconds(1500))
        #expect(c.clockText == "25:00" && c.remainingSeconds == 1500 && c.roundText == "2/4")
        #expect(abs(c.progress - 0.8 / 1500) < 1e-12)
        let over = FocusCountdown(
            state: .running(.focus), phase: .focus, round: 1, rounds: 1,
            remaining: .seconds(-3), planned: .seconds(10))
        #expect(over.progress == 1 && over.clockText == "00:00")
    }

    /// The whole path an adapter takes: machine notices → lines and environments.
    @Test func aSessionPrintsOneLinePerChange() {
        var rig = FocusRig(focus: 4, shortBreak: 3, rounds: 2, fade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 5)
        rig.send(.pause, at: 5)
        rig.send(.resume, at: 6)
        rig.run(until: 20)
        let lines = rig.notices.map { FocusOutput.line(time: "T+\(secs($0.at))", notice: $0) }
        #expect(
            lines == [
                "T+0.0 start focus 1/2 00:04", "T+4.0 start short-break 1/2 00:03", "T+5.0 pause short-break 1/2 00:02",
                "T+6.0 resume short-break 1/2 00:02", "T+8.0 start focus 2/2 00:04", "T+12.0 finish finished 2/2 00:00",
            ])
    }
}
