import HumCore
import HumTerminal
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one-line screen of a second hum, attached to a player of another process (a recording double here).
@Suite struct RemoteScreenTests {
    @Test func itSubscribesShowsEventsAndLeavesThePlayerPlaying() throws {
        let loop = ManualEventLoop()
        let terminal = PipeTerminal()
        let player = RecordingPlayer(screenStatus())
        let screen = try RemoteScreen(loop: loop, player: player, terminal: terminal, color: false)
        #expect(player.commands == [.subscribe])
        var changed = screenStatus()
        changed.mix.master = 30
        player.post(changed, what: [.mix])
        loop.runPending()
        #expect(terminal.lines.last?.contains("master 30") == true)
        terminal.keys.send("q")
        loop.runPending()
        #expect(loop.stopped)
        screen.close()
        #expect(player.steering.isEmpty)  // q leaves; the player plays on
        #expect(!screen.playerEnded)
        #expect(!terminal.raw)
    }

    @Test func thePlayerEndingEndsTheScreen() throws {
        let loop = ManualEventLoop()
        let player = RecordingPlayer(screenStatus())
        let screen = try RemoteScreen(loop: loop, player: player, terminal: PipeTerminal(), color: false)
        player.end()
        loop.runPending()
        #expect(loop.stopped)
        screen.close()
        #expect(screen.playerEnded)
    }

    @Test func aSignalEndsTheScreenButAResizeDoesNot() throws {
        let loop = ManualEventLoop()
        let screen = try RemoteScreen(
            loop: loop, player: RecordingPlayer(screenStatus()), terminal: PipeTerminal(), color: false)
        #expect(loop.deliver(signal: SIGWINCH))
        #expect(!loop.stopped)
        #expect(loop.deliver(signal: SIGHUP))
        #expect(loop.stopped)
        screen.close()
    }
}
