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

    func send(_ command: PlayerCommand) throws -> PlayerStatus {
        let status = try PlayerLink.send(command, to: client)
        let waiting = try client.readAvailable()
        if !waiting.isEmpty { onEvents(waiting) }
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
        screen.show(try PlayerLink.send(.subscribe, to: client))
        take(try client.readAvailable())
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
