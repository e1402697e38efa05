import Testing

@testable import HumCore

/// Every transition of the focus machine, checked through the effects it returns and through a fake mixer that
/// plays those effects out over time (so "silent at the deadline" and "no jump" are measured, not assumed).
@Suite struct FocusMachineTests {
    // MARK: start and the plain path

    @Test func nothingHappensBeforeStart() {
        var rig = FocusRig(focus: 4, shortBreak: 3, rounds: 2, fade: 1)
        #expect(rig.send(.tick, at: 1).isEmpty)
        #expect(rig.send(.pause, at: 1).isEmpty)
        #expect(rig.send(.userChangedMix, at: 1).isEmpty)
        #expect(rig.machine.state == .notStarted)
        #expect(rig.machine.nextWakeup == nil)
    }

    @Test func startBeginsRoundOneWithAFadeIn() {
        var rig = FocusRig(focus: 4, shortBreak: 3, rounds: 2, fade: 1)
        let fx = rig.send(.start, at: 0)
        #expect(
            fx == [
                .phaseChanged(
                    FocusNotice(event: .start, phase: .focus, round: 1, rounds: 2, remaining: .seconds(4), at: .zero)),
                .fadeIn(over: .seconds(1)),
            ])
        #expect(rig.machine.state == .running(.focus))
        #expect(rig.machine.round == 1)
        #expect(rig.machine.sessionStart == reading(0))
        // First wake-up: the end of the fade-in.
        #expect(rig.machine.nextWakeup == .seconds(1))
        // A second start does nothing.
        #expect(rig.send(.start, at: 0.5).isEmpty)
    }

    /// The end-to-end scenario of the issue, on the core alone: `--focus 4s --short-break 3s --rounds 2 --fade 1s`.
    @Test func twoRoundsFadeOutOverTheLastSecondAndBackIn() {
        var rig = FocusRig(focus: 4, shortBreak: 3, rounds: 2, fade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 20, step: 0.05)
        let m = rig.mixer
        // Round one: fade-in over the first second, full, fade over the last second, silent at 4 s.
        #expect(abs(m.level(at: 0.5) - 0.5) < 1e-9)
        #expect(m.level(at: 1) == 1 && m.level(at: 2.5) == 1 && m.level(at: 3) == 1)
        #expect(abs(m.level(at: 3.5) - 0.5) < 1e-9)
        #expect(m.level(at: 4) == 0)
        // The break is silent apart from the chime.
        #expect(m.level(at: 5.5) == 0 && m.level(at: 7) == 0)
        // Round two: the same mix fades back in and out again.
        #expect(abs(m.level(at: 7.5) - 0.5) < 1e-9)
        #expect(m.level(at: 9) == 1)
        #expect(abs(m.level(at: 10.75) - 0.25) < 1e-9)
        #expect(m.level(at: 11) == 0)
        #expect(m.chimes == [4, 7, 11])
        #expect(m.closed)
        #expect(rig.story == ["start focus 1", "start short-break 1", "start focus 2", "finish finished 2"])
        #expect(
            rig.records == [
                FocusRoundRecord(
                    phase: .focus, round: 1, status: .completed, start: .zero, end: .seconds(4),
                    planned: .seconds(4), extended: .zero, active: .seconds(4), paused: .zero),
                FocusRoundRecord(
                    phase: .shortBreak, round: 1, status: .completed, start: .seconds(4), end: .seconds(7),
                    planned: .seconds(3), extended: .zero, active: .seconds(3), paused: .zero),
                FocusRoundRecord(
                    phase: .focus, round: 2, status: .completed, start: .seconds(7), end: .seconds(11),
                    planned: .seconds(4), extended: .zero, active: .seconds(4), paused: .zero),
            ])
        #expect(rig.machine.state == .finished(.completed))
        #expect(rig.count { $0 == .saveResumeMix } == 2)
        #expect(rig.effects(at: 11).last == .endSession(fadeOut: .zero))
    }

    @Test func theFadeStartsExactlyAtDeadlineMinusFade() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        #expect(rig.send(.tick, at: 4) == [])  // fade-in over, full
        #expect(rig.machine.nextWakeup == .seconds(2))  // fade start at 6
        #expect(rig.send(.tick, at: 5.999).isEmpty)
        #expect(rig.send(.tick, at: 6) == [.saveResumeMix, .startFadeOut(over: .seconds(4))])
        #expect(rig.machine.nextWakeup == .seconds(4))  // the deadline
        #expect(rig.send(.tick, at: 9.5).isEmpty)
        let end = rig.send(.tick, at: 10)
        #expect(end.first == .recordRound(rig.records[0]))
        #expect(end.contains(.chime))
        #expect(rig.machine.state == .running(.shortBreak))
    }

    @Test func aLateTickStillReachesSilenceAtTheDeadline() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        rig.send(.tick, at: 4)
        #expect(rig.send(.tick, at: 7.5) == [.saveResumeMix, .startFadeOut(over: .seconds(2.5))])
        #expect(rig.mixer.level(at: 10) == 0)
    }

    @Test func aVeryLateTickCatchesUpWithoutStretchingRounds() {
        var rig = FocusRig(focus: 4, shortBreak: 3, rounds: 3, fade: 1)
        rig.send(.start, at: 0)
        rig.send(.tick, at: 9)  // missed: fade, end of round 1, the whole break, start of round 2
        #expect(rig.story == ["start focus 1", "start short-break 1", "start focus 2"])
        #expect(rig.records.map(\.end) == [.seconds(4), .seconds(7)])
        #expect(rig.records.map(\.active) == [.seconds(4), .seconds(3)])
        // Round 2 started at 7; it ends at 11 whatever the tick rate.
        #expect(rig.machine.countdown.remaining == .seconds(2))
        rig.run(until: 11)
        #expect(rig.records.last?.end == .seconds(11))
    }

    // MARK: cadence and the shortest plan

    @Test func longBreakCadenceAndNoBreakAfterTheLastRound() {
        var rig = FocusRig(focus: 1, shortBreak: 1, longBreak: 2, longEvery: 2, rounds: 5, fade: 0)
        rig.send(.start, at: 0)
        rig.run(until: 100)
        #expect(
            rig.story.filter { $0.hasPrefix("start") || $0.hasPrefix("finish") } == [
                "start focus 1", "start short-break 1", "start focus 2", "start long-break 2", "start focus 3",
                "start short-break 3", "start focus 4", "start long-break 4", "start focus 5", "finish finished 5",
            ])
        #expect(rig.records.count == 9)
        #expect(rig.records.filter { $0.phase == .longBreak }.map(\.planned) == [.seconds(2), .seconds(2)])
        #expect(rig.records.last?.end == .seconds(11))
        #expect(rig.machine.state == .finished(.completed))
    }

    @Test func oneRoundMeansNoBreakAtAll() {
        var rig = FocusRig(focus: 2, rounds: 1, fade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 10)
        #expect(rig.story == ["start focus 1", "finish finished 1"])
        #expect(rig.records.map(\.phase) == [.focus])
        #expect(rig.mixer.chimes == [2])
    }

    @Test func shortestPhasesWithAFadeAsLongAsTheRound() {
        var rig = FocusRig(focus: 1, shortBreak: 1, longBreak: 1, rounds: 2, fade: 1, pauseFade: 1)
        // The whole round is the fade: the mix comes in at once and fades out over the second.
        #expect(
            rig.send(.start, at: 0) == [
                .phaseChanged(
                    FocusNotice(event: .start, phase: .focus, round: 1, rounds: 2, remaining: .seconds(1), at: .zero)),
                .fadeIn(over: .zero), .saveResumeMix, .startFadeOut(over: .seconds(1)),
            ])
        #expect(rig.mixer.level(at: 0) == 1 && rig.mixer.level(at: 0.5) == 0.5)
        rig.run(until: 10, step: 0.1)
        #expect(rig.mixer.level(at: 1) == 0 && rig.mixer.level(at: 2) == 1 && rig.mixer.level(at: 3) == 0)
        #expect(rig.records.map(\.end) == [.seconds(1), .seconds(2), .seconds(3)])
        #expect(rig.records.allSatisfy { $0.status == .completed && $0.active == .seconds(1) })
        #expect(rig.mixer.chimes == [1, 2, 3])
    }

    @Test func shortestPhasesSurvivePauseSkipAndExtend() {
        var rig = FocusRig(focus: 1, shortBreak: 1, longBreak: 1, rounds: 3, fade: 1, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.send(.pause, at: 0.5)
        #expect(
            rig.send(.resume, at: 2) == [
                .phaseChanged(
                    FocusNotice(
                        event: .resume, phase: .focus, round: 1, rounds: 3, remaining: .seconds(0.5),
                        at: .seconds(2)))
            ])  // half a second left, shorter than the resume ramp: it stays silent
        rig.run(until: 2.5)
        #expect(rig.records.first?.active == .seconds(1) && rig.records.first?.paused == .seconds(1.5))
        rig.send(.skip, at: 2.75)  // skip the break
        rig.send(.extend(by: .seconds(1)), at: 3)
        rig.run(until: 20, step: 0.1)
        #expect(rig.records.map(\.status) == [.completed, .skipped, .completed, .completed, .completed])
        #expect(rig.records[2].planned == .seconds(2) && rig.records[2].extended == .seconds(1))
        #expect(rig.machine.state == .finished(.completed))
    }

    // MARK: pause and resume

    @Test func pauseBeforeTheFadeMovesTheDeadline() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 2, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 3)
        #expect(
            rig.send(.pause, at: 3) == [
                .pauseFadeOut(over: .seconds(1)),
                .phaseChanged(
                    FocusNotice(
                        event: .pause, phase: .focus, round: 1, rounds: 2, remaining: .seconds(7),
                        at: .seconds(3))),
            ])
        #expect(rig.machine.state == .paused(.focus))
        #expect(rig.machine.nextWakeup == nil)
        #expect(rig.send(.pause, at: 4).isEmpty)  // already paused
        rig.send(.tick, at: 100)
        #expect(rig.machine.countdown.remaining == .seconds(7))  // paused time is not focus time
        #expect(rig.mixer.level(at: 100) == 0)
        #expect(rig.send(.resume, at: 100).contains(.resumeFadeIn(over: .seconds(1), toLevel: 1)))
        #expect(rig.send(.resume, at: 100.5).isEmpty)  // already running
        rig.run(until: 120)
        #expect(rig.mixer.level(at: 101) == 1 && rig.mixer.level(at: 105) == 1)
        #expect(rig.mixer.level(at: 107) == 0)  // deadline moved from 10 to 107
        #expect(
            rig.records.first
                == FocusRoundRecord(
                    phase: .focus, round: 1, status: .completed, start: .zero,
                    end: .seconds(107), planned: .seconds(10), extended: .zero,
                    active: .seconds(10), paused: .seconds(97)))
    }

    @Test func pauseDuringTheFadeResumesWhereTheFadeWas() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 8)  // halfway through the fade
        #expect(abs(rig.mixer.level(at: 8) - 0.5) < 1e-9)
        rig.send(.pause, at: 8)
        #expect(rig.mixer.level(at: 9) == 0)
        // Resume 5 s later: 2 s of focus left. Ramp up over 1 s to where the fade will then be (1 s of 4 left).
        #expect(rig.send(.resume, at: 13).contains(.resumeFadeIn(over: .seconds(1), toLevel: 0.25)))
        #expect(rig.machine.nextWakeup == .seconds(1))
        #expect(rig.send(.tick, at: 14) == [.startFadeOut(over: .seconds(1))])  // no second snapshot
        rig.run(until: 20)
        #expect(rig.mixer.level(at: 15) == 0)
        #expect(
            rig.records[0].end == .seconds(15) && rig.records[0].active == .seconds(10)
                && rig.records[0].paused == .seconds(5))
        #expect(rig.count { $0 == .saveResumeMix } == 1)
    }

    @Test func togglePauseIsSpace() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 1, auto: .off)
        rig.send(.start, at: 0)
        rig.send(.togglePause, at: 2)
        #expect(rig.machine.state == .paused(.focus))
        rig.send(.togglePause, at: 3)
        #expect(rig.machine.state == .running(.focus))
        rig.run(until: 11)
        #expect(rig.machine.state == .waiting(.shortBreak))
        rig.send(.togglePause, at: 12)  // while waiting, space starts the next phase
        #expect(rig.machine.state == .running(.shortBreak))
    }

    @Test func pauseInASilentBreakHasNoAudioEffect() {
        var rig = FocusRig(focus: 2, shortBreak: 5, rounds: 2, fade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 3)
        let fx = rig.send(.pause, at: 3) + rig.send(.resume, at: 4)
        #expect(!fx.contains { $0.isAudioRamp })
        #expect(rig.story.suffix(2) == ["pause short-break 1", "resume short-break 1"])
        rig.run(until: 20)
        #expect(rig.records[1].paused == .seconds(1) && rig.records[1].end == .seconds(8))
    }

    // MARK: skip

    @Test func skipDuringTheFadeEndsTheRoundQuicklyAndStartsTheBreak() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 7)
        let fx = rig.send(.skip, at: 7)
        #expect(
            fx.first
                == .recordRound(
                    FocusRoundRecord(
                        phase: .focus, round: 1, status: .skipped, start: .zero,
                        end: .seconds(7), planned: .seconds(10), extended: .zero,
                        active: .seconds(7), paused: .zero)))
        #expect(fx.contains(.startFadeOut(over: .seconds(1))))
        #expect(!fx.contains(.saveResumeMix))  // saved when the fade began
        #expect(!fx.contains(.chime))  // the key press is its own signal
        #expect(rig.story.suffix(2) == ["skip focus 1", "start short-break 1"])
        #expect(rig.mixer.level(at: 8) == 0)
        #expect(rig.machine.state == .running(.shortBreak))
        rig.run(until: 12)
        #expect(rig.records.last?.phase == .shortBreak && rig.records.last?.end == .seconds(12))
    }

    @Test func skipNearTheDeadlineNeverFadesPastIt() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 9.75)
        #expect(rig.send(.skip, at: 9.75).contains(.startFadeOut(over: .seconds(0.25))))
    }

    @Test func skipBeforeTheFadeSavesTheMixForTheNextRound() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 5)
        rig.mixer.current = "rain+fire"  // changed during the round: part of the resumed mix
        let fx = rig.send(.skip, at: 5)
        #expect(fx.contains(.saveResumeMix))
        rig.mixer.current = "(whatever the break leaves)"
        rig.run(until: 10)
        #expect(rig.mixer.current == "rain+fire")
        #expect(rig.mixer.level(at: 14) == 1)
    }

    @Test func skipDuringTheBreakStartsTheNextRoundWithItsFadeIn() {
        var rig = FocusRig(focus: 4, shortBreak: 30, rounds: 2, fade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 6)
        let fx = rig.send(.skip, at: 6)
        #expect(
            fx.first
                == .recordRound(
                    FocusRoundRecord(
                        phase: .shortBreak, round: 1, status: .skipped,
                        start: .seconds(4), end: .seconds(6), planned: .seconds(30),
                        extended: .zero, active: .seconds(2), paused: .zero)))
        #expect(fx.contains(.fadeIn(over: .seconds(1))))
        #expect(rig.machine.state == .running(.focus) && rig.machine.round == 2)
    }

    @Test func skippingTheLastRoundFinishesWithAShortFade() {
        var rig = FocusRig(focus: 10, rounds: 1, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 3)
        let fx = rig.send(.skip, at: 3)
        #expect(!fx.contains(.saveResumeMix))  // there is no next round to bring it back
        #expect(fx.last == .endSession(fadeOut: .seconds(1)))
        #expect(rig.story.suffix(2) == ["skip focus 1", "finish finished 1"])
        #expect(rig.machine.state == .finished(.completed))
        #expect(rig.send(.tick, at: 50).isEmpty)
    }

    @Test func skipWhileWaitingStartsTheWaitingPhase() {
        var rig = FocusRig(focus: 2, shortBreak: 2, rounds: 2, fade: 1, auto: .off)
        rig.send(.start, at: 0)
        rig.run(until: 5)
        #expect(rig.machine.state == .waiting(.shortBreak))
        rig.send(.skip, at: 5)
        #expect(rig.machine.state == .running(.shortBreak))
        #expect(rig.records.count == 1)  // nothing recorded for the wait itself
    }

    // MARK: extend

    @Test func extendDuringTheFadeReversesItWithoutAJump() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 8)
        let before = rig.mixer.level(at: 8)
        let fx = rig.send(.extend(by: .seconds(300)), at: 8)
        #expect(
            fx == [
                .reverseFadeOut(over: .seconds(2)),
                .phaseChanged(
                    FocusNotice(
                        event: .extend, phase: .focus, round: 1, rounds: 2, remaining: .seconds(302),
                        at: .seconds(8))),
            ])
        #expect(abs(rig.mixer.level(at: 8) - before) < 1e-12)  // no jump
        #expect(rig.mixer.level(at: 10) == 1)
        // The fade starts again at the new deadline (310) − fade (4), snapshotting the mix afresh.
        #expect(rig.machine.nextWakeup == .seconds(2))  // end of the reversal first
        rig.run(until: 305.9)
        #expect(rig.mixer.level(at: 305.9) == 1)
        rig.mixer.current = "changed before the new fade"
        #expect(rig.send(.tick, at: 306) == [.saveResumeMix, .startFadeOut(over: .seconds(4))])
        rig.run(until: 320)
        #expect(rig.mixer.level(at: 310) == 0)
        #expect(
            rig.records[0]
                == FocusRoundRecord(
                    phase: .focus, round: 1, status: .completed, start: .zero,
                    end: .seconds(310), planned: .seconds(310), extended: .seconds(300),
                    active: .seconds(310), paused: .zero))
        rig.run(until: 320)
        #expect(rig.mixer.current == "changed before the new fade")
    }

    @Test func extendByLessThanTheFadeAlreadyPlayedSlowsItDown() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 9)
        let before = rig.mixer.level(at: 9)
        #expect(rig.send(.extend(by: .seconds(2)), at: 9).first == .startFadeOut(over: .seconds(3)))
        #expect(abs(rig.mixer.level(at: 9) - before) < 1e-12)
        rig.run(until: 13)
        #expect(rig.mixer.level(at: 12) == 0 && rig.mixer.level(at: 11.9) > 0)
        #expect(rig.records[0].end == .seconds(12))
    }

    @Test func extendBeforeTheFadeJustMovesIt() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        rig.run(until: 5)
        let fx = rig.send(.extend(by: .seconds(60)), at: 5)
        #expect(!fx.contains { $0.isAudioRamp })
        #expect(rig.send(.tick, at: 6).isEmpty)  // the old fade start passes quietly
        #expect(rig.machine.nextWakeup == .seconds(60))
        rig.run(until: 80)
        #expect(rig.records[0].end == .seconds(70))
    }

    @Test func extendWhilePausedInTheFadeResumesAtFullVolume() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 8)
        rig.send(.pause, at: 8)
        rig.send(.extend(by: .seconds(300)), at: 9)
        #expect(rig.send(.resume, at: 10).contains(.resumeFadeIn(over: .seconds(1), toLevel: 1)))
        rig.run(until: 400)
        #expect(rig.log.filter { $0.t <= 312 && $0.effect == .saveResumeMix }.count == 2)  // the fade began twice
        #expect(rig.records[0].end == .seconds(312) && rig.records[0].paused == .seconds(2))
    }

    @Test func extendDuringAResumeRampReaimsIt() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 8)
        rig.send(.pause, at: 8)
        rig.send(.resume, at: 9)  // ramping up to 0.25 until 10
        let fx = rig.send(.extend(by: .seconds(1)), at: 9.5)
        #expect(fx.first == .resumeFadeIn(over: .seconds(0.5), toLevel: 0.5))
        rig.run(until: 20)
        #expect(rig.records[0].end == .seconds(12))
        #expect(rig.mixer.level(at: 12) == 0)
    }

    @Test func extendDuringTheBreakAndIgnoredWhileWaiting() {
        var rig = FocusRig(focus: 2, shortBreak: 3, rounds: 2, fade: 1, auto: .toBreak)
        rig.send(.start, at: 0)
        rig.run(until: 3)
        let fx = rig.send(.extend(by: .seconds(10)), at: 3)
        #expect(!fx.contains { $0.isAudioRamp })
        rig.run(until: 30)
        #expect(rig.records[1].planned == .seconds(13) && rig.records[1].end == .seconds(15))
        #expect(rig.machine.state == .waiting(.focus))
        #expect(rig.send(.extend(by: .seconds(10)), at: 31).isEmpty)
    }

    // MARK: the user's mix wins

    @Test func aChangeDuringTheRoundIsPartOfTheResumedMix() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        rig.run(until: 5)
        rig.mixer.current = "rain=60 fire=30"
        #expect(rig.send(.userChangedMix, at: 5).isEmpty)
        rig.run(until: 30)
        #expect(rig.mixer.current == "rain=60 fire=30")
        #expect(rig.effects(at: 15).contains(.fadeIn(over: .seconds(4))))
    }

    @Test func aChangeDuringTheBreakPlaysAtOnceAndSkipsTheAutomaticResume() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        rig.run(until: 12)
        #expect(rig.mixer.level(at: 12) == 0)
        rig.mixer.current = "brown noise"
        #expect(rig.send(.userChangedMix, at: 12) == [.keepUserMix(audible: true)])
        #expect(rig.mixer.level(at: 12) == 1)
        #expect(rig.send(.userChangedMix, at: 13).isEmpty)  // said once
        #expect(rig.machine.userMixWins)
        rig.run(until: 16)
        // The next round leaves their sounds as they are: no fade-in, no restore.
        #expect(!rig.effects(at: 15).contains { $0.isAudioRamp })
        #expect(rig.mixer.current == "brown noise" && rig.mixer.level(at: 15.5) == 1)
        #expect(!rig.machine.userMixWins)
        // That round's own end fades as usual.
        rig.run(until: 30)
        #expect(rig.effects(at: 21) == [.saveResumeMix, .startFadeOut(over: .seconds(4))])
        #expect(rig.mixer.level(at: 25) == 0)
    }

    @Test func aChangeAfterTheFadeBeganCancelsItAndKeepsPlayingThroughTheBreak() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        rig.run(until: 7)
        rig.mixer.current = "user's pick"
        #expect(rig.send(.userChangedMix, at: 7) == [.keepUserMix(audible: true)])
        rig.run(until: 16)
        #expect(rig.mixer.level(at: 9.9) == 1 && rig.mixer.level(at: 12) == 1)  // no fade, break not silent
        #expect(rig.mixer.chimes == [10, 15])  // the chime still marks the change
        #expect(rig.mixer.current == "user's pick")
        #expect(!rig.effects(at: 15).contains { $0.isAudioRamp })
        #expect(rig.records[0].status == .completed)
    }

    @Test func aChangeWhilePausedInTheBreakWaitsForResume() {
        var rig = FocusRig(focus: 4, shortBreak: 10, rounds: 2, fade: 1, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 5)
        rig.send(.pause, at: 5)
        #expect(rig.send(.userChangedMix, at: 6) == [.keepUserMix(audible: false)])
        #expect(rig.mixer.level(at: 6) == 0)
        #expect(rig.send(.resume, at: 7).contains(.resumeFadeIn(over: .seconds(1), toLevel: 1)))
        #expect(rig.mixer.level(at: 8) == 1)
        rig.send(.pause, at: 9)
        #expect(rig.log.last { $0.effect.isAudioRamp }?.effect == .pauseFadeOut(over: .seconds(1)))
    }

    @Test func aChangeWhilePausedInTheFadeWinsOnResume() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 7)
        rig.send(.pause, at: 7)
        #expect(rig.send(.userChangedMix, at: 8) == [.keepUserMix(audible: false)])
        #expect(rig.send(.resume, at: 9).contains(.resumeFadeIn(over: .seconds(1), toLevel: 1)))
        rig.run(until: 20)
        #expect(rig.mixer.level(at: 12) == 1)
    }

    @Test func aChangeWhileWaitingCountsAsDuringTheBreak() {
        var rig = FocusRig(focus: 4, shortBreak: 2, rounds: 2, fade: 1, auto: .off)
        rig.send(.start, at: 0)
        rig.run(until: 5)
        #expect(rig.send(.userChangedMix, at: 5) == [.keepUserMix(audible: true)])
        rig.send(.start, at: 6)
        rig.run(until: 9)
        rig.send(.start, at: 9)
        #expect(!rig.effects(at: 9).contains { $0.isAudioRamp })
        #expect(rig.machine.state == .running(.focus) && rig.mixer.level(at: 9) == 1)
    }

    @Test func withoutAFadeChangesDuringTheRoundNeverWin() {
        var rig = FocusRig(focus: 4, shortBreak: 2, rounds: 2, fade: 0)
        rig.send(.start, at: 0)
        #expect(rig.send(.userChangedMix, at: 3.99).isEmpty)
        rig.run(until: 5)
        #expect(rig.effects(at: 4).prefix(2) == [.saveResumeMix, .startFadeOut(over: .zero)])
        #expect(rig.mixer.level(at: 4) == 0)
    }

    // MARK: restart (the desktop's Previous)

    @Test func restartBeforeTheFadeStartsTheRoundAgainInFull() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 2)
        rig.send(.start, at: 0)
        rig.run(until: 5)
        rig.mixer.current = "rain+fire"  // changed during the round: kept by the restart
        let fx = rig.send(.restart, at: 5)
        #expect(
            fx == [
                .recordRound(
                    FocusRoundRecord(
                        phase: .focus, round: 1, status: .interrupted, start: .zero, end: .seconds(5),
                        planned: .seconds(10), extended: .zero, active: .seconds(5), paused: .zero)),
                .phaseChanged(
                    FocusNotice(
                        event: .restart, phase: .focus, round: 1, rounds: 2, remaining: .seconds(5), at: .seconds(5))),
                .saveResumeMix,
                .phaseChanged(
                    FocusNotice(
                        event: .start, phase: .focus, round: 1, rounds: 2, remaining: .seconds(10), at: .seconds(5))),
                .fadeIn(over: .seconds(2)),
            ])
        #expect(!fx.contains(.chime))
        #expect(rig.mixer.current == "rain+fire" && rig.mixer.level(at: 5) == 1 && rig.mixer.level(at: 6) == 1)
        #expect(rig.machine.deadline == .seconds(15) && rig.machine.phaseStart == .seconds(5))
        rig.run(until: 16)
        // The new round runs its whole length, fades as usual and is recorded completed; the break follows.
        #expect(rig.mixer.level(at: 15) == 0 && rig.mixer.chimes == [15])
        #expect(rig.records.map(\.status) == [.interrupted, .completed])
        #expect(rig.records.last?.start == .seconds(5) && rig.records.last?.active == .seconds(10))
        #expect(rig.story == ["start focus 1", "restart focus 1", "start focus 1", "start short-break 1"])
    }

    @Test func restartDuringTheFadeComesBackWithoutAJump() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        rig.run(until: 8)
        #expect(abs(rig.mixer.level(at: 8) - 0.5) < 1e-9)
        let fx = rig.send(.restart, at: 8)
        #expect(fx.contains(.fadeIn(over: .seconds(4))))
        #expect(abs(rig.mixer.level(at: 8) - 0.5) < 1e-9)  // from where the fade was
        #expect(rig.mixer.level(at: 12) == 1)
        rig.run(until: 19)
        #expect(rig.mixer.level(at: 14) == 1 && rig.mixer.level(at: 18) == 0)
        #expect(rig.records.map(\.status) == [.interrupted, .completed])
    }

    @Test func restartWhilePausedRunsTheRoundAgain() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 2, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 3)
        rig.send(.pause, at: 3)
        let fx = rig.send(.restart, at: 6)
        #expect(
            fx.first
                == .recordRound(
                    FocusRoundRecord(
                        phase: .focus, round: 1, status: .interrupted, start: .zero, end: .seconds(6),
                        planned: .seconds(10), extended: .zero, active: .seconds(3), paused: .seconds(3))))
        #expect(rig.machine.state == .running(.focus) && rig.machine.deadline == .seconds(16))
        #expect(rig.mixer.level(at: 6) == 0 && rig.mixer.level(at: 8) == 1)
    }

    @Test func restartAfterTheUserTookOverKeepsTheirMixAndFadesAtTheEnd() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        rig.run(until: 7)
        rig.mixer.current = "user's pick"
        #expect(rig.send(.userChangedMix, at: 7) == [.keepUserMix(audible: true)])
        rig.send(.restart, at: 8)
        #expect(rig.mixer.current == "user's pick" && rig.mixer.level(at: 8) == 1)
        #expect(!rig.machine.userMixWins)
        rig.run(until: 19)
        // The restarted round ends like any other: faded to silence at its deadline.
        #expect(rig.mixer.level(at: 18) == 0)
    }

    @Test func restartIsIgnoredInABreakWhileWaitingAndAfterTheEnd() {
        var rig = FocusRig(focus: 2, shortBreak: 5, rounds: 2, fade: 1, auto: .toBreak)
        #expect(rig.send(.restart, at: 0).isEmpty)  // not started
        rig.send(.start, at: 0)
        rig.run(until: 3)
        #expect(rig.machine.state == .running(.shortBreak))
        #expect(rig.send(.restart, at: 3).isEmpty)
        rig.send(.skip, at: 4)
        rig.run(until: 7)
        rig.send(.stop, at: 7)
        #expect(rig.send(.restart, at: 8).isEmpty)

        var waiting = FocusRig(focus: 2, shortBreak: 2, rounds: 2, fade: 1, auto: .off)
        waiting.send(.start, at: 0)
        waiting.run(until: 3)
        #expect(waiting.machine.state == .waiting(.shortBreak))
        #expect(waiting.send(.restart, at: 3).isEmpty)
    }

    // MARK: stop

    @Test func stopDuringABreakRecordsItAsInterrupted() {
        var rig = FocusRig(focus: 4, shortBreak: 10, rounds: 2, fade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 6)
        rig.send(.pause, at: 6)
        let fx = rig.send(.stop, at: 8)
        #expect(
            fx == [
                .recordRound(
                    FocusRoundRecord(
                        phase: .shortBreak, round: 1, status: .interrupted, start: .seconds(4),
                        end: .seconds(8), planned: .seconds(10), extended: .zero,
                        active: .seconds(2), paused: .seconds(2))),
                .phaseChanged(
                    FocusNotice(
                        event: .stop, phase: .shortBreak, round: 1, rounds: 2, remaining: .seconds(8),
                        at: .seconds(8))),
                .endSession(fadeOut: .seconds(1)),  // the short fade, whatever is playing
            ])
        #expect(rig.machine.state == .finished(.stopped) && rig.machine.isFinished)
        #expect(rig.send(.resume, at: 9).isEmpty && rig.send(.tick, at: 100).isEmpty)
    }

    @Test func stopDuringFocusFadesOutAndRecordsTheRealActiveTime() {
        var rig = FocusRig(focus: 1500, rounds: 4, fade: 10, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 600, step: 30)
        let fx = rig.send(.stop, at: 600)
        #expect(
            fx.first
                == .recordRound(
                    FocusRoundRecord(
                        phase: .focus, round: 1, status: .interrupted, start: .zero,
                        end: .seconds(600), planned: .seconds(1500), extended: .zero,
                        active: .seconds(600), paused: .zero)))
        #expect(fx.last == .endSession(fadeOut: .seconds(1)))
        #expect(rig.mixer.level(at: 601) == 0 && rig.mixer.closed)
    }

    @Test func stopWhileWaitingRecordsNothing() {
        var rig = FocusRig(focus: 2, shortBreak: 2, rounds: 2, fade: 1, auto: .off)
        rig.send(.start, at: 0)
        rig.run(until: 4)
        let fx = rig.send(.stop, at: 4)
        #expect(!fx.contains { if case .recordRound = $0 { true } else { false } })
        #expect(rig.story.last == "stop short-break 1")
        #expect(fx.last == .endSession(fadeOut: .seconds(1)))
    }

    @Test func finishingWhileTheUserMixPlaysFadesItOut() {
        var rig = FocusRig(focus: 10, rounds: 1, fade: 4, pauseFade: 1)
        rig.send(.start, at: 0)
        rig.run(until: 8)
        rig.send(.userChangedMix, at: 8)
        rig.run(until: 12)
        #expect(
            rig.effects(at: 10).suffix(2) == [
                .phaseChanged(
                    FocusNotice(event: .finish, phase: nil, round: 1, rounds: 1, remaining: .zero, at: .seconds(10))),
                .endSession(fadeOut: .seconds(1)),
            ])
    }

    // MARK: auto-advance

    @Test func autoAdvanceNoneWaitsBeforeEveryPhase() {
        var rig = FocusRig(focus: 2, shortBreak: 3, rounds: 2, fade: 1, auto: .off)
        rig.send(.start, at: 0)
        rig.run(until: 10)
        #expect(rig.machine.state == .waiting(.shortBreak))
        #expect(
            rig.notices.last
                == FocusNotice(
                    event: .wait, phase: .shortBreak, round: 1, rounds: 2,
                    remaining: .seconds(3), at: .seconds(2)))
        #expect(rig.mixer.chimes == [2])
        #expect(rig.machine.countdown.progress == 0 && rig.machine.countdown.remaining == .seconds(3))
        #expect(rig.send(.pause, at: 10).isEmpty)
        rig.send(.start, at: 10)
        #expect(rig.notices.last?.event == .start && rig.notices.last?.at == .seconds(10))
        rig.run(until: 20)
        #expect(rig.machine.state == .waiting(.focus) && rig.machine.round == 2)
        rig.send(.start, at: 20)
        #expect(rig.effects(at: 20).contains(.fadeIn(over: .seconds(1))))
        rig.run(until: 30)
        #expect(rig.records.map(\.start) == [.zero, .seconds(10), .seconds(20)])
        #expect(rig.machine.state == .finished(.completed))
    }

    @Test func autoAdvanceToBreakAndToFocus() {
        var toBreak = FocusRig(focus: 2, shortBreak: 3, rounds: 2, fade: 1, auto: .toBreak)
        toBreak.send(.start, at: 0)
        toBreak.run(until: 10)
        #expect(toBreak.story == ["start focus 1", "start short-break 1", "wait focus 2"])

        var toFocus = FocusRig(focus: 2, shortBreak: 3, rounds: 2, fade: 1, auto: .toFocus)
        toFocus.send(.start, at: 0)
        toFocus.run(until: 10)
        #expect(toFocus.story == ["start focus 1", "wait short-break 1"])
        toFocus.send(.start, at: 10)
        toFocus.run(until: 20)
        #expect(
            toFocus.story == [
                "start focus 1", "wait short-break 1", "start short-break 1", "start focus 2",
                "finish finished 2",
            ])
    }

    // MARK: suspend counts as pause

    @Test func aSuspendDuringFocusCountsAsPause() {
        var rig = FocusRig(focus: 1500, rounds: 2, fade: 10)
        rig.send(.start, at: 0)
        rig.run(until: 600, step: 1)
        rig.suspend(for: 1800)  // boot time +30 min, monotonic time still
        let fx = rig.send(.tick, at: 2400.5)
        #expect(
            fx == [
                .phaseChanged(
                    FocusNotice(
                        event: .wake, phase: .focus, round: 1, rounds: 2,
                        remaining: .seconds(899.5), at: .seconds(2400.5)))
            ])
        #expect(rig.machine.countdown.remaining == .seconds(899.5))
        rig.run(until: 4000, step: 5)
        #expect(
            rig.records[0]
                == FocusRoundRecord(
                    phase: .focus, round: 1, status: .completed, start: .zero,
                    end: .seconds(3300), planned: .seconds(1500), extended: .zero,
                    active: .seconds(1500), paused: .seconds(1800)))
        #expect(rig.mixer.level(at: 3300) == 0 && rig.mixer.level(at: 3289.9) == 1)
    }

    @Test func aSuspendDuringTheFadeFreezesTheFadeToo() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        rig.run(until: 8)
        rig.suspend(for: 100)
        rig.send(.tick, at: 108)
        // The engine's ramp stood still while asleep; so did the round: 2 s of fade remain.
        #expect(rig.machine.countdown.remaining == .seconds(2))
        #expect(rig.machine.nextWakeup == .seconds(2))
        rig.run(until: 120)
        #expect(rig.records[0].end == .seconds(110) && rig.records[0].paused == .seconds(100))
    }

    @Test func aSuspendWhilePausedIsNotCountedTwice() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        rig.send(.pause, at: 2)
        rig.suspend(for: 50)
        #expect(!rig.send(.tick, at: 52).contains { if case .phaseChanged = $0 { true } else { false } })
        rig.send(.resume, at: 60)
        rig.run(until: 100)
        #expect(rig.records[0].paused == .seconds(58) && rig.records[0].end == .seconds(68))
    }

    @Test func clockReadingJitterIsNotASuspend() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 4)
        rig.send(.start, at: 0)
        rig.suspend(for: 0.2)  // under the threshold
        #expect(rig.send(.tick, at: 1).isEmpty)
        rig.run(until: 20)
        #expect(rig.records[0].end == .seconds(10) && rig.records[0].paused == .zero)
    }

    @Test func aClockGoingBackwardsIsIgnored() {
        var machine = FocusMachine(plan: try! FocusPlan(focus: .seconds(10), fade: .seconds(1)))
        _ = machine.handle(.start, at: reading(100))
        _ = machine.handle(.tick, at: reading(105))
        _ = machine.handle(.tick, at: reading(50))
        #expect(machine.countdown.remaining == .seconds(5))
    }

    // MARK: countdown, deadlines and odd inputs

    @Test func phaseStartAndDeadlineForPersistence() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 2)
        #expect(rig.machine.deadline == nil && rig.machine.phaseStart == nil)
        rig.send(.start, at: 0)
        #expect(rig.machine.phaseStart == .zero && rig.machine.deadline == .seconds(10))
        rig.send(.pause, at: 4)
        #expect(rig.machine.deadline == nil && rig.machine.phaseStart == .zero)
        rig.send(.resume, at: 7)
        #expect(rig.machine.deadline == .seconds(13))
        rig.send(.extend(by: .seconds(60)), at: 8)
        #expect(rig.machine.deadline == .seconds(73))
        rig.run(until: 74)
        #expect(rig.machine.phaseStart == .seconds(73) && rig.machine.deadline == .seconds(78))
    }

    @Test func aNonPositiveExtensionIsIgnored() {
        var rig = FocusRig(focus: 10, shortBreak: 5, rounds: 2, fade: 2)
        rig.send(.start, at: 0)
        #expect(rig.send(.extend(by: .zero), at: 1).isEmpty)
        #expect(rig.send(.extend(by: .seconds(-5)), at: 1).isEmpty)
        #expect(rig.machine.deadline == .seconds(10))
        // Absurd extensions stop at a year in all.
        rig.send(.extend(by: .seconds(Int64.max)), at: 2)
        rig.send(.extend(by: .seconds(Int64.max)), at: 3)
        #expect(rig.machine.countdown.planned == FocusPlan.maximumDuration)
    }

    @Test func countdownFollowsThePhase() {
        var rig = FocusRig(focus: 100, shortBreak: 20, rounds: 2, fade: 10)
        #expect(rig.machine.countdown.state == .notStarted && rig.machine.countdown.progress == 0)
        rig.send(.start, at: 0)
        rig.send(.tick, at: 25)
        var c = rig.machine.countdown
        #expect(c.phase == .focus && c.roundText == "1/2" && c.remaining == .seconds(75) && c.progress == 0.25)
        rig.send(.extend(by: .seconds(100)), at: 25)
        c = rig.machine.countdown
        #expect(c.planned == .seconds(200) && c.remaining == .seconds(175) && c.progress == 0.125)
        rig.run(until: 210)
        c = rig.machine.countdown
        #expect(c.phase == .shortBreak && c.state == .running(.shortBreak) && c.progress == 0.5)
        rig.send(.stop, at: 211)
        c = rig.machine.countdown
        #expect(c.phase == nil && c.state == .finished(.stopped) && c.progress == 1)
    }
}
