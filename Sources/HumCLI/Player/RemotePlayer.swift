import HumControl
import HumCore
import HumTerminal

/// A player of another process, steered through the control socket; the screens watch it as a `WatchedPlayer`.
final class RemotePlayer: WatchedPlayer {
    let client: ControlClient
    /// Events that arrived while waiting for a reply, for the screen.
    var onEvents: ([ControlEvent]) -> Void = { _ in }

    init(client: ControlClient) { self.client = client }

    var eventsFD: Int32 { client.fd }

    /// Sends a command; returns the newest status known once its reply came. Events older than the reply go to
    /// `onEvents` first; those that came with or after it (a sound that finished loading) are newer than the
    /// reply's status, so they go to `onEvents` too and the last of them is returned: the caller, which shows what
    /// this returns, never puts an older status over a newer one.
    func send(_ command: PlayerCommand) throws -> PlayerStatus {
        let (earlier, reply) = try client.exchange(command)
        let before = Self.events(earlier)
        if !before.isEmpty { onEvents(before) }
        let later = try client.readAvailable()
        let after = Self.events(later)
        if !after.isEmpty { onEvents(after) }
        var status = try PlayerLink.status(of: reply)
        if let newest = after.last { status = newest.status }
        return status
    }

    func readEvents() throws -> [ControlEvent] { Self.events(try client.readAvailable()) }

    private static func events(_ messages: [ServerMessage]) -> [ControlEvent] {
        messages.compactMap {
            if case .event(let event) = $0 { return event }
            return nil
        }
    }
}
