import HumCore

/// How the desktop adapter reaches the player: its status (fresh: the focus clock moved on to now) and its one
/// interpreter. Closures, so the adapter knows nothing of the player's type.
public struct DesktopPlayer {
    public var status: () -> PlayerStatus
    public var handle: (PlayerCommand) throws -> Void

    public init(status: @escaping () -> PlayerStatus, handle: @escaping (PlayerCommand) throws -> Void) {
        self.status = status
        self.handle = handle
    }
}
