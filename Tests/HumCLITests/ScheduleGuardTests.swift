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

/// A window that opens while the guard runs: the guard's one timer is at the window's edge, so the shield's
/// programs are frozen within 2 s of it. The edge is made a few seconds ahead by a time zone of the test's own,
/// whose offset has seconds (POSIX TZ `HUM-0:0:SS`), so that a local minute begins then.
@Suite(.serialized) struct ScheduleEdgeTests {
    @Test func aWindowStartingWhileTheGuardRunsFreezesWithinTwoSecondsOfItsEdge() throws {
        let games = try ShieldGuardTests.Games()
        let mine = try games.start()
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let edge = Int64(now.tv_sec) + 10
        let offset = (60 - edge % 60) % 60
        var env = games.box.environment
        env["TZ"] = "HUM-0:0:\(offset)"
        func hum(_ words: String...) throws -> (code: Int32, out: String, err: String) {
            try runBinary(words, environment: env)
        }
        func hhmm(_ minute: Int64) -> String {
            let m = minute % 1440
            return (m / 60 < 10 ? "0" : "") + "\(m / 60):" + (m % 60 < 10 ? "0" : "") + "\(m % 60)"
        }
        let from = (edge + offset) % 86_400 / 60
        #expect(try hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { ShieldGuardTests.state(mine) == "T" }, "not frozen by the shield")
        #expect(try hum("shield", "off", "games", "--for", "1h").code == 0)
        #expect(eventually(within: 2) { ShieldGuardTests.state(mine) == "S" }, "not thawed by the off")
        let add = try hum(
            "schedule", "add", "soon", "--days", "daily", "--from", hhmm(from), "--to", hhmm(from + 2), "--lock",
            "games")
        #expect(add.code == 0, "\(add.err)")
        clock_gettime(CLOCK_REALTIME, &now)
        try #require(Int64(now.tv_sec) < edge - 1, "the setup took past the window's edge; nothing to measure")
        #expect(ShieldGuardTests.state(mine) == "S", "frozen before the window opened")
        let frozenAt = waitFor(within: Double(edge) - Double(now.tv_sec) + 4, pausingAtMost: 0.01) { () -> Double? in
            guard ShieldGuardTests.state(mine) == "T" else { return nil }
            var t = timespec()
            clock_gettime(CLOCK_REALTIME, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        }
        let late = (frozenAt ?? .infinity) - Double(edge)
        print(
            "schedule guard: a window opening while the guard runs froze its program \(Int(late * 1000)) ms after the edge"
        )
        #expect(late >= 0 && late < 2, "frozen \(late) s after the edge")
        #expect(try hum("ctl", "stop").code == 0)
    }
}
