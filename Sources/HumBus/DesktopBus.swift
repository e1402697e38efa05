import HumCore
import HumSystem

/// The desktop's own controls for one player, on the player's event loop: hum as an MPRIS player on the session
/// bus (media keys, panels, `playerctl`), its desktop notification, and logind's sleep inhibitor on the system bus.
/// Without a session bus (ssh, a container, CI) there is no MPRIS and no notification, and the player plays on:
/// `problem` says why, for `--verbose`.
public final class DesktopBus {
    private let player: DesktopPlayer
    private var session: BusConnection?
    private var mpris: MediaPlayerService?
    private var notifications: DesktopNotifications?
    private var shieldNotifications: ShieldNotifications?
    private let inhibitor: SleepInhibitor
    /// Why there is no session bus (or why it went away).
    public private(set) var problem: String?
    /// Lines for `--verbose` (the name owned, the bus going away); set when the player is verbose.
    public var say: ((String) -> Void)? {
        didSet { if let note = pendingNote, let say { say(note) } }
    }
    private var pendingNote: String?

    /// Connects to the session bus of `environment` and publishes the player; never fails: what could not be done
    /// is kept in `problem`. `warn` is for what the user asked and cannot have (the sleep inhibitor).
    public init(
        environment: [String: String], loop: any EventLoopProtocol, player: DesktopPlayer,
        warn: @escaping (String) -> Void
    ) {
        self.player = player
        inhibitor = SleepInhibitor(environment: environment, loop: loop)
        inhibitor.onProblem = warn
        do {
            let session = try BusConnection(.session, environment: environment, loop: loop)
            self.session = session
            session.onClosed = { [unowned self] error in
                self.mpris?.close()
                self.mpris = nil
                self.notifications?.close()
                self.notifications = nil
                self.shieldNotifications?.close()
                self.shieldNotifications = nil
                self.session = nil
                self.problem = "the session bus went away (\(error.message))"
                self.note("the session bus went away; no media keys or notifications from now on")
            }
            let mpris = try MediaPlayerService(connection: session, player: player)
            mpris.onName = { [unowned self] result in
                switch result {
                case .success(let name): self.note("on the session bus as \(name) (MPRIS: media keys, playerctl)")
                case .failure(let error): self.note("no MPRIS name: \(error.message)")
                }
            }
            self.mpris = mpris
            let notifications = try DesktopNotifications(connection: session)
            notifications.onAction = { key in try? player.handle(key.command) }
            self.notifications = notifications
            shieldNotifications = try ShieldNotifications(connection: session)
        } catch {
            mpris?.close()
            mpris = nil
            notifications = nil
            shieldNotifications?.close()
            shieldNotifications = nil
            session?.close()
            session = nil
            problem = error.message
        }
    }

    deinit { close() }

    /// What `--verbose` says about the desktop.
    public var description: String {
        if let problem { return "no desktop controls (\(problem)); media keys, MPRIS and notifications are off" }
        return "session bus at \(session?.address ?? "?")"
    }

    /// The name hum owns on the session bus, once it does.
    public var name: String? { mpris?.name }

    private func note(_ text: String) {
        if let say { say(text) } else { pendingNote = text }
    }

    /// The player changed: MPRIS announces it; the sleep lock is held while `keepAwake`.
    public func changed(_ status: PlayerStatus, keepAwake: Bool) {
        mpris?.update(status)
        inhibitor.hold(keepAwake)
    }

    /// Shows (or replaces) the player's desktop notification.
    public func notify(_ notification: FocusNotification) {
        notifications?.show(notification)
    }

    /// Where the shields' notices go (docs/shields.md, "Notifications"); nil without a session bus.
    public var shieldNotifier: (any ShieldNotifier)? { shieldNotifications }

    /// Where the nudges go (docs/rules.md, "Nudges"): the same sender as the shields' notices; nil without a
    /// session bus.
    public var nudgeNotifier: (any NudgeNotifier)? { shieldNotifications }

    /// Whether the sleep lock is held now.
    public var keepsAwake: Bool { inhibitor.isHeld }

    /// Lets everything go: the lock, the name, the connections. Asked from inside a bus callback (a Stop), it
    /// happens once sd-bus has returned from it.
    public func close() {
        if let session, session.dispatching {
            session.whenIdle { [weak self] in self?.close() }
            return
        }
        inhibitor.close()
        mpris?.close()
        mpris = nil
        notifications?.close()
        notifications = nil
        shieldNotifications?.close()
        shieldNotifications = nil
        session?.close()
        session = nil
    }
}
