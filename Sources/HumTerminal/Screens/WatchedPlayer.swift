import HumCore

/// A player of another process that a screen watches: requests go through `PlayerHandle`, and the player's events
/// (every change, from any client) come on a descriptor the screen's loop watches. HumCLI's `RemotePlayer` is the
/// real one, over the control socket; a test's records the requests and writes events to a pipe.
public protocol WatchedPlayer: PlayerHandle {
    /// Readable when the player has said something, or has gone.
    var eventsFD: Int32 { get }
    /// Takes the events that arrived while a request waited for its reply, before `send` returns.
    var onEvents: ([ControlEvent]) -> Void { get set }
    /// The events waiting, read without blocking; throws once the player has gone.
    func readEvents() throws -> [ControlEvent]
}
