import Foundation
import HumCore
import HumStore
import HumTestSupport
import Testing

@testable import HumPlayer

/// The player's interpreter in process: volumes moved by a step, sounds added and removed, focus rounds on a player
/// that plays a mix, a contract's rounds.
@Suite struct PlayerRequestTests {
    /// `hum ctl volume tone +15`: the player computes the step from where the volume is now, in the one place that
    /// changes it, kept within 0–100.
    @Test func relativeVolumesAreComputedByThePlayer() throws {
        let h = try PlayerHarness()
        try h.start(["tone=50", "hiss=20"])
        let audio = try #require(h.audio)
        #expect(try h.player.handle(.volumeBy(sound: "tone", step: 15)).mix.tracks.map(\.volume) == [65, 20])
        #expect(try h.player.handle(.volumeBy(sound: "hiss", step: -30)).mix.tracks.map(\.volume) == [65, 0])
        #expect(try h.player.handle(.volumeBy(sound: "tone", step: 50)).mix.tracks.map(\.volume) == [100, 0])
        #expect(try h.player.handle(.masterBy(step: -25)).mix.master == 75)
        #expect(try h.player.handle(.masterBy(step: -80)).mix.master == 0)
        #expect(
            audio.calls == [
                .volume(sound: "tone", volume: 65, muted: false), .volume(sound: "hiss", volume: 0, muted: false),
                .volume(sound: "tone", volume: 100, muted: false), .master(75), .master(0),
            ])
        #expect {
            try h.player.handle(.volumeBy(sound: "rain", step: 10))
        } throws: { error in
            (error as? any UserFacingError)?.message == "\"rain\" is not in the mix; the mix has tone, hiss"
                && (error as? any UserFacingError)?.kind == .usage
        }
    }

    /// A sound added fades in once loaded, and the status says it loads until then; one removed before it loaded
    /// leaves no "loading" note behind and never plays.
    @Test func addedSoundsLoadAndARemovedOneLeavesNoNote() throws {
        let h = try PlayerHarness()
        try h.start(["tone=50"])
        let audio = try #require(h.audio)
        #expect(try h.player.handle(.add(sound: "hiss", volume: 30)).note == "loading hiss")
        h.loop.runPending()
        #expect(h.player.status.note == nil)
        #expect(audio.calls == [.added("hiss", volume: 30)])
        #expect(try h.player.handle(.remove(sound: "hiss")).mix.tracks.map(\.sound) == ["tone"])
        #expect(audio.calls.last == .removed("hiss"))

        #expect(try h.player.handle(.add(sound: "hiss", volume: 20)).note == "loading hiss")
        let removed = try h.player.handle(.remove(sound: "hiss"))
        #expect(removed.note == nil && removed.mix.tracks.map(\.sound) == ["tone"], "\(removed)")
        h.loop.runPending()
        #expect(h.player.status.note == nil)
        #expect(audio.calls.count == 2, "the sound removed while loading never joined: \(audio.calls)")
        #expect(h.stderr.text.isEmpty, "\(h.stderr.text)")
    }

    /// `hum focus` sent to a player that plays a mix: its rounds run on that mix, and when they are over the mix
    /// fades back in and plays on; the round is recorded with the mix.
    @Test func roundsOnARunningPlayerGiveTheMixBack() throws {
        let h = try PlayerHarness()
        try h.start(["tone=40"])
        let audio = try #require(h.audio)
        h.at(5)
        let status = try h.player.handle(.focus(try rounds(focus: 120, rounds: 1, goal: "g")))
        #expect(status.focus?.goal == "g" && status.focus?.round == 1)
        h.at(200)
        #expect(h.rounds == nil)
        #expect(h.player.status.state == .playing && !h.loop.stopped, "the mix plays on")
        #expect(
            audio.events.map { "\($0.at - 1000): \($0.call)" } == [
                "5.0: fadeIn(10.0)", "115.0: fadeOut(10.0)", "125.0: chime", "125.0: fadeIn(1.0)",
            ])
        let round = try #require(try h.database().rounds().first)
        #expect((round.kind, round.status, round.activeSeconds) == (.focus, .completed, 120))
        #expect(round.mix.map(\.sound) == ["tone"] && round.goal == "g")
    }

    /// `hum focus --done-when`: the contract is written before the first round, its rounds hold their reward (no
    /// grant, nothing earned) and, once they ran to the end, it waits in proof review with the session's evidence.
    @Test func aContractsRoundsHoldTheirRewardUntilReview() throws {
        let h = try PlayerHarness()
        let watched = h.box.root + "/work/notes"
        try FileManager.default.createDirectory(atPath: watched, withIntermediateDirectories: true)
        try "An intro.\n".write(toFile: watched + "/intro.md", atomically: true, encoding: .utf8)
        let contract = ContractStart(
            id: UUID().uuidString.lowercased(), goal: "Draft the intro", doneWhen: ["three paragraphs"],
            firstStep: nil, watch: [watched], strict: false)
        try h.focus([], rounds(focus: 600, rounds: 1, goal: "Draft the intro", contract: contract))
        #expect(try h.database().contracts().map(\.status) == [.running])
        h.at(300)
        try "An intro.\n\nA second.\n\nA third.\n".write(
            toFile: watched + "/intro.md", atomically: true, encoding: .utf8)
        h.at(600)
        let db = try h.database()
        let record = try #require(try db.contracts().first)
        #expect(record.status == .completed, "in proof review")
        let round = try #require(try db.rounds().first)
        #expect((round.status, round.contractID, round.earnedSeconds) == (.completed, contract.id, 0))
        #expect(try db.entries().filter { $0.kind == .grant }.isEmpty, "nothing is paid before the review")
        #expect(
            h.stderr.text.contains("is in proof review: 1 file changed (intro.md: modified, +4 lines"),
            "\(h.stderr.text)")
    }
}
