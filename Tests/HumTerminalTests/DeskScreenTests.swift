import HumCore
import HumTerminal
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The full screen's controller in process: keys through a pipe into a display double, the player a recording
/// double whose events come on a pipe, time on the manual loop, the ledger and settings as closures.
@Suite struct DeskScreenTests {
    final class Rig {
        let loop = ManualEventLoop()
        let display = PipeDisplay()
        let player: RecordingPlayer
        var said: [String] = []
        var focusRequests = 0
        var bank = DeskBank(
            balanceSeconds: 600, earnedTodaySeconds: 0, dailyCapSeconds: 10800, emergencyLeftSeconds: 600,
            emergencyWeeklySeconds: 600)
        var screen: DeskScreen!
        static let request = FocusRequest(
            plan: try! FocusPlan(rounds: 3), goal: "draft", tags: [], quiet: true, onEvent: nil)

        init(_ status: PlayerStatus = screenStatus(), startedHere: Bool = true) throws {
            player = RecordingPlayer(status)
            let services = DeskServices(
                sounds: [DeskSound(name: "birds", description: "Birds at dawn.")], blink: false,
                calendar: LocalCalendar(clock: loop.clock, zone: FixedZone(offsetSeconds: 0)),
                readBank: { [unowned self] in self.bank },
                focusRequest: { [unowned self] in
                    self.focusRequests += 1
                    return Rig.request
                },
                saveMix: { _, _ in }, savedMixes: { [] }, mixNamed: { _ in nil }, heldMessage: { nil },
                openDisplay: { [unowned self] _ in self.display }, say: { [unowned self] in self.said.append($0) })
            screen = DeskScreen(
                loop: loop, player: player, startedHere: startedHere, color: false, services: services)
            try screen.start()
        }

        func type(_ text: String) {
            display.keysPipe.send(text)
            loop.runPending()
        }
    }

    @Test func keysBecomeTheirRequests() throws {
        let rig = try Rig()
        #expect(rig.player.commands == [.subscribe])
        rig.type(" ")
        rig.type("\u{1B}[C")
        rig.type("-")
        rig.type("f")
        #expect(
            rig.player.steering == [
                .toggle, .volume(sound: "rain", volume: 45), .master(volume: 75),
                .focus(Rig.request),
            ])
        #expect(rig.focusRequests == 1)
        #expect(!rig.loop.stopped)
    }

    /// Leaving with `q` while focus rounds run leaves them running, stops nothing, and says so on the way out.
    @Test func quitDuringFocusLeavesTheRoundsRunning() throws {
        let rig = try Rig(screenStatus(focus: runningFocus()), startedHere: true)
        rig.type("q")
        #expect(rig.loop.stopped)
        rig.screen.finish()
        #expect(!rig.player.commands.contains(.stop))
        #expect(!rig.player.commands.contains(.endFocus))
        #expect(rig.said.count == 1)
        #expect(rig.said.first?.hasPrefix("focus 2/4 runs on in the player") == true)
        #expect(rig.display.closed)
    }

    /// `Q` is the explicit stop: the rounds and the player end.
    @Test func theStopKeyStopsThePlayer() throws {
        let rig = try Rig(screenStatus(focus: runningFocus()))
        rig.type("Q")
        #expect(rig.loop.stopped)
        rig.screen.finish()
        #expect(rig.player.steering == [.stop])
        #expect(rig.said.isEmpty)
    }

    /// Without rounds, `q` stops a player started for the screen, and leaves one started apart playing.
    @Test func quitStopsOnlyAPlayerStartedForTheScreen() throws {
        let mine = try Rig(startedHere: true)
        mine.type("q")
        mine.screen.finish()
        #expect(mine.player.steering == [.stop])

        let theirs = try Rig(startedHere: false)
        theirs.type("q")
        theirs.screen.finish()
        #expect(theirs.player.steering.isEmpty)
    }

    /// The countdown moves on the screen each second with no word from the player; the player's events are drawn
    /// as they come.
    @Test func theClockTicksAndEventsAreDrawn() throws {
        let rig = try Rig(screenStatus(focus: runningFocus()))
        let before = rig.display.frames.count
        rig.loop.advance(by: 1)
        #expect(rig.display.frames.count == before + 1)
        rig.loop.advance(by: 2)
        #expect(rig.display.frames.count == before + 3)
        rig.player.post(screenStatus(focus: runningFocus(remaining: 30)), what: [.focus])
        rig.loop.runPending()
        #expect(rig.display.frames.count == before + 4)
        #expect(rig.player.commands == [.subscribe])
    }

    @Test func aFlashShowsWhenARoundEarned() throws {
        let rig = try Rig(screenStatus(focus: runningFocus()))
        rig.bank.earnedTodaySeconds = 1500
        rig.player.post(screenStatus(focus: runningFocus()), what: [.focus])  // a phase change reads the bank
        rig.loop.runPending()
        #expect(rig.loop.armedTimers == 3)  // the clock, the idle hide, the flash's end
        rig.loop.advance(by: DeskScreen.flashSeconds + 0.5)
        #expect(rig.loop.armedTimers == 1)  // the flash ended, the idle hide too; the clock goes on
    }

    /// The shields and the bank, as the player's events change them: up, lifted until a time, off.
    @Test func theShieldsShowBesideTheBankAndFollowThePlayer() throws {
        var status = screenStatus()
        status.shields = [ShieldLine(name: "games", state: "up")]
        let rig = try Rig(status)
        #expect(rig.display.shown.contains("shields"), "\(rig.display.shown)")
        #expect(rig.display.shown.contains("games   up"), "\(rig.display.shown)")
        #expect(rig.display.shown.contains("balance  10m"), "\(rig.display.shown)")
        let until = Timestamp(epochSeconds: 14 * 3600 + 32 * 60, offsetSeconds: 0)
        status.shields = [
            ShieldLine(name: "games", state: "lifted", until: until),
            ShieldLine(name: "social", state: "off", until: Timestamp(epochSeconds: 15 * 3600, offsetSeconds: 0)),
        ]
        rig.bank.balanceSeconds = 300
        rig.player.post(status, what: [.shields])
        rig.loop.runPending()
        #expect(rig.display.shown.contains("games   lifted until 14:32"), "\(rig.display.shown)")
        #expect(rig.display.shown.contains("social  off until 15:00"), "\(rig.display.shown)")
        #expect(!rig.display.shown.contains("games   up"), "\(rig.display.shown)")
    }

    /// The player ending ends the screen and says so.
    @Test func thePlayerEndingEndsTheScreen() throws {
        let rig = try Rig()
        rig.player.end()
        rig.loop.runPending()
        #expect(rig.loop.stopped)
        rig.screen.finish()
        #expect(rig.said == ["the player has stopped"])
        #expect(!rig.player.commands.contains(.stop))
    }

    @Test func aSignalLeavesAsQuitDoes() throws {
        let rig = try Rig(startedHere: false)
        #expect(rig.loop.deliver(signal: SIGTERM))
        #expect(rig.loop.stopped)
        rig.screen.finish()
        #expect(rig.player.steering.isEmpty)
    }
}
