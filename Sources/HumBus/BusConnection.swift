import CSystemd
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to a D-Bus bus through sd-bus, served by the player's event loop: its descriptor is watched for
/// what sd-bus asks (`sd_bus_get_events`) and its next deadline (`sd_bus_get_timeout`, a pending call's timeout)
/// is a timer of the loop, so nothing runs between messages. Everything happens on the loop's thread.
public final class BusConnection {
    public enum Kind: Sendable {
        /// The user's session bus: MPRIS, notifications.
        case session
        /// The system bus: logind.
        case system

        var name: String { self == .session ? "session bus" : "system bus" }
    }

    public let kind: Kind
    /// Where it connected, for people (`--verbose`).
    public let address: String
    /// The sd-bus handle; nil once closed.
    private(set) var bus: OpaquePointer?
    private let loop: any EventLoopProtocol
    private var token: LoopToken?
    private var timer: (any LoopTimer)?
    /// Told once when the connection breaks (the bus went away); it is closed by then.
    public var onClosed: ((BusError) -> Void)?

    /// The address a hum with this environment connects to, as libsystemd's own clients find it:
    /// DBUS_SESSION_BUS_ADDRESS, else `$XDG_RUNTIME_DIR/bus`; DBUS_SYSTEM_BUS_ADDRESS, else the standard socket.
    /// Nil when the environment names no session bus at all.
    public static func address(of kind: Kind, environment: [String: String]) -> String? {
        switch kind {
        case .session:
            if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
            if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
                return "unix:path=\(runtime)/bus"
            }
            return nil
        case .system:
            if let address = environment["DBUS_SYSTEM_BUS_ADDRESS"], !address.isEmpty { return address }
            return "unix:path=/run/dbus/system_bus_socket"
        }
    }

    /// Connects (the socket at once; the greeting and authentication go on in the loop) and joins the loop.
    public init(_ kind: Kind, environment: [String: String], loop: any EventLoopProtocol) throws(BusError) {
        self.kind = kind
        self.loop = loop
        guard let address = BusConnection.address(of: kind, environment: environment) else {
            throw BusError(
                bus: kind.name, call: "finding its address (no DBUS_SESSION_BUS_ADDRESS, no XDG_RUNTIME_DIR)",
                code: ENOENT)
        }
        self.address = address
        var handle: OpaquePointer?
        try check("sd_bus_new", on: kind.name, sd_bus_new(&handle))
        guard let handle else { throw BusError(bus: kind.name, call: "sd_bus_new", code: ENOMEM) }
        do {
            try check("sd_bus_set_address", on: kind.name, address.withCString { sd_bus_set_address(handle, $0) })
            try check("sd_bus_set_bus_client", on: kind.name, sd_bus_set_bus_client(handle, 1))
            // The user's own session bus carries no per-method access control (as sd_bus_open_user sets it).
            if kind == .session { try check("sd_bus_set_trusted", on: kind.name, sd_bus_set_trusted(handle, 1)) }
            // logind's lock arrives as a file descriptor.
            try check("sd_bus_negotiate_fds", on: kind.name, sd_bus_negotiate_fds(handle, 1))
            try check("sd_bus_set_description", on: kind.name, sd_bus_set_description(handle, "hum"))
            try check("sd_bus_start", on: kind.name, sd_bus_start(handle))
        } catch {
            sd_bus_unref(handle)
            throw error
        }
        bus = handle
        let fd = sd_bus_get_fd(handle)
        guard fd >= 0 else {
            sd_bus_close_unref(handle)
            bus = nil
            throw BusError(bus: kind.name, call: "sd_bus_get_fd", code: -fd)
        }
        do {
            timer = try loop.makeTimer { [unowned self] in self.dispatch() }
        } catch {
            sd_bus_close_unref(handle)
            bus = nil
            throw BusError(bus: kind.name, call: error.call, code: error.code)
        }
        token = loop.watch(fd, events: Int16(POLLOUT)) { [unowned self] _ in self.dispatch() }
        reschedule()
    }

    deinit { close() }

    public var isOpen: Bool { bus != nil }

    /// Runs everything sd-bus has to do (reading, writing, the callbacks of what arrived) until it is idle, then
    /// waits again for what it needs next.
    func dispatch() {
        dispatching = true
        while let bus {
            let r = sd_bus_process(bus, nil)
            if r < 0 {
                dispatching = false
                lost(BusError(bus: kind.name, call: "sd_bus_process", code: -r))
                return
            }
            if r == 0 { break }
        }
        dispatching = false
        if let work = afterDispatch {
            afterDispatch = nil
            work()
        }
        reschedule()
    }

    /// True while sd-bus runs a callback of this connection: the connection and the objects it calls into must not
    /// be freed under it.
    public private(set) var dispatching = false
    private var afterDispatch: (() -> Void)?

    /// Runs `work` now, or, from inside one of this connection's callbacks, as soon as sd-bus has returned (a Stop
    /// that ends the player closes the bus only after its reply is on its way).
    public func whenIdle(_ work: @escaping () -> Void) {
        guard dispatching else {
            work()
            return
        }
        let earlier = afterDispatch
        afterDispatch = {
            earlier?()
            work()
        }
    }

    /// Sets the descriptor's events and the timer from what sd-bus wants now. Call it after queueing a message
    /// outside `dispatch` (a signal, a call), so a write that could not finish at once waits for POLLOUT.
    func reschedule() {
        guard let bus, let token else { return }
        guard sd_bus_is_open(bus) > 0 else {
            lost(BusError(bus: kind.name, call: "sd_bus_is_open", code: ECONNRESET))
            return
        }
        let events = sd_bus_get_events(bus)
        guard events >= 0 else {
            lost(BusError(bus: kind.name, call: "sd_bus_get_events", code: -events))
            return
        }
        loop.update(token, events: Int16(events))
        var deadline: UInt64 = 0
        guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != UInt64.max else {
            timer?.disarm()
            return
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowMicroseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        timer?.arm(after: deadline > nowMicroseconds ? Double(deadline - nowMicroseconds) / 1e6 : 0)
    }

    private func lost(_ error: BusError) {
        close()
        let told = onClosed
        onClosed = nil
        told?(error)
    }

    /// Leaves the loop and closes the connection (nothing is flushed: a stuck bus must not hold hum).
    public func close() {
        if let token { loop.remove(token) }
        token = nil
        timer = nil
        if let bus { sd_bus_close_unref(bus) }
        bus = nil
    }

    // MARK: Calls

    /// Sends a method call; `reply` runs on the loop with the answer, an error reply, or a "no reply" error when
    /// the bus goes away first. Never waits.
    func call(_ message: BusMessage, timeoutMicroseconds: UInt64 = 0, reply: @escaping (BusMessage) -> Void)
        throws(BusError)
    {
        guard let bus else { throw BusError(bus: kind.name, call: "sd_bus_call_async", code: ENOTCONN) }
        let box = Unmanaged.passRetained(ReplyHandler(reply)).toOpaque()
        var slot: OpaquePointer?
        let r = sd_bus_call_async(
            bus, &slot, message.handle,
            { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                Unmanaged<ReplyHandler>.fromOpaque(userdata).takeUnretainedValue().run(BusMessage(borrowing: message))
                return 1
            }, box, timeoutMicroseconds)
        guard r >= 0, let slot else {
            Unmanaged<ReplyHandler>.fromOpaque(box).release()
            throw BusError(bus: kind.name, call: "sd_bus_call_async", code: r < 0 ? -r : ENOMEM)
        }
        // The bus keeps the slot until the reply has run; the handler is released with it.
        sd_bus_slot_set_destroy_callback(slot) { userdata in
            if let userdata { Unmanaged<ReplyHandler>.fromOpaque(userdata).release() }
        }
        sd_bus_slot_set_floating(slot, 1)
        sd_bus_slot_unref(slot)
        reschedule()
    }

    /// A new method call to fill and send with `call`.
    func methodCall(destination: String, path: String, interface: String, member: String) throws(BusError)
        -> BusMessage
    {
        guard let bus else { throw BusError(bus: kind.name, call: "sd_bus_message_new_method_call", code: ENOTCONN) }
        var message: OpaquePointer?
        try check(
            "sd_bus_message_new_method_call", on: kind.name,
            sd_bus_message_new_method_call(bus, &message, destination, path, interface, member))
        guard let message else { throw BusError(bus: kind.name, call: "sd_bus_message_new_method_call", code: ENOMEM) }
        return BusMessage(owning: message)
    }
}

/// A reply handler kept alive by its call's slot.
private final class ReplyHandler {
    let run: (BusMessage) -> Void
    init(_ run: @escaping (BusMessage) -> Void) { self.run = run }
}
