import CSystemd
import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumBus

#if canImport(Glibc)
    import Glibc
#endif

/// A D-Bus daemon of the test's own (a socket in the sandbox, no service activation, no policy in the way), as the
/// session bus or as a stand-in system bus. Stopped when the value goes.
final class PrivateBus: @unchecked Sendable {
    let address: String
    private let pid: pid_t

    init(_ box: Sandbox, name: String = "session") throws {
        let socket = box.path("\(name).bus")
        let config = box.path("\(name).conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>
        """.write(toFile: config, atomically: true, encoding: .utf8)
        // With an empty signal mask (a player run in this process blocks SIGTERM in its thread), so it can be stopped.
        pid = try spawnBinary(
            ["--config-file=\(config)", "--nofork"], environment: ProcessInfo.processInfo.environment,
            stdout: "/dev/null", stderr: "/dev/null", program: "/usr/bin/dbus-daemon")
        address = "unix:path=\(socket)"
        // Up once its socket takes connections.
        if eventually(within: 5, { PrivateBus.accepts(socket) }) { return }
        throw SpawnFailure(command: "dbus-daemon --config-file=\(config)", status: -1)
    }

    deinit {
        kill(pid, SIGTERM)
        waitFor(pid)
    }

    private static func accepts(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// The environment entry that makes hum and the clients use this bus as their session bus.
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }
}

/// Runs a client of the bus (playerctl, busctl, dbus-send) and returns its exit status and output.
@discardableResult
func busClient(_ program: String, _ arguments: [String], bus: PrivateBus) throws -> (code: Int32, out: String) {
    var env = ProcessInfo.processInfo.environment
    env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
    let run = try runBinary(arguments, environment: env, program: program)
    return (run.code, run.out.trimmingCharacters(in: .whitespacesAndNewlines))
}

func playerctl(_ arguments: String..., bus: PrivateBus) throws -> String {
    try busClient("/usr/bin/playerctl", arguments, bus: bus).out
}

/// A playerctl command that steers (play-pause, next…): it must succeed.
func steer(_ arguments: String..., bus: PrivateBus, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let run = try busClient("/usr/bin/playerctl", arguments, bus: bus)
    #expect(run.code == 0, "playerctl \(arguments.joined(separator: " ")): \(run.out)", sourceLocation: sourceLocation)
}

/// `dbus-monitor` on the player's object: every signal it sends, as dbus-monitor prints them.
final class BusMonitor {
    private let pid: pid_t
    private let output: String

    init(_ box: Sandbox, bus: PrivateBus) throws {
        output = box.path("monitor-\(UUID().uuidString).txt")
        var env = ProcessInfo.processInfo.environment
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        pid = try spawnBinary(
            ["--address", bus.address, "type='signal',path='/org/mpris/MediaPlayer2'"], environment: env,
            stdout: output, stderr: "/dev/null", program: "/usr/bin/dbus-monitor")
        // Listening once it has become a monitor (it says so by losing its own name).
        _ = eventually { self.text.contains("NameLost") }
    }

    deinit {
        kill(pid, SIGTERM)
        waitFor(pid)
    }

    var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

    /// The signals seen, each as its header line and the lines of its arguments.
    var signals: [String] {
        text.components(separatedBy: "\nsignal ").filter { $0.contains("path=/org/mpris/MediaPlayer2;") }
    }

    var propertiesChanged: [String] { signals.filter { $0.contains("member=PropertiesChanged") } }
    var seeked: [String] { signals.filter { $0.contains("member=Seeked") } }
}

/// Names the sd-bus call that failed in a test's own bus code.
struct TestBusFailure: Error, CustomStringConvertible {
    var call: String
    var code: Int32
    var description: String { "\(call): \(String(cString: strerror(code)))" }
}

@discardableResult
func busCheck(_ call: String, _ result: Int32) throws -> Int32 {
    guard result >= 0 else { throw TestBusFailure(call: call, code: -result) }
    return result
}

/// A bus service played by the test: one object, every method call handed to `answer` on the service's own thread
/// (sd-bus objects are single-threaded), which replies or returns false for "unknown method". Signals are queued by
/// the test and sent from that thread.
class FakeBusService: @unchecked Sendable {
    let lock = NSLock()
    private var bus: OpaquePointer?
    private var thread: Thread?
    private var stopping = false
    private var outbox: [(OpaquePointer) -> Void] = []
    private var slot: OpaquePointer?

    init(address: String, name: String, path: String) throws {
        var handle: OpaquePointer?
        try busCheck("sd_bus_new", sd_bus_new(&handle))
        guard let handle else { throw TestBusFailure(call: "sd_bus_new", code: ENOMEM) }
        bus = handle
        try busCheck("sd_bus_set_address", sd_bus_set_address(handle, address))
        try busCheck("sd_bus_set_bus_client", sd_bus_set_bus_client(handle, 1))
        try busCheck("sd_bus_negotiate_fds", sd_bus_negotiate_fds(handle, 1))
        try busCheck("sd_bus_start", sd_bus_start(handle))
        try busCheck("sd_bus_request_name", sd_bus_request_name(handle, name, 0))
        try busCheck(
            "sd_bus_add_object",
            sd_bus_add_object(
                handle, &slot, path,
                { message, userdata, _ in
                    guard let message, let userdata else { return 0 }
                    let me = Unmanaged<FakeBusService>.fromOpaque(userdata).takeUnretainedValue()
                    return me.answer(BusMessage(borrowing: message)) ? 1 : 0
                }, Unmanaged.passUnretained(self).toOpaque()))
        let thread = Thread { [unowned self] in self.serve() }
        self.thread = thread
        thread.start()
    }

    /// Answers one method call (the member is `message.member`); false leaves it to sd-bus (unknown method).
    func answer(_ message: BusMessage) -> Bool { false }

    /// Replies to `call` with the values `fill` appends.
    func reply(to call: BusMessage, _ fill: (BusMessage) throws -> Void) {
        var reply: OpaquePointer?
        guard let bus, sd_bus_message_new_method_return(call.handle, &reply) >= 0, let reply else { return }
        let message = BusMessage(owning: reply)
        do {
            try fill(message)
            _ = sd_bus_send(bus, message.handle, nil)
        } catch {
            Issue.record("a fake bus service could not reply: \(error)")
        }
    }

    /// Sends a signal from the service's thread.
    func emit(path: String, interface: String, member: String, _ fill: @escaping (BusMessage) throws -> Void) {
        lock.lock()
        outbox.append { bus in
            var signal: OpaquePointer?
            guard sd_bus_message_new_signal(bus, &signal, path, interface, member) >= 0, let signal else { return }
            let message = BusMessage(owning: signal)
            if (try? fill(message)) != nil { _ = sd_bus_send(bus, message.handle, nil) }
        }
        lock.unlock()
    }

    private func serve() {
        while true {
            lock.lock()
            let stop = stopping
            let work = outbox
            outbox = []
            lock.unlock()
            guard !stop, let bus else { return }
            for send in work { send(bus) }
            while sd_bus_process(bus, nil) > 0 {}
            _ = sd_bus_wait(bus, 20_000)
        }
    }

    /// Stops serving and leaves the bus.
    func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        let serving = thread
        #expect(eventually(within: 30) { serving?.isFinished ?? true }, "the bus server's thread did not end")
        thread = nil
        if let slot { sd_bus_slot_unref(slot) }
        slot = nil
        if let bus { sd_bus_close_unref(bus) }
        bus = nil
    }

    deinit { stop() }
}

/// A notification server (org.freedesktop.Notifications) that records every Notify call and presses buttons.
final class FakeNotificationServer: FakeBusService, @unchecked Sendable {
    struct Notify: Equatable {
        var appName: String
        var replacesID: UInt32
        var summary: String
        var body: String
        var actions: [String]
        /// The id the server answered with.
        var id: UInt32
        var icon = ""
        /// The hints whose values are strings.
        var hints: [String: String] = [:]
    }

    let capabilities: [String]
    private var recorded: [Notify] = []
    private var nextID: UInt32 = 41

    init(bus: PrivateBus, capabilities: [String]) throws {
        self.capabilities = capabilities
        try super.init(
            address: bus.address, name: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications")
    }

    var calls: [Notify] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    override func answer(_ message: BusMessage) -> Bool {
        switch message.member {
        case "GetCapabilities":
            reply(to: message) { try $0.append(self.capabilities) }
        case "Notify":
            guard let app = try? message.readString(), let replaces = try? message.readUInt32(),
                let icon = try? message.readString(), let summary = try? message.readString(),
                let body = try? message.readString(), let actions = try? message.readStrings(),
                let hints = try? message.readStringHints()
            else { return false }
            lock.lock()
            let id = replaces != 0 ? replaces : nextID
            if replaces == 0 { nextID += 1 }
            recorded.append(
                Notify(
                    appName: app, replacesID: replaces, summary: summary, body: body, actions: actions, id: id,
                    icon: icon, hints: hints))
            lock.unlock()
            reply(to: message) { try $0.append(id) }
        default:
            return false
        }
        return true
    }

    /// Presses the button `key` of notification `id`.
    func press(_ key: String, on id: UInt32) {
        emit(
            path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications", member: "ActionInvoked"
        ) {
            try $0.append(id)
            try $0.append(key)
        }
    }

    /// The person closes notification `id` (reason 2: dismissed by the user).
    func dismiss(_ id: UInt32) {
        emit(
            path: "/org/freedesktop/Notifications", interface: "org.freedesktop.Notifications",
            member: "NotificationClosed"
        ) {
            try $0.append(id)
            try $0.append(UInt32(2))
        }
    }
}

/// logind's Manager on a stand-in system bus: Inhibit answers with one end of a pipe and keeps the other, so the
/// test sees when hum lets go of the lock (the pipe's reading end hangs up once every copy of the writing end is
/// closed).
final class FakeLogind: FakeBusService, @unchecked Sendable {
    struct Lock {
        var what: String
        var who: String
        var mode: String
        var readEnd: Int32
    }

    private var granted: [Lock] = []

    init(bus: PrivateBus) throws {
        try super.init(address: bus.address, name: "org.freedesktop.login1", path: "/org/freedesktop/login1")
    }

    deinit { for lock in granted { close(lock.readEnd) } }

    var locks: [Lock] {
        lock.lock()
        defer { lock.unlock() }
        return granted
    }

    /// How many of the locks granted are still held.
    var held: Int {
        locks.filter { lock in
            var p = pollfd(fd: lock.readEnd, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, 0) == 0
        }.count
    }

    override func answer(_ message: BusMessage) -> Bool {
        guard message.member == "Inhibit", let what = try? message.readString(), let who = try? message.readString(),
            (try? message.readString()) != nil, let mode = try? message.readString()
        else { return false }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return false }
        lock.lock()
        granted.append(Lock(what: what, who: who, mode: mode, readEnd: ends[0]))
        lock.unlock()
        var writeEnd = ends[1]
        // sd-bus sends a copy of the descriptor; this one is closed once the reply is on its way.
        reply(to: message) {
            try busCheck("append(h)", sd_bus_message_append_basic($0.handle, CChar(UInt8(ascii: "h")), &writeEnd))
        }
        close(writeEnd)
        return true
    }
}
