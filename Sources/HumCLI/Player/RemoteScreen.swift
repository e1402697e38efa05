import HumControl
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A player of another process, steered through the control socket.
final class RemotePlayer: PlayerHandle {
    let client: ControlClient
    /// Events that arrived while waiting for a reply, for the screen.
    var onEvents: ([ServerMessage]) -> Void = { _ in }

    init(client: ControlClient) { self.client = client }

    /// Sends a command; returns the newest status known once its reply came. Events older than the reply go to
    /// `onEvents` first; those that came with or after it (a sound that finished loading) are newer than the
    /// reply's status, so they go to `onEvents` too and the last of them is returned: the caller, which shows what
    /// this returns, never puts an older status over a newer one.
    func send(_ command: PlayerCommand) throws -> PlayerStatus {
        let (earlier, reply) = try client.exchange(command)
        if !earlier.isEmpty { onEvents(earlier) }
        let later = try client.readAvailable()
        if !later.isEmpty { onEvents(later) }
        var status = try PlayerLink.status(of: reply)
        for case .event(let event) in later { status = event.status }
        return status
    }
}

/// The live screen of a second hum on a terminal, attached to the running player: the same line, the same keys;
/// `q` leaves the screen and the player plays on.
enum RemoteScreen {
    static func attach(_ client: ControlClient, context: CommandContext) throws -> Int32 {
        let loop = EventLoop()
        try loop.signals([SIGINT, SIGTERM, SIGHUP, SIGWINCH]) { signal in
            if signal != SIGWINCH { loop.stop() }
        }
        let remote = RemotePlayer(client: client)
        let screen = try LineScreen(loop: loop, color: context.useColor, player: remote) { loop.stop() }
        defer { screen.close() }
        func take(_ messages: [ServerMessage]) {
            for message in messages {
                if case .event(let event) = message { screen.show(event.status) }
            }
        }
        remote.onEvents = take
        screen.show(try remote.send(.subscribe))
        var ended = false
        loop.watch(client.fd) { _ in
            do {
                take(try client.readAvailable())
            } catch {
                ended = true  // the player ended
                loop.stop()
            }
        }
        loop.run()
        if ended {
            screen.interrupt()
            context.stdout.write("the player has stopped\n")
        }
        return ExitCode.success
    }
}
