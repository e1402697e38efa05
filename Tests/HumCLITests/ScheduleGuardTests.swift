import Foundation
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Schedules applied by the running guard: a lock window keeps a shield up over an off, refuses a bank's pass on it,
/// and its removal gives the shield back to the off.
@Suite(.serialized) struct ScheduleGuardTests {
    @Test func aLockWindowFreezesOverAnOffAndRefusesAPass() throws {
        let games = try ShieldGuardTests.Games()
        let mine = try games.start()
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        #expect(try games.hum("ledger", "adjust", "+10m", "--reason", "test").code == 0)
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { ShieldGuardTests.state(mine) == "T" }, "not frozen by the shield")
        #expect(try games.hum("shield", "off", "games", "--for", "1h").code == 0)
        #expect(eventually(within: 2) { ShieldGuardTests.state(mine) == "S" }, "not thawed by the off")

        // A window holding all day, every day: the running guard is told, and the lock beats the off.
        let add = try games.hum(
            "schedule", "add", "work", "--days", "daily", "--from", "00:00", "--to", "24:00", "--lock", "games")
        #expect(add.code == 0, "\(add.err)")
        #expect(!add.err.contains("no player runs"), "\(add.err)")
        #expect(eventually(within: 2) { ShieldGuardTests.state(mine) == "T" }, "the lock window did not freeze it")

        let bank = try games.hum("bank").out
        let pass = try games.hum("pass", "2s", "--on", "games")
        #expect(pass.code == 3, "\(pass)")
        #expect(pass.err.contains("games is locked by schedule work"), "\(pass.err)")
        #expect(try games.hum("bank").out == bank, "something was held")

        // Without the schedule, the off is in force again.
        #expect(try games.hum("schedule", "rm", "work").code == 0)
        #expect(eventually(within: 2) { ShieldGuardTests.state(mine) == "S" }, "not thawed after the schedule went")
        #expect(try games.hum("ctl", "stop").code == 0)
    }
}

/// `hum pass DUR --on NAME` on a shield with a daily quota: the quota pays first and hum says so; a pass the quota and
/// the bank cannot pay together is refused (exit 3, nothing held); the quota's lift relocks at its end, also when the
/// player is killed during it (its watchdog).
@Suite(.serialized) struct QuotaPassTests {
    @Test func aQuotaPaysTheLiftWhichRelocksWithThePlayerKilled() throws {
        let games = try ShieldGuardTests.Games()
        let mine = try games.start()
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { ShieldGuardTests.state(mine) == "T" }, "not frozen by the shield")
        #expect(try games.hum("shield", "set", "games", "--quota", "5s").code == 0)

        // Nothing banked: 5 s of quota cannot pay 10 s.
        let tooLong = try games.hum("pass", "10s", "--on", "games")
        #expect(tooLong.code == 3 && tooLong.err.contains("not enough banked"), "\(tooLong)")
        #expect(ShieldGuardTests.state(mine) == "T")

        let text = try games.hum("pass", "1s", "--on", "games")
        #expect(text.code == 0, "\(text.err)")
        #expect(text.err.contains("1s from today's quota of games"), "\(text.err)")
        #expect(text.err.contains("unused time goes back to today's quota"), "\(text.err)")
        #expect(eventually(within: 3) { ShieldGuardTests.state(mine) == "T" }, "not frozen after the 1 s lift")

        let asked = ShieldGuardTests.monotonic()
        let run = try games.hum("pass", "3s", "--on", "games", "--json")
        #expect(run.code == 0, "\(run.err)")
        let document = json(run.out) as? [String: Any]
        #expect(document?["quota_seconds"] as? Int == 3 && document?["bank_seconds"] as? Int == 0, "\(run.out)")
        #expect(document?["shield"] as? String == "games" && document?["until"] is String, "\(run.out)")
        #expect(ShieldGuardTests.state(mine).map { $0 != "T" } == true, "not thawed when the lift opened")
        if let pid = player { kill(pid, SIGKILL) }
        // Only the lift's watchdog is left: it freezes again at the quota lift's end.
        #expect(eventually(within: 5) { ShieldGuardTests.state(mine) == "T" }, "not frozen again after the player died")
        let late = ShieldGuardTests.monotonic() - (asked + 3)
        print("quota watchdog: frozen again \(Int(late * 1000)) ms after the end of a quota lift whose player died")
        #expect(late < 1.5)
        // 1 s + 3 s of the 5 s used; the bank was never touched.
        let show = json(try games.hum("shield", "show", "games", "--json").out) as? [String: Any]
        let quota = show?["quota"] as? [String: Any]
        #expect(quota?["usedToday"] as? Int == 4 && quota?["leftToday"] as? Int == 1, "\(String(describing: show))")
        #expect(try ShieldGuardTests.balance(games) == 0)
    }
}
