import HumCore

extension Player {
    /// Calls `body` after every change, with the status after it and what changed, on the loop's thread (after the
    /// views): how an adapter outside HumPlayer follows the player (`hum daemon` telling systemd what it plays).
    public func watch(_ body: @escaping (PlayerStatus, [ControlEvent.Subsystem]) -> Void) {
        watchers.append(body)
    }
}
