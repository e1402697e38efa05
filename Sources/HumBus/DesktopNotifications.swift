import CSystemd
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Desktop notifications through org.freedesktop.Notifications on the session bus: one notification per player,
/// replaced in place (`replaces_id`) at every phase that runs out, with its buttons where the server draws buttons
/// (its capabilities say "actions"). Calls never wait: a slow notification server cannot stall the player.
final class DesktopNotifications {
    static let service = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    /// The icon name hum's notifications carry (the `hum` icon installed with its desktop entry, `hum.desktop`).
    static let icon = "hum"

    /// The hints of every notification of hum's: its desktop entry (`desktop-entry`: `hum`, so desktops group,
    /// theme and allow or mute them with hum's other notifications).
    static func appendHints(to message: BusMessage) throws(BusError) {
        try message.open("a", "{sv}")
        try message.entry("desktop-entry", "s") { v throws(BusError) in try v.append("hum") }
        try message.close()
    }

    private let connection: BusConnection
    /// A button was pressed on hum's notification.
    var onAction: ((FocusNotification.Key) -> Void)?
    /// The id the server gave hum's notification: the next one replaces it.
    private(set) var id: UInt32 = 0
    /// The server's capabilities, once it said them (nil until then, empty when there is no server).
    private(set) var capabilities: Set<String>?
    /// A Notify is on its way: a newer notification waits for its id, so it replaces instead of adding.
    private var inFlight = false
    private var waiting: FocusNotification?
    private var match: OpaquePointer?

    init(connection: BusConnection) throws(BusError) {
        self.connection = connection
        guard let bus = connection.bus else {
            throw BusError(bus: "session bus", call: "sd_bus_match_signal_async", code: ENOTCONN)
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        var slot: OpaquePointer?
        // Any sender: the server's unique name is not known yet; the id tells hum's notification apart.
        try check(
            "sd_bus_match_signal_async(ActionInvoked)", on: "session bus",
            sd_bus_match_signal_async(
                bus, &slot, nil, Self.path, Self.service, "ActionInvoked",
                { message, userdata, _ in
                    guard let message, let userdata else { return 0 }
                    Unmanaged<DesktopNotifications>.fromOpaque(userdata).takeUnretainedValue().invoked(
                        BusMessage(borrowing: message))
                    return 0
                }, nil, me))
        match = slot
        let ask = try connection.methodCall(
            destination: Self.service, path: Self.path, interface: Self.service, member: "GetCapabilities")
        try connection.call(ask) { [weak self] reply in
            guard let self else { return }
            self.capabilities = reply.error == nil ? Set((try? reply.readStrings()) ?? []) : []
        }
    }

    deinit { close() }

    /// Stops listening for buttons. A notification still waiting for the previous one's id is sent now, as it is:
    /// the last one of a session ("complete") must not be lost to the player's end.
    func close() {
        if let last = waiting {
            waiting = nil
            try? send(last)
        }
        if let match { sd_bus_slot_unref(match) }
        match = nil
    }

    /// Shows the notification, replacing hum's previous one.
    func show(_ notification: FocusNotification) {
        if inFlight {
            waiting = notification
            return
        }
        do {
            try send(notification)
        } catch {
            inFlight = false
        }
    }

    private func send(_ notification: FocusNotification) throws(BusError) {
        let message = try connection.methodCall(
            destination: Self.service, path: Self.path, interface: Self.service, member: "Notify")
        let caps = capabilities ?? []
        var summary = notification.summary
        var body = notification.body
        if !caps.contains("body"), !body.isEmpty {
            summary += " (\(body))"
            body = ""
        }
        try message.append("hum")  // app_name
        try message.append(id)  // replaces_id
        try message.append(DesktopNotifications.icon)  // app_icon: the theme's icon of hum's desktop entry
        try message.append(summary)
        try message.append(body)
        let actions = caps.contains("actions") ? notification.actions.flatMap { [$0.key.rawValue, $0.label] } : []
        try message.append(actions)
        try DesktopNotifications.appendHints(to: message)
        try message.append(Int32(-1))  // expire_timeout: the server's own
        inFlight = true
        try connection.call(message) { [weak self] reply in
            guard let self else { return }
            self.inFlight = false
            if reply.error == nil, let given = try? reply.readUInt32() { self.id = given }
            if let next = self.waiting {
                self.waiting = nil
                self.show(next)
            }
        }
    }

    /// ActionInvoked(id, key): a button of hum's notification.
    private func invoked(_ signal: BusMessage) {
        guard let which = try? signal.readUInt32(), which == id, id != 0, let key = try? signal.readString(),
            let action = FocusNotification.Key(rawValue: key)
        else { return }
        onAction?(action)
    }
}
