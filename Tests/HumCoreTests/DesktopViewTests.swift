import Foundation
import Testing

@testable import HumCore

/// What the desktop sees of a player (MPRIS) and says of a focus session (notifications), as pure values.
@Suite struct DesktopViewTests {
    let mix = Mix(tracks: [.init(sound: "rain", volume: 40), .init(sound: "/x/cafe.flac", volume: 25, muted: true)])

    func focus(
        _ phase: FocusPhase, round: Int = 2, remaining: Int64 = 600, planned: Int64 = 1500, paused: Bool = false,
        waiting: Bool = false
    ) -> PlayerStatus.Focus {
        PlayerStatus.Focus(
            phase: phase, round: round, rounds: 4, remainingSeconds: remaining, plannedSeconds: planned,
            deadline: nil, paused: paused, waiting: waiting, goal: nil, tags: [])
    }

    func status(state: PlayerStatus.State = .playing, focus: PlayerStatus.Focus? = nil) -> PlayerStatus {
        PlayerStatus(
            pid: 7, session: "ab-12", state: state, mix: mix, focus: focus, elapsedSeconds: 90, endsInSeconds: nil)
    }

    @Test func aFocusRoundIsATrackOfItsOwn() {
        let view = MediaPlayerView(status: status(focus: focus(.focus)))
        #expect(view.playbackStatus == .playing)
        #expect(view.trackID == "/org/hum/ab_12/focus_2")
        #expect(view.title == "Focus 2/4")
        #expect(view.artist == "rain 40, cafe 25 (muted)")
        #expect(view.lengthMicroseconds == 1_500_000_000)
        #expect(view.positionMicroseconds == 900_000_000)
        #expect(view.canGoNext && view.canGoPrevious)
        let breakView = MediaPlayerView(status: status(focus: focus(.shortBreak)))
        #expect(breakView.title == "Short break" && breakView.trackID == "/org/hum/ab_12/short_break_2")
        #expect(breakView.canGoNext && !breakView.canGoPrevious)  // a break is not restarted
        #expect(MediaPlayerView(status: status(focus: focus(.longBreak, round: 4))).title == "Long break")
    }

    @Test func pausedWaitingAndStoppingAreSaidAsMPRISSaysThem() {
        #expect(MediaPlayerView(status: status(state: .paused)).playbackStatus == .paused)
        #expect(MediaPlayerView(status: status(focus: focus(.focus, paused: true))).playbackStatus == .paused)
        let waiting = MediaPlayerView(status: status(focus: focus(.focus, waiting: true)))
        #expect(waiting.playbackStatus == .paused && !waiting.canGoPrevious && waiting.canGoNext)
        let stopping = MediaPlayerView(status: status(state: .stopping, focus: focus(.focus)))
        #expect(stopping.playbackStatus == .stopped && !stopping.canGoNext && !stopping.canGoPrevious)
    }

    @Test func withoutAPlanTheMixIsTheTrack() {
        var s = status()
        let plain = MediaPlayerView(status: s)
        #expect(plain.trackID == "/org/hum/ab_12/mix" && plain.title == "rain, cafe")
        #expect(plain.lengthMicroseconds == nil && plain.positionMicroseconds == 90_000_000)
        #expect(!plain.canGoNext && !plain.canGoPrevious)
        s.mix.name = "night"
        s.endsInSeconds = 30
        let named = MediaPlayerView(status: s)
        #expect(named.title == "night" && named.lengthMicroseconds == 120_000_000)
        s.mix = Mix(tracks: [])
        #expect(MediaPlayerView(status: s).artist == "no sound")
    }

    @Test func theAnnouncedViewLeavesThePositionOut() {
        let early = MediaPlayerView(status: status(focus: focus(.focus, remaining: 600)))
        let later = MediaPlayerView(status: status(focus: focus(.focus, remaining: 590)))
        #expect(early != later && early.announced == later.announced)
        let extended = MediaPlayerView(status: status(focus: focus(.focus, remaining: 900, planned: 1800)))
        #expect(extended.announced != early.announced)
    }

    /// MPRIS Volume is hum's master on its own (perceptual) scale: 0.5 is master 50, both ways.
    @Test func volumeMapsOntoTheMasterBothWays() {
        #expect(MediaPlayerView.volume(master: 50) == 0.5)
        #expect(MediaPlayerView.master(volume: 0.5) == 50)
        #expect(MediaPlayerView.master(volume: 0.333) == 33.3)
        #expect(MediaPlayerView.master(volume: -0.2) == 0)
        #expect(MediaPlayerView.master(volume: 1.7) == 100)
        #expect(MediaPlayerView.master(volume: .nan) == nil)
        #expect(MediaPlayerView.master(volume: .infinity) == nil)
        for master in stride(from: 0.0, through: 100, by: 0.1) {
            let rounded = (master * 10).rounded() / 10
            #expect(MediaPlayerView.master(volume: MediaPlayerView.volume(master: rounded)) == rounded)
        }
        // 0.5 is −18 dB of gain, the middle of hum's scale; half the gain would be master 79.
        #expect(abs(20 * log10(Double(Volume.gain(Float(MediaPlayerView.master(volume: 0.5)!)))) + 18.06) < 0.01)
    }

    // MARK: Notifications

    let plan = try! FocusPlan(rounds: 4)

    func notice(_ event: FocusNotice.Event, _ phase: FocusPhase?, _ round: Int, of rounds: Int = 4) -> FocusNotice {
        FocusNotice(event: event, phase: phase, round: round, rounds: rounds, remaining: .zero, at: .zero)
    }

    @Test func theTextSaysWhatHappenedAndWhatComesNext() {
        let toBreak = FocusNotification(after: notice(.start, .shortBreak, 2), plan: plan, goal: "draft chapter 2")
        #expect(toBreak?.summary == "Focus 2/4 done — 5 min break, then focus 3/4")
        #expect(toBreak?.body == "Goal: draft chapter 2")
        #expect(toBreak?.actions.map(\.label) == ["Skip", "+5 min"])
        #expect(toBreak?.actions.map(\.key.command) == [.skip, .extend(seconds: nil)])
        let toLong = FocusNotification(
            after: notice(.start, .longBreak, 4, of: 8), plan: try! FocusPlan(rounds: 8), goal: nil)
        #expect(toLong?.summary == "Focus 4/8 done — 15 min long break, then focus 5/8")
        #expect(toLong?.body == "")
        let back = FocusNotification(after: notice(.start, .focus, 3), plan: plan, goal: nil)
        #expect(back?.summary == "Break done — focus 3/4, 25 min")
        let afterLong = FocusNotification(
            after: notice(.start, .focus, 5, of: 8), plan: try! FocusPlan(rounds: 8), goal: nil)
        #expect(afterLong?.summary == "Long break done — focus 5/8, 25 min")
        let done = FocusNotification(after: notice(.finish, nil, 4), plan: plan, goal: "g")
        #expect(done?.summary == "Focus 4/4 done — the session is complete" && done?.actions == [])
    }

    @Test func aWaitingPhaseOffersToStartIt() {
        let wait = FocusNotification(after: notice(.wait, .shortBreak, 1), plan: plan, goal: nil)
        #expect(wait?.summary == "Focus 1/4 done — the 5 min break waits for you")
        #expect(wait?.actions == [.init(key: .skip, label: "Start")])
        let waitFocus = FocusNotification(after: notice(.wait, .focus, 2), plan: plan, goal: nil)
        #expect(waitFocus?.summary == "Break done — focus 2/4 waits for you")
    }

    @Test func noticesPeopleCausedThemselvesAreNotNotified() {
        for event in [FocusNotice.Event.pause, .resume, .skip, .extend, .stop, .wake, .restart] {
            #expect(FocusNotification(after: notice(event, .focus, 1), plan: plan, goal: nil) == nil)
        }
    }

    @Test func durationsAreSpelledAsPeopleSayThem() {
        #expect(FocusNotification.spelled(.seconds(90 * 60)) == "1 h 30 min")
        #expect(FocusNotification.spelled(.seconds(45)) == "45 s")
        #expect(FocusNotification.spelled(.seconds(150)) == "2 min 30 s")
        #expect(FocusNotification.spelled(.milliseconds(1500)) == "2 s")
        #expect(FocusNotification.spelled(.seconds(3600)) == "1 h")
    }

    // MARK: The control protocol's new words

    @Test func restartAndInhibitTravelOverTheControlProtocol() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let restart = String(decoding: try encoder.encode(ControlRequest(id: 3, command: .restart)), as: UTF8.self)
        #expect(restart == #"{"cmd":"restart","id":3,"v":1}"#)
        #expect(try JSONDecoder().decode(ControlRequest.self, from: Data(restart.utf8)).command == .restart)
        let request = FocusRequest(plan: plan, goal: nil, tags: [], quiet: false, onEvent: nil, inhibit: true)
        let line = try encoder.encode(ControlRequest(id: 1, command: .focus(request)))
        #expect(String(decoding: line, as: UTF8.self).contains(#""inhibit":true"#))
        #expect(try JSONDecoder().decode(ControlRequest.self, from: line).command == .focus(request))
        // From a client that does not know the word: no inhibitor.
        let old =
            #"{"v":1,"cmd":"focus","focus":{"focus_seconds":60,"short_break_seconds":60,"long_break_seconds":60,"long_break_every":4,"rounds":1,"fade_seconds":1,"auto_advance":"all","tags":[],"quiet":false}}"#
        guard case .focus(let decoded) = try JSONDecoder().decode(ControlRequest.self, from: Data(old.utf8)).command
        else {
            Issue.record("not a focus request")
            return
        }
        #expect(decoded.inhibit == nil)
    }
}
