import Foundation
import HumCore
import HumStore
import HumTestSupport
import Testing

@testable import HumPlayer

/// Away detection in process, with the session's presence played by the test (`ScriptedPresence`, logind's
/// double): a lock pauses a focus round and fades the mix out, the return resumes it, and the time away is on the
/// round's record and never counted as focus; `focus.when-away` keep and stop; a break does not mind; a problem
/// watching is said once, with --verbose only.
@Suite struct AwayTests {
    func events(_ audio: RecordingAudio, from: Double, to: Double) -> [String] {
        audio.events.filter { $0.at - 1000 >= from && $0.at - 1000 <= to }.map { "\($0.at - 1000): \($0.call)" }
    }

    @Test func aLockPausesTheRoundAndTheReturnResumesIt() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds(rounds: 1))
        let audio = try #require(h.audio)
        #expect(h.presence.started, "the session is watched while rounds run")
        h.at(100)
        h.presence.set(SessionHints(locked: true))
        #expect(h.rounds?.paused == true && h.player.status.state == .paused)
        h.at(400)
        #expect(h.rounds?.remainingSeconds == 1400, "the countdown stands still while away")
        h.presence.set(SessionHints(locked: true, idle: true))  // still away: nothing new
        h.presence.set(SessionHints())
        #expect(h.rounds?.paused == false)
        #expect(h.stderr.text.contains("hum: back after 5m away; the round resumes"), "\(h.stderr.text)")
        h.at(1800)
        #expect(
            events(audio, from: 1, to: 1800) == [
                "100.0: fadeOut(1.0)", "400.0: fadeTo(1.0, 1.0)", "1790.0: fadeOut(10.0)", "1800.0: chime",
                "1800.0: stop(0.05)",
            ])
        let round = try #require(try h.database().rounds().first)
        #expect((round.status, round.activeSeconds, round.pausedSeconds) == (.completed, 1500, 300))
        #expect(try h.database().awaySeconds(ofRound: round.id) == 300)
    }

    @Test func aResumeWhileAwayIsTheUsersAndIdleCountsAsAway() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds(rounds: 1))
        h.at(100)
        h.presence.set(SessionHints(idle: true))
        #expect(h.rounds?.paused == true)
        h.at(200)
        try h.player.handle(.toggle)  // resumed by hand while still idle
        h.at(300)
        h.presence.set(SessionHints())
        #expect(h.rounds?.paused == false)
        h.at(1700)
        let round = try #require(try h.database().rounds().first)
        #expect((round.status, round.activeSeconds, round.pausedSeconds) == (.completed, 1500, 100))
        #expect(try h.database().awaySeconds(ofRound: round.id) == 200)
    }

    @Test func keepRunsOnAndStopEndsTheRoundsBothRecordTheTimeAway() throws {
        let keep = try PlayerHarness()
        try keep.database().setConfig(SettingCatalog.focusWhenAway, to: "keep")
        try keep.focus(["tone=60"], rounds(rounds: 1))
        keep.at(100)
        keep.presence.set(SessionHints(locked: true))
        #expect(keep.rounds?.paused == false, "keep: the round runs on")
        keep.at(400)
        keep.presence.set(SessionHints())
        keep.at(1500)
        var round = try #require(try keep.database().rounds().first)
        #expect((round.status, round.activeSeconds) == (.completed, 1500))
        #expect(try keep.database().awaySeconds(ofRound: round.id) == 300)

        let stop = try PlayerHarness()
        try stop.database().setConfig(SettingCatalog.focusWhenAway, to: "stop")
        try stop.focus(["tone=60"], rounds(rounds: 2))
        stop.at(100)
        stop.presence.set(SessionHints(locked: true))
        #expect(stop.rounds == nil, "stop: the rounds are over")
        round = try #require(try stop.database().rounds().first)
        #expect((round.status, round.activeSeconds) == (.interrupted, 100))
    }

    @Test func aBreakDoesNotMindAndAProblemIsSaidOnceWithVerbose() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds(rounds: 2))
        h.at(1600)  // in the short break
        h.presence.set(SessionHints(locked: true))
        #expect(h.rounds?.paused == false && h.rounds?.phase == .shortBreak)
        h.presence.set(SessionHints())
        #expect(!h.stderr.text.contains("back after"))
        h.presence.fail("no system bus (test)")
        #expect(!h.stderr.text.contains("not watching"), "said only with --verbose")
        h.player.describeAudio()
        h.presence.fail("no system bus (test)")
        let said = h.stderr.text.components(separatedBy: "hum: away: not watching the session (no system bus (test))")
        #expect(said.count == 2, "\(h.stderr.text)")
    }
}
