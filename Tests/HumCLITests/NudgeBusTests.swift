import Foundation
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The nudge on a private session bus (a dbus-daemon of the test's own and the notification server played by the
/// test, `FakeNotificationServer`), through the built binary: a silent player with `nudge.every` asks, with the two
/// buttons, and "Productive" logs the interval as `hum log --productive` does, in the same sender's notification
/// replaced in place.
@Suite struct NudgeBusTests {
    @Test func theNudgeAsksOnTheBusAndItsButtonLogsTheTime() throws {
        let box = Sandbox()
        let bus = try PrivateBus(box)
        let server = try FakeNotificationServer(bus: bus, capabilities: ["actions", "body"])
        defer { server.stop() }
        // No system bus here: logind cannot be asked, and the session counts as there.
        let environment = bus.environment.merging([
            "HUM_NUDGE_EVERY": "2s", "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(box.root)/no-system-bus",
        ]) { $1 }
        let player = try box.startHum(["daemon", "--no-sound"], environment: environment)
        defer {
            kill(player.pid, SIGTERM)
            player.wait()
        }
        let asked = "How did the last 2 s go?"
        #expect(eventually(within: 10) { server.calls.contains { $0.summary == asked } }, "\(player.stderr)")
        let nudge = try #require(server.calls.first { $0.summary == asked })
        #expect(nudge.appName == "hum")
        #expect(nudge.body == "hum log 2s --productive · hum log 2s --distracting")
        #expect(nudge.actions == ["productive", "Productive", "distracting", "Distracting"])
        server.press("productive", on: nudge.id)
        #expect(eventually(within: 5) { server.calls.contains { $0.summary == "Logged 2 s as productive" } })
        let logged = try #require(server.calls.first { $0.summary == "Logged 2 s as productive" })
        #expect(logged.replacesID == nudge.id && logged.actions == [], "the nudge is replaced in place, buttons gone")
        let report = try box.hum(["report", "day", "--json"], environment: environment)
        let day = (json(report.stdout) as? [String: Any])?["logged"] as? [[String: Any]]
        #expect(day?.first?["productive_seconds"] as? Int == 2, "\(report.stdout)")
    }
}
