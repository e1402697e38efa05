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
