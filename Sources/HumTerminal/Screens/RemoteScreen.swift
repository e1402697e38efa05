import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The live screen of a second hum on a terminal, attached to the running player: the same line, the same keys;
/// `q` leaves the screen and the player plays on. The caller runs the loop between `init` and `close()`.
public final class RemoteScreen {
    private let line: LineScreen
    private let player: any WatchedPlayer
    private unowned let loop: any EventLoopProtocol
    private var events: LoopToken?
    /// The player ended while the screen was up (its connection closed).
    public private(set) var playerEnded = false

    /// Takes the signals that end the screen, subscribes to the player's events and shows its status.
    public init(loop: any EventLoopProtocol, player: any WatchedPlayer, terminal: any LineTerminal, color: Bool) throws
    {
        self.loop = loop
        self.player = player
        try loop.takeSignals([SIGINT, SIGTERM, SIGHUP, SIGWINCH]) { [unowned loop] signal in
            if signal != SIGWINCH { loop.stop() }
        }
        let line = try LineScreen(loop: loop, terminal: terminal, color: color, player: player) { [unowned loop] in
            loop.stop()
        }
        self.line = line
        player.onEvents = { [unowned line] events in
            for event in events { line.show(event.status) }
        }
        do {
            line.show(try player.send(.subscribe))
        } catch {
            line.close()
            throw error
        }
        events = loop.watch(player.eventsFD) { [unowned self] _ in
            do {
                for event in try self.player.readEvents() { self.line.show(event.status) }
            } catch {
                self.playerEnded = true
                self.loop.stop()
            }
        }
    }

    /// Gives the terminal back; the line is cleared first when the player ended, so the caller can say so.
    public func close() {
        if let events { loop.remove(events) }
        events = nil
        if playerEnded { line.interrupt() }
        line.close()
    }
}
