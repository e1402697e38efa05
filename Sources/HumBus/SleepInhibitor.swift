import CSystemd
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps the machine from suspending or idling while hum asks (a focus round runs with `--inhibit`): logind's
/// Inhibit("sleep:idle", "hum", …, "block") on the system bus gives a descriptor, and the lock holds while it is
/// open. Asked without waiting; the system bus is opened the first time it is needed and stays in the loop.
final class SleepInhibitor {
    private let environment: [String: String]
    private let loop: any EventLoopProtocol
    private var connection: BusConnection?
    /// The lock's descriptor while held.
    private(set) var descriptor: Int32 = -1
    private var asking = false
    private var wanted = false
    /// Why the lock could not be had, said once per player.
    var onProblem: ((String) -> Void)?
    private var toldProblem = false

    init(environment: [String: String], loop: any EventLoopProtocol) {
        self.environment = environment
        self.loop = loop
    }

    deinit { close() }

    var isHeld: Bool { descriptor >= 0 }

    /// Holds the lock or lets it go.
    func hold(_ wanted: Bool) {
        self.wanted = wanted
        if !wanted {
            release()
        } else if descriptor < 0, !asking {
            ask()
        }
    }

    private func ask() {
        do {
            if connection == nil {
                let connection = try BusConnection(.system, environment: environment, loop: loop)
                connection.onClosed = { [unowned self] _ in
                    self.connection = nil
                    self.asking = false
                }
                self.connection = connection
            }
            guard let connection, let bus = connection.bus else { return }
            let me = Unmanaged.passUnretained(self).toOpaque()
            try check(
                "Inhibit", on: "system bus",
                hum_bus_call_inhibit(
                    bus, nil, "sleep:idle", "hum", "a focus round is running", "block",
                    { reply, userdata, _ in
                        guard let reply, let userdata else { return 0 }
                        Unmanaged<SleepInhibitor>.fromOpaque(userdata).takeUnretainedValue().answered(
                            BusMessage(borrowing: reply))
                        return 1
                    }, me))
            asking = true
            connection.reschedule()
        } catch {
            problem(error.message)
        }
    }

    private func answered(_ reply: BusMessage) {
        asking = false
        if let error = reply.error {
            problem("logind refused the sleep inhibitor (\(error.name): \(error.message))")
            return
        }
        do {
            let fd = try reply.readDescriptor()
            if wanted, descriptor < 0 {
                descriptor = fd
            } else {
                Glibc.close(fd)  // no longer wanted (the round ended or paused meanwhile)
            }
        } catch {
            problem(error.message)
        }
    }

    private func problem(_ text: String) {
        guard !toldProblem else { return }
        toldProblem = true
        onProblem?("cannot keep the machine awake: \(text)")
    }

    private func release() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    func close() {
        wanted = false
        release()
        connection?.close()
        connection = nil
    }
}
