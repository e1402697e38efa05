import Foundation
import HumCore
import HumStore
import HumTestSupport
import Testing

@testable import HumPlayer

/// The nudges in process, on the manual loop, with the session's presence played by the test and a recording
/// notifier: a nudge every `nudge.every` while no round runs and the session is there, never during rounds or while
/// away, its buttons log the hour once, off by default; and a round's notification announces what it earned.
@Suite struct NudgeTests {
    /// A silent player with `nudge.every` set (nil: never set) and a notifier attached.
    func player(every: String?) throws -> (PlayerHarness, RecordingShieldNotifier) {
        let h = try PlayerHarness()
        if let every { try h.database().setConfig(SettingCatalog.nudgeEvery, to: every) }
        try h.start([])
        let notifier = RecordingShieldNotifier()
        h.player.nudges?.notifier = notifier
        return (h, notifier)
    }

    @Test func aNudgeComesEveryIntervalAndItsButtonLogsTheHourOnce() throws {
        let (h, notifier) = try player(every: "1h")
        #expect(h.presence.started, "the session is watched for the nudges")
        h.at(3599)
        #expect(notifier.nudges.isEmpty)
        h.at(3600)
        #expect(notifier.nudges == [.asking(seconds: 3600)])
        notifier.press(.productive)
        notifier.press(.distracting)  // a second click logs nothing more
        let db = try h.database()
        let today = try db.usageToday()
        #expect(try db.loggedHours(from: today, to: today) == [LoggedHours(date: today, productiveSeconds: 3600)])
        #expect(notifier.nudges.last == .logged(.productive, seconds: 3600, day: today))
        h.at(7200)
        #expect(notifier.nudges.count == 3 && notifier.nudges.last == .asking(seconds: 3600))
        notifier.press(.distracting)
        // The manual wall clock has passed midnight by now: the second hour is logged on the new day.
        let later = try db.usageToday()
        #expect(later == today.adding(days: 1))
        #expect(try db.loggedHours(from: later, to: later) == [LoggedHours(date: later, distractingSeconds: 3600)])
    }

    @Test func offByDefaultNothingIsShownNorArmed() throws {
        let (h, notifier) = try player(every: nil)
        let armed = h.loop.armedTimers
        h.at(86_400)
        #expect(notifier.nudges.isEmpty)
        #expect(!h.presence.started, "nothing watches the session for nudges that are off")
        // Turned on while the player runs: `hum config set` tells it (the `shields` request), and it nudges.
        try h.database().setConfig(SettingCatalog.nudgeEvery, to: "30m")
        try h.player.handle(.shields)
        #expect(h.loop.armedTimers == armed + 1, "one timer, armed at the next nudge")
        h.at(86_400 + 1800)
        #expect(notifier.nudges == [.asking(seconds: 1800)])
    }

    @Test func neverDuringRoundsAndTheQuietStartsAgainWhenTheyEnd() throws {
        let (h, notifier) = try player(every: "1h")
        h.at(1800)
        try h.player.startFocus(try rounds(focus: 3000, rounds: 2), stopsPlayer: false)
        h.at(3600)
        #expect(notifier.nudges.isEmpty, "a round runs at the hour")
        // Focus 3000 s, a 300 s break, focus 3000 s: the rounds end at 1800 + 6300 = 8100.
        h.at(8099)
        #expect(h.rounds != nil && notifier.nudges.isEmpty, "nor during the break or the second round")
        h.at(8100)
        #expect(h.rounds == nil)
        h.at(8100 + 3599)
        #expect(notifier.nudges.isEmpty)
        h.at(8100 + 3600)
        #expect(notifier.nudges == [.asking(seconds: 3600)], "an hour after the rounds ended")
    }

    @Test func neverWhileAwayAndTheQuietStartsAgainOnReturn() throws {
        let (h, notifier) = try player(every: "1h")
        h.at(1000)
        h.presence.set(SessionHints(locked: true))
        h.at(3600)
        #expect(notifier.nudges.isEmpty, "the session is locked at the hour")
        h.at(5000)
        h.presence.set(SessionHints(idle: true))  // still away
        h.at(6000)
        h.presence.set(SessionHints())
        h.at(9599)
        #expect(notifier.nudges.isEmpty)
        h.at(9600)
        #expect(notifier.nudges == [.asking(seconds: 3600)], "an hour after the return")
    }

    @Test func aButtonThatCannotLogSaysWhy() throws {
        let (h, notifier) = try player(every: "1h")
        let db = try h.database()
        _ = try db.logHours(.distracting, seconds: 86_400 - 1800, source: .command)
        h.at(3600)
        notifier.press(.productive)
        #expect(notifier.nudges.last?.summary == "Productive was not logged")
        #expect(
            h.stderr.text.contains("hum: nudge: Productive (the nudge's button) was not logged:"), "\(h.stderr.text)")
        let today = try db.usageToday()
        #expect(try db.loggedHours(from: today, to: today).first?.productiveSeconds == 0)
    }

    @Test func aRoundsNotificationAnnouncesTheAchievementItEarnedOnce() throws {
        let h = try PlayerHarness()
        var request = try rounds(focus: 1500, rounds: 2)
        request.notify = true
        try h.start([])
        try h.player.startFocus(request, stopsPlayer: false)
        var announced: [String] = []
        // The notifications of the session, as the bus would get them: the player's own, seen through its runs.
        h.at(1500)
        let run = try #require(h.player.focus)
        #expect(run.earned.isEmpty, "announced in the notification that followed, and forgotten")
        announced = h.player.lastNotification.map { [$0.body] } ?? []
        #expect(announced == ["Achievement: First round (a first focus round completed)"])
        h.at(1800 + 1500)
        #expect(
            h.player.lastNotification?.body == "", "the second round earns nothing new: the first is not said again")
    }
}
