import Foundation
import HumCore
import HumStore
import HumTestSupport
import Testing

@testable import HumPlayer

#if canImport(Glibc)
    import Glibc
#endif

/// Focus rounds steered while they run, in process: the user's own mix, pause and resume, skip, extend, restart,
/// a stop in a break, a signal, a suspend. Times are seconds since the player started.
@Suite struct FocusControlTests {
    func events(_ audio: RecordingAudio, from: Double, to: Double) -> [String] {
        audio.events.filter { $0.at - 1000 >= from && $0.at - 1000 <= to }.map { "\($0.at - 1000): \($0.call)" }
    }

    /// docs/focus.md, "the user's mix wins": a change before the round's fade is part of the mix (the fade goes on
    /// as planned); a change once the fade began takes over: the mix comes back at once, the break is not silent,
    /// and the next round starts without a fade in.
    @Test func theUsersMixWinsOnceTheFadeBegan() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60", "hiss=20"], rounds(rounds: 2))
        let audio = try #require(h.audio)
        h.at(100)
        try h.player.handle(.volume(sound: "tone", volume: 40))
        h.at(1495)  // 5 s into the fade
        #expect(
            events(audio, from: 1, to: 1495) == ["100.0: volume(tone 40.0)", "1490.0: fadeOut(10.0)"],
            "a change before the fade leaves it as planned")
        try h.player.handle(.volume(sound: "hiss", volume: 50))
        h.at(1900)
        #expect(
            events(audio, from: 1495, to: 1900) == [
                "1495.0: volume(hiss 50.0)", "1495.0: fadeIn(0.02)", "1500.0: chime", "1800.0: chime",
            ], "the user's mix plays through the break and into round 2, with no fade")
        #expect(h.player.mix.tracks.map(\.volume) == [40, 50])
        // Round 2's own end fades as usual.
        h.at(3300)
        #expect(
            events(audio, from: 3200, to: 3300) == ["3290.0: fadeOut(10.0)", "3300.0: chime", "3300.0: stop(0.05)"])
        // The history keeps the mix the round was played with.
        let records = try h.database().rounds()
        #expect(records.first?.mix.map(\.volume) == [0.4, 0.2])
    }

    /// A change in a break takes over too: the break is no longer silent.
    @Test func aChangeInABreakMakesItAudible() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds(rounds: 2))
        let audio = try #require(h.audio)
        h.at(1600)
        try h.player.handle(.master(volume: 80))
        h.at(1800)
        #expect(
            events(audio, from: 1501, to: 1800) == ["1600.0: master(80.0)", "1600.0: fadeIn(0.02)", "1800.0: chime"])
    }

    @Test func pauseAndResumeFreezeTheRoundAndFadeOver1s() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds(rounds: 1))
        let audio = try #require(h.audio)
        h.at(100)
        try h.player.handle(.pause)
        #expect(h.rounds?.paused == true && h.player.status.state == .paused)
        h.at(400)
        #expect(h.rounds?.remainingSeconds == 1400, "the countdown stands still while paused")
        try h.player.handle(.toggle)
        #expect(h.rounds?.paused == false)
        h.at(1800)
        #expect(
            events(audio, from: 1, to: 1800) == [
                "100.0: fadeOut(1.0)", "400.0: fadeTo(1.0, 1.0)", "1790.0: fadeOut(10.0)", "1800.0: chime",
                "1800.0: stop(0.05)",
            ])
        let round = try #require(try h.database().rounds().first)
        #expect((round.status, round.activeSeconds, round.pausedSeconds) == (.completed, 1500, 300))
    }

    @Test func skipRecordsTheRoundSkippedAndStartsTheBreakAtOnce() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds(rounds: 2))
        let audio = try #require(h.audio)
        h.at(300)
        try h.player.handle(.skip)
        let focus = try #require(h.rounds)
        #expect((focus.phase, focus.round, focus.remainingSeconds) == (.shortBreak, 1, 300))
        h.at(600)
        #expect(
            events(audio, from: 1, to: 600) == ["300.0: fadeOut(1.0)", "600.0: chime", "600.0: fadeIn(10.0)"],
            "a skip does not chime; the break that ran out does")
        let records = try h.database().rounds()
        #expect(records.map(\.status) == [.skipped, .completed, .running])
        #expect(records.first?.activeSeconds == 300 && records.first?.earnedSeconds == 0)
        #expect(try h.database().entries().filter { $0.kind == .grant }.isEmpty, "a skipped round earns nothing")
    }

    @Test func extendMovesTheDeadlineAndItsFade() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds(rounds: 1))
        let audio = try #require(h.audio)
        h.at(1000)
        try h.player.handle(.extend(seconds: 300))
        #expect(h.rounds?.remainingSeconds == 800)
        h.at(1800)
        #expect(events(audio, from: 1, to: 1800) == ["1790.0: fadeOut(10.0)", "1800.0: chime", "1800.0: stop(0.05)"])
        let round = try #require(try h.database().rounds().first)
        #expect((round.status, round.plannedSeconds, round.activeSeconds) == (.completed, 1800, 1800))
    }

    @Test func restartRecordsTheRoundInterruptedAndRunsItInFull() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds(rounds: 1))
        h.at(500)
        try h.player.handle(.restart)
        let focus = try #require(h.rounds)
        #expect((focus.phase, focus.round, focus.remainingSeconds) == (.focus, 1, 1500))
        h.at(2000)
        let records = try h.database().rounds()
        #expect(records.map(\.status) == [.interrupted, .completed])
        #expect(records.map(\.activeSeconds) == [500, 1500])
        #expect(records.map(\.earnedSeconds) == [0, 500])
        #expect(h.stdout.text.contains("restart focus 1/1"), "\(h.stdout.text)")
    }

    /// A stop in a break: the break is recorded interrupted, the status shows a stopping player with no rounds
    /// (never "focus 4/4 · 00:00 · stopping") and nothing loading, and a change sent to it is refused with a line
    /// that says so, not lost.
    @Test func aStopInABreakShowsNoRoundsAndRefusesChanges() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds())
        let audio = try #require(h.audio)
        h.at(1600)
        let status = try h.player.handle(.stop)
        #expect(status.state == .stopping && status.focus == nil && status.note == nil, "\(status)")
        for request: PlayerCommand in [.add(sound: "hiss", volume: 30), .volume(sound: "tone", volume: 10), .skip] {
            #expect {
                try h.player.handle(request)
            } throws: { error in
                (error as? PlayerError)?.message
                    == "the player is stopping (it was asked to stop), so '\(request.name)' would be lost; once it "
                    + "has stopped, start a new one with 'hum play'"
            }
        }
        #expect(try h.player.handle(.status).state == .stopping)
        #expect(audio.calls.last == .stop(seconds: 1))
        h.at(1602)
        #expect(h.loop.stopped)
        let records = try h.database().rounds()
        #expect(records.map(\.kind) == [.focus, .shortBreak])
        #expect(records.map(\.status) == [.completed, .interrupted])
        #expect(records.last?.activeSeconds == 100)
        #expect(h.stdout.text.contains("stop short-break 1/4"), "\(h.stdout.text)")
    }

    /// SIGTERM, as the loop hands it over: the round under way is recorded interrupted with its real active time.
    @Test func aSignalStopsTheRoundsAsInterrupted() throws {
        let h = try PlayerHarness()
        try h.focus([], rounds(focus: 60))
        h.at(2)
        #expect(h.loop.deliver(signal: SIGTERM))
        #expect(h.loop.stopped, "the timer alone ends at once")
        let round = try #require(try h.database().rounds().first)
        #expect((round.status, round.activeSeconds, round.earnedSeconds) == (.interrupted, 2, 0))
        #expect(h.stdout.text.contains("stop focus 1/4"))
    }

    /// A second `hum focus` to a player that runs rounds is refused, naming them.
    @Test func aSecondFocusIsRefusedNamingTheFirst() throws {
        let h = try PlayerHarness()
        try h.focus([], rounds())
        h.at(10)
        #expect {
            try h.player.handle(.focus(try rounds()))
        } throws: { error in
            (error as? PlayerError)?.message.hasPrefix(
                "focus rounds are already running (pid \(getpid()), focus 1/4); end them first") == true
                && (error as? PlayerError)?.kind == .failure  // exit 1 in `hum focus`
        }
    }

    /// A suspend counts as pause (docs/focus.md): boot time moves, monotonic time does not; the round goes on where
    /// it was once the rounds are next told the time (the heartbeat), and the sleep is recorded as paused.
    @Test func aSuspendInARoundCountsAsPause() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds(rounds: 1))
        h.at(600)
        h.loop.suspend(for: 3600)
        h.loop.advance(by: 5)  // the next heartbeat
        #expect(h.rounds?.remainingSeconds == 895)
        #expect(h.stdout.text.contains("wake focus 1/1"), "\(h.stdout.text)")
        h.at(1500)
        let round = try #require(try h.database().rounds().first)
        #expect((round.status, round.activeSeconds, round.pausedSeconds) == (.completed, 1500, 3600))
        #expect(round.end.map { $0.epochSeconds - round.start.epochSeconds } == 5100)
    }
}
