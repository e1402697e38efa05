import Foundation
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The shields' notification on a private session bus (a dbus-daemon of the test's own and a notification server
/// played by the test, `FakeNotificationServer`), through the built binary: the background player started by
/// `hum shield add` freezes a copy of `sleep` named `fakegame-<suffix>` and says so once, with the bank and the way
/// out; its "Spend 15 min" button lifts the shield as `hum pass 15m --on games` does, and a button the ledger refuses
/// is said back.
@Suite(.serialized) struct ShieldNotificationTests {
    /// The test's games, bus and notification server; stopped by pid at the end.
    final class Desk {
        let games: ShieldGuardTests.Games
        let bus: PrivateBus
        let server: FakeNotificationServer
        var player: pid_t?

        init() throws {
            games = try ShieldGuardTests.Games()
            bus = try PrivateBus(games.box)
            server = try FakeNotificationServer(bus: bus, capabilities: ["actions", "body"])
        }

        func hum(_ words: String...) throws -> (code: Int32, out: String, err: String) {
            try runBinary(words, environment: games.box.environment.merging(bus.environment) { $1 })
        }

        /// `hum bank --json`'s open pass: what it holds, for what, and whether it forfeits.
        func openPass() throws -> [String]? {
            guard let bank = json(try hum("bank", "--json").out) as? [String: Any],
                let pass = bank["open_pass"] as? [String: Any]
            else { return nil }
            let held = pass["heldSeconds"] ?? pass["held_seconds"]
            return ["\(held ?? "?")", "\(pass["label"] ?? "?")", "\(pass["forfeit"] ?? "?")"]
        }

        func balance() throws -> Int? {
            (json(try hum("bank", "--json").out) as? [String: Any])?["balance_seconds"] as? Int
        }

        func stop() {
            server.stop()
            games.cleanUp(player: player)
        }
    }

    @Test func aFreezeIsNotifiedOnceAndSpendLiftsAsThePassDoes() throws {
        let desk = try Desk()
        defer { desk.stop() }
        let games = desk.games
        let mine = try games.start()
        #expect(try desk.hum("ledger", "adjust", "+40m", "--reason", "test").code == 0)
        let add = try desk.hum("shield", "add", "games", "--app", games.name)
        #expect(add.code == 0, "\(add.err)")
        desk.player = try games.playerPID()
        let frozenAt = waitFor(within: 2, pausingAtMost: 0.01) {
            ShieldGuardTests.state(mine) == "T" ? ShieldGuardTests.monotonic() : nil
        }
        #expect(frozenAt != nil)

        // One Notify: the program by its name, the bank, the way out, and the two buttons.
        let notifiedAt = waitFor(within: 5, pausingAtMost: 0.01) {
            desk.server.calls.count == 1 ? ShieldGuardTests.monotonic() : nil
        }
        #expect(notifiedAt != nil, "no notification")
        if let frozenAt, let notifiedAt {
            print(
                "shield notification: Notify seen \(Int((notifiedAt - frozenAt) * 1000)) ms after the freeze was seen")
        }
        let notice = try #require(desk.server.calls.first)
        #expect(notice.appName == "hum" && notice.replacesID == 0)
        #expect(notice.icon == "hum" && notice.hints["desktop-entry"] == "hum", "\(notice)")
        #expect(notice.summary == "\(games.name) is shielded")
        #expect(notice.body == "40 min banked · hum pass 15m --on games")
        #expect(notice.actions == ["spend", "Spend 15 min", "emergency", "Emergency 5 min"])
        // A second copy started in the same episode is frozen, and brings no second notification.
        let late = try games.start()
        #expect(eventually(within: 2) { ShieldGuardTests.state(late) == "T" })
        #expect(!eventually(within: 1.5) { desk.server.calls.count > 1 }, "\(desk.server.calls)")

        // "Spend 15 min": the shield is lifted, the programs resume, and the bank holds 15 min for a pass on games.
        let pressed = ShieldGuardTests.monotonic()
        desk.server.press("spend", on: notice.id)
        let thawedAt = waitFor(within: 3, pausingAtMost: 0.01) {
            ShieldGuardTests.state(mine) == "S" ? ShieldGuardTests.monotonic() : nil
        }
        #expect(thawedAt != nil, "not thawed by Spend")
        if let thawedAt { print("shield notification: thawed \(Int((thawedAt - pressed) * 1000)) ms after Spend") }
        #expect(try games.shields()?.first?["state"] as? String == "lifted")
        let byButton = try desk.openPass()
        #expect(try desk.balance() == 25 * 60)
        #expect(eventually(within: 3) { desk.server.calls.count == 2 })
        let lifted = try #require(desk.server.calls.last)
        #expect(lifted.replacesID == notice.id && lifted.summary.hasPrefix("\(games.name) is free until "))
        #expect(lifted.body == "15 min from the bank · hum pass end shields it again early")

        // The same as 'hum pass 15m --on games': ended, then asked on the command line, the pass looks the same.
        #expect(try desk.hum("pass", "end").code == 0)
        #expect(eventually(within: 2) { ShieldGuardTests.state(mine) == "T" })
        let before = try #require(try desk.balance())
        let pass = try desk.hum("pass", "15m", "--on", "games")
        #expect(pass.code == 0, "\(pass.err)")
        let byCommand = try desk.openPass()
        #expect(
            byButton != nil && byButton == byCommand,
            "\(String(describing: byButton)) / \(String(describing: byCommand))")
        #expect(try desk.balance() == before - 15 * 60)
        #expect(try desk.hum("pass", "end").code == 0)
    }

    @Test func aButtonTheLedgerRefusesIsSaidBackAndHoldsNothing() throws {
        let desk = try Desk()
        defer { desk.stop() }
        let games = desk.games
        let mine = try games.start()
        #expect(try desk.hum("ledger", "adjust", "+5m", "--reason", "test").code == 0)
        #expect(try desk.hum("shield", "add", "games", "--app", games.name).code == 0)
        desk.player = try games.playerPID()
        #expect(eventually(within: 5) { desk.server.calls.count == 1 })
        let notice = try #require(desk.server.calls.first)
        #expect(notice.body == "5 min banked · hum pass 15m --on games")

        // 15 min asked with 5 min banked: refused as 'hum pass 15m --on games' is, and said back in place.
        let cli = try desk.hum("pass", "15m", "--on", "games")
        #expect(cli.code == 3, "\(cli.err)")
        desk.server.press("spend", on: notice.id)
        #expect(eventually(within: 3) { desk.server.calls.count == 2 }, "the refusal was not said")
        let refused = try #require(desk.server.calls.last)
        #expect(refused.replacesID == notice.id)
        #expect(refused.summary == "\(games.name) stays shielded: Spend 15 min was not possible")
        // The same words as the command's refusal (without its "hum: " prefix).
        let words = cli.err.split(separator: "\n").first.map { String($0.dropFirst("hum: ".count)) } ?? "?"
        #expect(refused.body == words, "\(refused.body) / \(cli.err)")
        #expect(refused.actions == ["spend", "Spend 15 min", "emergency", "Emergency 5 min"])
        #expect(ShieldGuardTests.state(mine) == "T")
        #expect(try desk.openPass() == nil)
        #expect(try desk.balance() == 5 * 60)
        #expect(try games.shields()?.first?["state"] as? String == "up")

        // "Emergency 5 min" on the notice that said the refusal: drawn from the weekly reserve, as
        // 'hum emergency 5m --on games' draws.
        desk.server.press("emergency", on: notice.id)
        #expect(eventually(within: 3) { ShieldGuardTests.state(mine) == "S" }, "not thawed by Emergency")
        #expect(eventually(within: 3) { desk.server.calls.count == 3 })
        #expect(
            desk.server.calls.last?.body == "5 min from the emergency reserve · hum pass end shields it again early")
        let bank = json(try desk.hum("bank", "--json").out) as? [String: Any]
        #expect(bank?["emergency_left_seconds"] as? Int == 5 * 60, "\(String(describing: bank))")
        #expect(try desk.balance() == 5 * 60)
        let ledger = try desk.hum("ledger", "--json").out
        #expect(ledger.contains("the Emergency button of the shield's notification"), "\(ledger)")

        // Relocked (the lift ended): a new episode, told again in place.
        #expect(try desk.hum("pass", "end").code == 0)
        #expect(eventually(within: 3) { desk.server.calls.count == 4 }, "\(desk.server.calls)")
        #expect(desk.server.calls.last?.replacesID == notice.id)
        #expect(desk.server.calls.last?.summary == "\(games.name) is shielded")
        // Once the person closed it, the next one is a new notification, not a replacement of a closed one.
        desk.server.dismiss(notice.id)
        #expect(try desk.hum("pass", "2s", "--on", "games").code == 0)
        #expect(eventually(within: 5) { desk.server.calls.count == 5 }, "\(desk.server.calls)")
        #expect(desk.server.calls.last?.replacesID == 0)
    }
}
