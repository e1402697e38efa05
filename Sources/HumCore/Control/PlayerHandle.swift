/// What a screen steers: the player of this process, or one reached through the control socket. Either way a
/// request goes in and the status after it comes back, or the player's error.
public protocol PlayerHandle: AnyObject {
    func send(_ command: PlayerCommand) throws -> PlayerStatus
}
