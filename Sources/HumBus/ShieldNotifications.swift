import CSystemd
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The shields' notices and the nudges through org.freedesktop.Notifications (docs/shields.md, "Notifications";
/// docs/rules.md, "Nudges"): one notification per shield and one for the nudge, each replaced in place by the next
/// of its own (`replaces_id`), with their buttons where the server draws buttons ("Spend 15 min" and "Emergency
/// 5 min"; "Productive" and "Distracting"). ActionInvoked for one of these ids becomes `onAction` or `onVerdict`;
/// NotificationClosed forgets the id. Everything is asynchronous, on the player's loop: a slow server never stalls
/// the guard.
final class ShieldNotifications: ShieldNotifier, NudgeNotifier {
    /// Which notification: a shield's, or the nudge.
    enum Slot: Hashable {
        case shield(String)
        case nudge
    }

    /// One notification to send: its slot, its text and its buttons (key, label).
    struct Outgoing {
        var slot: Slot
        var summary: String
        var body: String
        var actions: [(key: String, label: String)]
    }

    private let connection: BusConnection
    /// The server's capabilities, once it said them (nil until then, empty when there is no server). Notices wait
    /// for them: whether to send buttons depends on them.
    private var capabilities: Set<String>?
    private var early: [Outgoing] = []
    var onAction: ((String, ShieldNotice.Action) -> Void)?
    var onVerdict: ((HourVerdict) -> Void)?
    /// The id the server gave each notification.
    private(set) var ids: [Slot: UInt32] = [:]
    /// Slots whose Notify is on its way, and the notice that waits for its id to replace it.
    private var inFlight: Set<Slot> = []
    private var waiting: [Slot: Outgoing] = [:]
    private var matches: [OpaquePointer] = []

    init(connection: BusConnection) throws(BusError) {
        self.connection = connection
        guard let bus = connection.bus else {
            throw BusError(bus: "session bus", call: "sd_bus_match_signal_async", code: ENOTCONN)
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        for member in ["ActionInvoked", "NotificationClosed"] {
            var slot: OpaquePointer?
            try check(
                "sd_bus_match_signal_async(\(member))", on: "session bus",
                sd_bus_match_signal_async(
                    bus, &slot, nil, DesktopNotifications.path, DesktopNotifications.service, member,
                    { message, userdata, _ in
                        guard let message, let userdata else { return 0 }
                        Unmanaged<ShieldNotifications>.fromOpaque(userdata).takeUnretainedValue().signalled(
                            BusMessage(borrowing: message))
                        return 0
                    }, nil, me))
            if let slot { matches.append(slot) }
        }
        let ask = try connection.methodCall(
            destination: DesktopNotifications.service, path: DesktopNotifications.path,
            interface: DesktopNotifications.service, member: "GetCapabilities")
        try connection.call(ask) { [weak self] reply in
            guard let self else { return }
            self.capabilities = reply.error == nil ? Set((try? reply.readStrings()) ?? []) : []
            let notices = self.early
            self.early = []
            for notice in notices { self.show(notice) }
        }
    }

    deinit { close() }

    /// Stops listening; nothing is shown from now on.
    func close() {
        for slot in matches { sd_bus_slot_unref(slot) }
        matches = []
        waiting = [:]
        early = []
    }

    func show(_ notice: ShieldNotice) {
        show(
            Outgoing(
                slot: .shield(notice.shield), summary: notice.summary, body: notice.body,
                actions: notice.actions.map { ($0.rawValue, $0.label) }))
    }

    func show(_ nudge: NudgeNotice) {
        show(
            Outgoing(
                slot: .nudge, summary: nudge.summary, body: nudge.body,
                actions: nudge.actions.map { ($0.rawValue, $0.label) }))
    }

    private func show(_ notice: Outgoing) {
        guard !matches.isEmpty else { return }
        guard capabilities != nil else {
            early.removeAll { $0.slot == notice.slot }
            early.append(notice)
            return
        }
        if inFlight.contains(notice.slot) {
            waiting[notice.slot] = notice
            return
        }
        do {
            try send(notice)
        } catch {
            inFlight.remove(notice.slot)
        }
    }

    private func send(_ notice: Outgoing) throws(BusError) {
        let message = try connection.methodCall(
            destination: DesktopNotifications.service, path: DesktopNotifications.path,
            interface: DesktopNotifications.service, member: "Notify")
        let caps = capabilities ?? []
        var summary = notice.summary
        var body = notice.body
        if !caps.contains("body"), !body.isEmpty {
            summary += " · \(body)"
            body = ""
        }
        try message.append("hum")  // app_name
        try message.append(ids[notice.slot] ?? 0)  // replaces_id
        try message.append(DesktopNotifications.icon)  // app_icon: the theme's icon of hum's desktop entry
        try message.append(summary)
        try message.append(body)
        try message.append(caps.contains("actions") ? notice.actions.flatMap { [$0.key, $0.label] } : [])
        try DesktopNotifications.appendHints(to: message)
        try message.append(Int32(-1))  // expire_timeout: the server's own
        let slot = notice.slot
        inFlight.insert(slot)
        try connection.call(message) { [weak self] reply in
            guard let self else { return }
            self.inFlight.remove(slot)
            if reply.error == nil, let given = try? reply.readUInt32() { self.ids[slot] = given }
            if let next = self.waiting.removeValue(forKey: slot) { self.show(next) }
        }
    }

    /// ActionInvoked(id, key) or NotificationClosed(id, reason) of one of these notifications.
    private func signalled(_ signal: BusMessage) {
        guard let id = try? signal.readUInt32(), id != 0, let slot = ids.first(where: { $0.value == id })?.key
        else { return }
        if signal.member == "NotificationClosed" {
            ids[slot] = nil
            return
        }
        guard let key = try? signal.readString() else { return }
        switch slot {
        case .shield(let shield):
            guard let action = ShieldNotice.Action(rawValue: key) else { return }
            onAction?(shield, action)
        case .nudge:
            guard let verdict = HourVerdict(rawValue: key) else { return }
            onVerdict?(verdict)
        }
    }
}
