import Foundation
import HumStore
import HumTestSupport
import Testing

@testable import HumCLI

#if canImport(Glibc)
    import Glibc
#endif

/// Away detection through the real bus: python3-dbusmock's logind template on a private system bus (a dbus-daemon of
/// the test's own, `DBUS_SYSTEM_BUS_ADDRESS` pointing at it), a session `c1` added to it and named by
/// `XDG_SESSION_ID`. `hum focus` hears the session lock (the `Lock` signal, then `LockedHint`) and pauses its round,
/// and resumes it on `Unlock`; the time away is on the round's record. Without a system bus, --verbose says so once.
@Suite(.serialized) struct AwayBusTests {
    /// logind played by dbusmock on `bus`, stopped by its pid when the value goes.
    final class MockLogind {
        let pid: pid_t
        let bus: PrivateBus

        init(_ box: Sandbox, bus: PrivateBus) throws {
            self.bus = bus
            var env = ProcessInfo.processInfo.environment
            env["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
            // Debian's python3 (where python3-dbusmock is), whatever python3 comes first in PATH.
            pid = try spawnBinary(
                ["-m", "dbusmock", "--system", "--template", "logind"], environment: env,
                stdout: box.path("dbusmock.out"), stderr: box.path("dbusmock.err"), program: "/usr/bin/python3")
            let added = eventually(within: 10) {
                (try? self.call(
                    "/org/freedesktop/login1", "org.freedesktop.DBus.Mock.AddSession", "string:c1", "string:seat0",
                    "uint32:\(getuid())", "string:me", "boolean:true"
                ).code) == 0
            }
            if !added {
                kill(pid, SIGTERM)
                waitFor(pid)
                let err = (try? String(contentsOfFile: box.path("dbusmock.err"), encoding: .utf8)) ?? ""
                throw SpawnFailure(command: "python3 -m dbusmock --system --template logind: \(err)", status: -1)
            }
        }

        deinit {
            kill(pid, SIGTERM)
            waitFor(pid)
        }

        /// A method call on the mock (dbus-send on the private bus).
        @discardableResult
        func call(_ path: String, _ method: String, _ arguments: String...) throws -> (code: Int32, out: String) {
            try busClient(
                "/usr/bin/dbus-send",
                ["--session", "--print-reply", "--dest=org.freedesktop.login1", path, method] + arguments, bus: bus)
        }

        func session(_ method: String, _ arguments: String...) throws {
            let run = try busClient(
                "/usr/bin/dbus-send",
                [
                    "--session", "--print-reply", "--dest=org.freedesktop.login1", "/org/freedesktop/login1/session/c1",
                    "org.freedesktop.login1.Session.\(method)",
                ] + arguments, bus: bus)
            #expect(run.code == 0, "\(method): \(run.out)")
        }
    }

    static func paused(_ box: Sandbox) -> Bool? {
        let status = json((try? runBinary(["status", "--json"], environment: box.environment).out) ?? "")
        let fields = status as? [String: Any]
        return fields?["phase"] == nil ? nil : fields?["paused"] as? Bool
    }

    @Test func theSessionLockReachesThePlayer() throws {
        let box = Sandbox()
        let bus = try PrivateBus(box, name: "system")
        let logind = try MockLogind(box, bus: bus)
        var env = box.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        env["XDG_SESSION_ID"] = "c1"
        let pid = try spawnBinary(
            ["focus", "--no-sound", "--focus", "10m", "--rounds", "1", "--verbose"], environment: env,
            stdout: box.path("focus.out"), stderr: box.path("focus.err"))
        var ended = false
        defer {
            if !ended {
                kill(pid, SIGKILL)
                waitFor(pid)
            }
        }
        func stderr() -> String { (try? String(contentsOfFile: box.path("focus.err"), encoding: .utf8)) ?? "" }
        #expect(eventually(within: 10) { Self.paused(box) == false }, "the round did not start: \(stderr())")
        // Its signal matches are in place once it has read the session's hints (--verbose says so).
        #expect(eventually(within: 5) { stderr().contains("hum: away: watching the session") }, "\(stderr())")

        try logind.session("Lock")
        #expect(eventually(within: 3) { Self.paused(box) == true }, "the Lock signal did not pause: \(stderr())")
        usleep(1_100_000)
        try logind.session("Unlock")
        #expect(eventually(within: 3) { Self.paused(box) == false }, "Unlock did not resume: \(stderr())")

        try logind.session("SetLockedHint", "boolean:true")
        #expect(eventually(within: 3) { Self.paused(box) == true }, "LockedHint did not pause: \(stderr())")
        try logind.session("SetLockedHint", "boolean:false")
        #expect(eventually(within: 3) { Self.paused(box) == false }, "LockedHint false did not resume: \(stderr())")

        #expect(try runBinary(["ctl", "stop"], environment: box.environment).code == 0)
        ended = true
        waitFor(pid)
        let err = stderr()
        #expect(err.contains("hum: away (locked): the round is paused until you are back"), "\(err)")
        #expect(err.contains("; the round resumes"), "\(err)")
        #expect(!err.contains("not watching the session"), "\(err)")
        let round = try #require(try HumDatabase(path: box.databasePath).rounds(from: nil, to: nil).first)
        let away = try HumDatabase(path: box.databasePath).awaySeconds(ofRound: round.id)
        #expect(away >= 1 && away <= 5, "away \(away) s")
        #expect(round.pausedSeconds >= 1, "the time away was paused, not focus")
    }

    @Test func withoutASystemBusVerboseSaysSoOnceAndTheRoundRuns() throws {
        let box = Sandbox()
        var env = box.environment
        env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(box.root)/no-such-bus"
        let run = try runBinary(
            ["focus", "--no-sound", "--focus", "1s", "--rounds", "1", "--verbose"], environment: env)
        #expect(run.code == 0, "\(run.err)")
        let said = run.err.components(separatedBy: "hum: away: not watching the session (no system bus").count - 1
        #expect(said == 1, "\(run.err)")
        let quiet = try runBinary(["focus", "--no-sound", "--focus", "1s", "--rounds", "1"], environment: env)
        #expect(quiet.code == 0 && !quiet.err.contains("not watching"), "\(quiet.err)")
    }
}
