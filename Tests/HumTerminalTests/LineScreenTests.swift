import HumCore
import HumTerminal
import HumTestSupport
import Testing

/// The one-line screen's controller in process: keys through a pipe, time on the manual loop, the player a
/// recording double. No terminal, no sleep.
@Suite struct LineScreenTests {
    final class Rig {
        let loop = ManualEventLoop()
        let terminal = PipeTerminal()
        let player: RecordingPlayer
        var quits = 0
        var screen: LineScreen!

        init(_ status: PlayerStatus = screenStatus()) throws {
            player = RecordingPlayer(status)
            screen = try LineScreen(loop: loop, terminal: terminal, color: false, player: player) { [unowned self] in
                self.quits += 1
            }
            screen.show(status)
        }

        func type(_ text: String) {
            terminal.keys.send(text)
            loop.runPending()
        }
    }

    @Test func keysBecomeTheirRequests() throws {
        let rig = try Rig()
        #expect(rig.terminal.raw)
        rig.type(" ")
        #expect(rig.player.steering == [.toggle])
        rig.type("\u{1B}[C")  // → on the first sound: rain 40 → 45
        rig.type("\u{1B}[B\u{1B}[D")  // ↓ to brown, ← : 25 → 20
        rig.type("+")
        rig.type("7m")
        #expect(
            rig.player.steering == [
                .toggle, .volume(sound: "rain", volume: 45), .volume(sound: "brown", volume: 20), .master(volume: 85),
                .volume(sound: "brown", volume: 70), .mute(sound: "brown", muted: nil),
            ])
        // What the player answered is drawn: the master it set.
        #expect(rig.terminal.lines.last?.contains("master 85") == true)
        #expect(rig.quits == 0)
    }

    /// `q` runs what the command said leaving means (a player started for this screen stops), and asks the player
    /// nothing itself.
    @Test func quitRunsTheCallersLeaving() throws {
        let rig = try Rig()
        rig.type("q")
        #expect(rig.quits == 1)
        rig.type("\u{03}")  // Ctrl-C as a byte (raw mode without ISIG never sends it, but the key map knows it)
        #expect(rig.quits == 2)
        #expect(rig.player.steering.isEmpty)
        rig.screen.close()
        #expect(!rig.terminal.raw)
    }

    /// `?` prints the keys above the line and draws the line again under them.
    @Test func questionMarkPrintsTheKeys() throws {
        let rig = try Rig()
        let drawn = rig.terminal.lines.count
        rig.type("?")
        #expect(rig.terminal.written == [PlayerLine.keysHelp + "\n"])
        #expect(rig.terminal.lines.count == drawn + 1)
        #expect(rig.player.commands.isEmpty)
    }

    @Test func theClockMovesOnEachSecondWithoutAChange() throws {
        let rig = try Rig(screenStatus(focus: runningFocus()))
        #expect(rig.terminal.lines.last?.contains("12:04") == true)
        rig.loop.advance(by: 1)
        #expect(rig.terminal.lines.last?.contains("12:03") == true)
        rig.loop.advance(by: 60)
        #expect(rig.terminal.lines.last?.contains("11:03") == true)
        #expect(rig.player.commands.isEmpty)  // redrawn from what it had, not asked again
    }

    /// An arrow key's bytes split across reads still make the arrow; a lone ESC left alone past its timeout is
    /// the Escape key, and what comes after it is no longer part of a sequence.
    @Test func aLoneEscapeEndsAfterItsTimeout() throws {
        let rig = try Rig()
        rig.type("\u{1B}")
        rig.loop.advance(by: LineScreen.escapeSeconds / 2)
        rig.type("[C")
        #expect(rig.player.steering == [.volume(sound: "rain", volume: 45)])

        rig.type("\u{1B}")
        rig.loop.advance(by: LineScreen.escapeSeconds * 2)
        rig.type("[C")  // '[' and 'C' on their own: nothing
        rig.type("+")
        #expect(rig.player.steering == [.volume(sound: "rain", volume: 45), .master(volume: 85)])
    }

    @Test func aRefusalIsPrintedAndTheLineComesBack() throws {
        final class Refusing: PlayerHandle {
            struct No: UserFacingError { var message: String { "no such sound" } }
            func send(_ command: PlayerCommand) throws -> PlayerStatus { throw No() }
        }
        let loop = ManualEventLoop()
        let terminal = PipeTerminal()
        let player = Refusing()
        let screen = try LineScreen(loop: loop, terminal: terminal, color: false, player: player) {}
        screen.show(screenStatus())
        terminal.keys.send(" ")
        loop.runPending()
        #expect(terminal.written.contains("hum: no such sound\n"))
        #expect(terminal.lines.count == 2)  // drawn again after the message
        screen.close()
    }

    /// The terminal hanging up ends the keys: the screen stops watching it rather than spinning on it.
    @Test func aHangUpStopsTheKeys() throws {
        let rig = try Rig()
        rig.terminal.keys.hangUp()
        #expect(rig.loop.runPending() == 1)
        #expect(rig.loop.runPending() == 0)
    }
}
