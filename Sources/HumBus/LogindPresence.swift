import CSystemd
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the person is at the machine, from logind on the system bus: the session's `LockedHint` and `IdleHint`
/// properties (read at start and again at every `PropertiesChanged`), and its `Lock` and `Unlock` signals (a lock
/// asked of the screen locker counts as locked until `Unlock`, even before the locker sets the hint). The session
/// is `XDG_SESSION_ID`'s (`GetSession`), else logind's own `auto` (the caller's session). Everything happens on the
/// player's loop; without a system bus or logind, `onProblem` says so once and nothing else happens.
public final class LogindPresence: SessionPresence {
    public var onChange: ((SessionHints) -> Void)?
    public var onProblem: ((String) -> Void)?
    public var onWatching: ((String) -> Void)?
    private var toldWatching = false
    private let environment: [String: String]
    private let loop: any EventLoopProtocol
    private var connection: BusConnection?
    private var matches: [OpaquePointer] = []
    /// The session's object path, once known.
    public private(set) var path: String?
    /// The hints as last read, and the `Lock` signal's lock until `Unlock`.
    private var hints = SessionHints()
    private var lockSignalled = false
    private var told = false
    private var closed = false

    static let service = "org.freedesktop.login1"
    static let sessionInterface = "org.freedesktop.login1.Session"

    public init(environment: [String: String], loop: any EventLoopProtocol) {
        self.environment = environment
        self.loop = loop
    }

    deinit { close() }

    /// What is watched, for `--verbose`.
    public var description: String {
        guard let connection else { return "not watching the session" }
        return "watching the session \(path ?? "(being found)") on the system bus at \(connection.address)"
    }

    /// Connects and starts watching (never waits: the answers come on the loop).
    public func start() {
        do {
            let connection = try BusConnection(.system, environment: environment, loop: loop)
            self.connection = connection
            connection.onClosed = { [unowned self] error in
                self.connection = nil
                self.matches = []
                self.problem("the system bus went away (\(error.message))")
            }
            if let id = environment["XDG_SESSION_ID"], !id.isEmpty {
                let ask = try connection.methodCall(
                    destination: Self.service, path: "/org/freedesktop/login1", interface: Self.service + ".Manager",
                    member: "GetSession")
                try ask.append(id)
                try connection.call(ask) { [weak self] reply in
                    guard let self, !self.closed else { return }
                    if let error = reply.error {
                        self.problem("logind does not know the session \(id) (\(error.name): \(error.message))")
                        return
                    }
                    do {
                        let path = try reply.readObjectPath()
                        self.watch(path)
                    } catch {
                        self.problem((error as? BusError)?.message ?? "\(error)")
                    }
                }
            } else {
                watch("/org/freedesktop/login1/session/auto")
            }
        } catch {
            problem("no system bus (\(error.message))")
        }
    }

    private func watch(_ path: String) {
        guard let connection, let bus = connection.bus else { return }
        self.path = path
        let me = Unmanaged.passUnretained(self).toOpaque()
        do {
            for (interface, member) in [
                (Self.sessionInterface, "Lock"), (Self.sessionInterface, "Unlock"),
                ("org.freedesktop.DBus.Properties", "PropertiesChanged"),
            ] {
                var slot: OpaquePointer?
                try check(
                    "sd_bus_match_signal_async(\(member))", on: "system bus",
                    sd_bus_match_signal_async(
                        // Any sender (matched by the bus daemon and sd-bus alike): the path is logind's session.
                        bus, &slot, nil, path, interface, member,
                        { message, userdata, _ in
                            guard let message, let userdata else { return 0 }
                            Unmanaged<LogindPresence>.fromOpaque(userdata).takeUnretainedValue().signalled(
                                BusMessage(borrowing: message))
                            return 0
                        }, nil, me))
                if let slot { matches.append(slot) }
            }
            connection.reschedule()
            readHints()
        } catch {
            problem(error.message)
        }
    }

    private func signalled(_ message: BusMessage) {
        guard !closed else { return }
        switch message.member {
        case "Lock":
            lockSignalled = true
            update()
        case "Unlock":
            lockSignalled = false
            hints.locked = false
            update()
        default:
            readHints()
        }
    }

    /// Reads LockedHint and IdleHint again; the change is told when both have answered.
    private func readHints() {
        var answers: [String: Bool] = [:]
        for name in ["LockedHint", "IdleHint"] {
            guard let connection, let path else { return }
            do {
                let ask = try connection.methodCall(
                    destination: Self.service, path: path, interface: "org.freedesktop.DBus.Properties",
                    member: "Get")
                try ask.append(Self.sessionInterface)
                try ask.append(name)
                try connection.call(ask) { [weak self] reply in
                    guard let self, !self.closed else { return }
                    if let error = reply.error {
                        self.problem("logind does not answer for the session (\(error.name): \(error.message))")
                        return
                    }
                    answers[name] = Self.readVariantBool(reply)
                    guard let locked = answers["LockedHint"], let idle = answers["IdleHint"] else { return }
                    // The locker let go of the lock: the signal's lock ends with it.
                    if self.hints.locked && !locked { self.lockSignalled = false }
                    self.hints = SessionHints(locked: locked, idle: idle)
                    if !self.toldWatching, let connection = self.connection {
                        // The matches went out before these calls, on the same connection: they are in place.
                        self.toldWatching = true
                        self.onWatching?("the session \(path) of logind on the system bus at \(connection.address)")
                    }
                    self.update()
                }
            } catch {
                problem(error.message)
                return
            }
        }
    }

    /// A `v` holding a `b`; false when it holds anything else.
    static func readVariantBool(_ message: BusMessage) -> Bool {
        guard sd_bus_message_enter_container(message.handle, CChar(UInt8(ascii: "v")), "b") > 0 else { return false }
        var value: Int32 = 0
        let read = sd_bus_message_read_basic(message.handle, CChar(UInt8(ascii: "b")), &value)
        _ = sd_bus_message_exit_container(message.handle)
        return read > 0 && value != 0
    }

    /// Whether the session was last told away (at first: here).
    private var lastAway = false

    private func update() {
        var now = hints
        now.locked = now.locked || lockSignalled
        guard now.away != lastAway else { return }
        lastAway = now.away
        onChange?(now)
    }

    private func problem(_ text: String) {
        guard !told else { return }
        told = true
        onProblem?(text)
    }

    public func close() {
        closed = true
        for slot in matches { sd_bus_slot_unref(slot) }
        matches = []
        connection?.close()
        connection = nil
    }
}
