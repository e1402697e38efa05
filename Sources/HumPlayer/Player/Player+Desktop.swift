import HumBus
import HumCore

/// The player on the desktop: the one place the session-bus adapter (HumBus) is attached. It reaches the player
/// only through its status and its interpreter, and hears of every change as a watcher.
extension Player {
    /// Publishes the player on the session bus (MPRIS), readies its notification and the sleep inhibitor. Without
    /// a session bus the player plays on; `--verbose` says so (`describeDesktop`).
    func attachDesktop() {
        let desktop = DesktopBus(
            environment: environment.variables, loop: loop,
            player: DesktopPlayer(
                status: { [unowned self] in
                    try? self.focus?.input(.tick)  // the focus clock, moved on to now: Position is read on demand
                    return self.status
                },
                handle: { [unowned self] in try self.handle($0) }),
            warn: { [unowned self] in self.environment.warn($0) })
        self.desktop = desktop
        shieldNotices?.notifier = desktop.shieldNotifier
        nudges?.notifier = desktop.nudgeNotifier
        watchers.append { [unowned self] status, _ in desktop.changed(status, keepAwake: self.keepsAwake(status)) }
    }

    /// Whether the machine is kept awake now: a focus round of rounds started with `--inhibit` runs (not paused,
    /// not waiting, not a break, the player not stopping).
    func keepsAwake(_ status: PlayerStatus) -> Bool {
        guard focus?.request.inhibit == true, status.state == .playing, let round = status.focus else { return false }
        return round.phase == .focus && !round.paused && !round.waiting
    }

    /// Shows (or replaces) the session's desktop notification.
    func notifyDesktop(_ notification: FocusNotification) {
        lastNotification = notification
        desktop?.notify(notification)
    }

    /// `--verbose`: whether the desktop can reach the player, and later what the bus said.
    func describeDesktop() {
        guard let desktop else { return }
        environment.stderr.write("hum: desktop: \(desktop.description)\n")
        desktop.say = { [unowned self] in self.environment.stderr.write("hum: desktop: \($0)\n") }
    }
}
