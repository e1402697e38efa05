import Foundation
import HumCore
import HumStore
import HumTestSupport
import Testing

@testable import HumPlayer

#if canImport(Glibc)
    import Glibc
#endif

/// The shields' notices with the guard in this process and no bus (a `RecordingShieldNotifier`): a real copy of
/// `sleep` named `fakegame-<suffix>` is frozen by the player's guard; the notice is said once per episode, its
/// buttons go through the player's interpreter, a refusal is said back, and `shield.notify = off` keeps it unsaid.
@Suite(.serialized) struct ShieldNoticesTests {
    /// A copy of sleep under a name of its own, started in a process group of its own; killed by pid at the end.
    final class FakeGame {
        let name = "fakegame-\(UUID().uuidString.prefix(8).lowercased())"
        let folder = NSTemporaryDirectory() + "hum-notices-" + UUID().uuidString
        var pids: [pid_t] = []

        init() throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: "\(folder)/\(name)")
            chmod("\(folder)/\(name)", 0o755)
        }

        func start() throws -> pid_t {
            let argv = ["\(folder)/\(name)", "600"]
            let pid = try spawnInOwnGroup(argv)
            pids.append(pid)
            _ = eventually(within: 5) { FakeGame.state(pid) == "S" }
            return pid
        }

        static func state(_ pid: pid_t) -> Character? { processState(pid) }

        deinit {
            for pid in pids {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    @Test func aFreezeIsToldOnceWithTheBankAndARefusedButtonIsSaidBack() throws {
        let game = try FakeGame()
        let h = try PlayerHarness()
        let db = try h.database()
        _ = try db.addShield(name: "games", targets: [.app(game.name)])
        _ = try db.record(.adjust(seconds: 2 * 60 + 30, reason: "test", key: nil))
        let first = try game.start()

        let player = try h.start([])
        defer { player.stop() }
        #expect(
            eventually(within: 2) { FakeGame.state(first) == "T" }, "the guard did not freeze the game at its start")
        // The episode began before a notifier was attached (the desktop attaches after the guard starts): it is
        // told when one is.
        let notifier = RecordingShieldNotifier()
        player.shieldNotices?.notifier = notifier
        #expect(
            notifier.shown == [
                ShieldNotice(
                    shield: "games", summary: "\(game.name) is shielded",
                    body: "2 min banked · hum pass 15m --on games", actions: [.spend, .emergency])
            ])

        // Another copy started in the same episode is frozen at the next look, and told nothing new.
        let second = try game.start()
        h.at(1.5)
        #expect(eventually(within: 2) { FakeGame.state(second) == "T" })
        #expect(notifier.shown.count == 1)

        // "Spend 15 min" with 2 min banked: refused as 'hum pass 15m --on games' is, said back; nothing held.
        notifier.press(.spend, on: "games")
        #expect(notifier.shown.count == 2)
        let refused = try #require(notifier.shown.last)
        #expect(refused.summary == "\(game.name) stays shielded: Spend 15 min was not possible")
        #expect(refused.body.contains("nothing was held") || refused.body.contains("banked"), "\(refused.body)")
        #expect(refused.actions == [.spend, .emergency])
        #expect(FakeGame.state(first) == "T" && FakeGame.state(second) == "T")
        let bank = try db.bankStatus()
        #expect(bank.balance == 150 && bank.openPass == nil)
        #expect(h.stderr.text.contains("hum: shield: Spend 15 min (the notification of games) refused:"))
    }

    @Test func aNewEpisodeIsToldAgainUnlessShieldNotifyIsOff() throws {
        let game = try FakeGame()
        let h = try PlayerHarness()
        let db = try h.database()
        _ = try db.addShield(name: "games", targets: [.app(game.name)])
        let pid = try game.start()
        let player = try h.start([])
        defer { player.stop() }
        let notifier = RecordingShieldNotifier()
        player.shieldNotices?.notifier = notifier
        #expect(notifier.shown.count == 1 && notifier.shown.first?.body == "0 min banked · hum pass 15m --on games")

        // Off thaws it (the episode ends); on freezes it again: a new episode, told again.
        func offAndOn() throws {
            _ = try db.turnShieldsOff(["games"], seconds: 3600, reason: nil)
            try player.handle(.shields)
            #expect(eventually(within: 2) { FakeGame.state(pid) == "S" })
            _ = try db.turnShieldOn(named: "games")
            try player.handle(.shields)
            #expect(eventually(within: 2) { FakeGame.state(pid) == "T" })
        }
        try offAndOn()
        #expect(notifier.shown.count == 2)
        // shield.notify = off: the next episode is not told.
        try db.setConfig(SettingCatalog.shieldNotify, to: "off")
        try offAndOn()
        #expect(notifier.shown.count == 2)
        try db.setConfig(SettingCatalog.shieldNotify, to: "on")
        try offAndOn()
        #expect(notifier.shown.count == 3)
    }

    /// A strict contract asks an emergency for a wait and a confirmation on a terminal; a button cannot give them,
    /// so it draws nothing and says which command to type.
    @Test func duringAStrictContractTheEmergencyButtonDrawsNothing() throws {
        let game = try FakeGame()
        let h = try PlayerHarness()
        let db = try h.database()
        _ = try db.addShield(name: "games", targets: [.app(game.name)])
        let start = ContractStart(
            id: "c0000000-0000-4000-8000-000000000009", goal: "Draft", doneWhen: ["done"], firstStep: "outline",
            watch: [], strict: true)
        let ends = db.calendar.stamp(db.calendar.clock.nowEpochSeconds() + 1500)
        _ = try db.createContract(start, rounds: 1, focusSeconds: 1500, endsAt: ends, baseline: [])
        #expect(try db.runningStrictContract() != nil)
        let reserve = try db.bankStatus().emergencyLeft
        let pid = try game.start()
        let player = try h.start([])
        defer { player.stop() }
        #expect(eventually(within: 2) { FakeGame.state(pid) == "T" })
        let notifier = RecordingShieldNotifier()
        player.shieldNotices?.notifier = notifier
        notifier.press(.emergency, on: "games")
        let refused = try #require(notifier.shown.last)
        #expect(refused.summary == "\(game.name) stays shielded: Emergency 5 min was not possible")
        #expect(
            refused.body
                == "a strict contract runs, so an emergency waits and asks you to confirm on a terminal: "
                + "hum emergency 5m --reason … --on games; nothing was drawn")
        #expect(try db.bankStatus().emergencyLeft == reserve)
        #expect(FakeGame.state(pid) == "T")
    }
}
