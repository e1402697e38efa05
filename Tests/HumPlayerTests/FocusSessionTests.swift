import Foundation
import HumCore
import HumStore
import HumTestSupport
import Testing

@testable import HumPlayer

/// Whole focus sessions on a player in process: the manual loop's time, the recording audio, the real ledger.
@Suite struct FocusSessionTests {
    /// 4 rounds of 25/5 with a 15-minute long break after the second, `hum focus tone=60`: the mix fades in at each
    /// round's start and out over its last 10 s, the chime rings at every phase that ran out, each phase is
    /// recorded and each focus round granted, the status says where the rounds are, and the player ends with the
    /// last round. Two hours of rounds in about 0.4 s (no bound is asserted: a loaded machine may take longer).
    @Test func aWholeSessionFadesChimesRecordsAndGrants() throws {
        let h = try PlayerHarness()
        try h.focus(["tone=60"], rounds(longEvery: 2, goal: "write", tags: ["deep"]))
        let audio = try #require(h.audio)
        // The phases: focus 1, short break, focus 2, long break, focus 3, short break, focus 4.
        let ends: [Double] = [1500, 1800, 3300, 4200, 5700, 6000, 7500]

        // The status at chosen instants.
        h.at(600)
        var focus = try #require(h.rounds)
        #expect((focus.phase, focus.round, focus.rounds, focus.remainingSeconds) == (.focus, 1, 4, 900))
        #expect(focus.goal == "write" && focus.tags == ["deep"] && !focus.paused)
        h.at(1600)
        focus = try #require(h.rounds)
        #expect((focus.phase, focus.round, focus.remainingSeconds) == (.shortBreak, 1, 200))
        h.at(3500)
        focus = try #require(h.rounds)
        #expect((focus.phase, focus.round, focus.remainingSeconds) == (.longBreak, 2, 700))
        h.at(7499)
        focus = try #require(h.rounds)
        #expect((focus.phase, focus.round, focus.remainingSeconds) == (.focus, 4, 1))
        #expect(h.player.status.state == .playing)

        // The last round ran out: the rounds are over and the player, which exists for them, fades out and ends.
        h.at(7500)
        #expect(h.rounds == nil)
        #expect(h.player.status.state == .stopping)
        h.at(7600)
        #expect(h.loop.stopped, "the player left its loop")

        // The audio, phase by phase: a 10 s fade in at each focus round's start, a 10 s fade out ending on its
        // deadline, the chime at every phase that ran out, and the player's own short fade at its end; nothing else
        // (the mix was never touched).
        var expected: [String] = ["0.0: fadeIn(10.0)"]
        for (i, end) in ends.enumerated() {
            if i % 2 == 0 { expected.append("\(end - 10): fadeOut(10.0)") }
            expected.append("\(end): chime")
            if i % 2 == 1 { expected.append("\(end): fadeIn(10.0)") }
        }
        expected.append("7500.0: stop(0.05)")
        #expect(audio.events.map { "\($0.at - 1000): \($0.call)" } == expected)

        // The ledger: every phase completed with its full time, each focus round granted a third of it.
        let db = try h.database()
        let records = try db.rounds()
        #expect(
            records.map(\.kind) == [.focus, .shortBreak, .focus, .longBreak, .focus, .shortBreak, .focus])
        #expect(records.allSatisfy { $0.status == .completed })
        #expect(records.map(\.activeSeconds) == [1500, 300, 1500, 900, 1500, 300, 1500])
        #expect(records.filter { $0.kind == .focus }.allSatisfy { $0.goal == "write" && $0.tags == ["deep"] })
        #expect(records.first?.mix.map(\.sound) == ["tone"])
        let grants = try db.entries().filter { $0.kind == .grant }
        #expect(grants.count == 4)
        #expect(Set(grants.compactMap(\.roundID)) == Set(records.filter { $0.kind == .focus }.map(\.id)))
        #expect(records.map(\.earnedSeconds) == [500, 0, 500, 0, 500, 0, 500])
        #expect(try db.bankStatus().balance == 2000)

        // One line per phase change on stdout, on the wall clock of the session.
        let lines = h.stdout.text.split(separator: "\n").map(String.init)
        #expect(lines.first == "22:13:20 start focus 1/4 25:00", "\(lines)")
        #expect(lines.count == 8, "\(lines)")
        #expect(lines.last?.contains("finish") == true, "\(lines)")
        #expect(h.stderr.text.isEmpty, "\(h.stderr.text)")
    }
}
