import Foundation
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The guard's cheap look, `shield.action = terminate` and distracting time, end to end through the built binary,
/// with the `fakegame` copies of ShieldGuardTests.
@Suite(.serialized) struct ShieldGuardLeanTests {
    typealias Games = ShieldGuardTests.Games

    /// Starts `argv` in a process group of its own (as a shell's job is).
    static func start(_ games: Games, _ argv: [String]) throws -> pid_t {
        let pid = try spawnInOwnGroup(argv)
        games.pids.append(pid)
        return pid
    }

    static func comm(_ pid: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    /// A shell seen by the guard before it execs the game (a launcher): frozen within 2 s of the exec.
    @Test func aProgramThatExecsTheGameAfterTheGuardSawItIsFrozen() throws {
        let games = try Games()
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        let other = try games.start()
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { ShieldGuardTests.state(other) == "T" })
        // Seen as `sh` at several looks, then it becomes the game.
        let shell = try Self.start(games, ["/bin/sh", "-c", "sleep 2.5; exec \(games.folder)/\(games.name) 600"])
        #expect(eventually(within: 2) { Self.comm(shell) == "sh" })
        let became = waitFor(within: 6, pausingAtMost: 0.01) {
            Self.comm(shell) == String(games.name.prefix(15)) ? ShieldGuardTests.monotonic() : nil
        }
        #expect(became != nil, "the shell did not exec the game")
        #expect(eventually(within: 2) { ShieldGuardTests.state(shell) == "T" }, "not frozen within 2 s of its exec")
        print(
            "shield guard: a shell that exec'd the game frozen \(Int((ShieldGuardTests.monotonic() - (became ?? 0)) * 1000)) ms after"
        )
    }

    /// `shield.action = terminate`: frozen, then after the grace asked to end; one that ignores SIGTERM is killed;
    /// another user's copy is never touched.
    @Test func terminateEndsTheProgramsAfterTheGrace() throws {
        let games = try Games()
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        #expect(try games.hum("config", "set", "shield.action", "terminate").code == 0)
        #expect(try games.hum("config", "set", "shield.grace", "2s").code == 0)
        let bad = try games.hum("config", "set", "shield.grace", "0s")
        #expect(bad.code == 2, "\(bad.err)")
        let mine = try games.start()
        let theirs = try games.start(nobody: true)
        // One that ignores SIGTERM (the disposition survives the exec).
        let stubborn = try Self.start(
            games, ["/bin/sh", "-c", "trap '' TERM; exec \(games.folder)/\(games.name) 600"])
        #expect(eventually(within: 3) { Self.comm(stubborn) == String(games.name.prefix(15)) })
        let added = ShieldGuardTests.monotonic()
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { ShieldGuardTests.state(mine) == "T" }, "not frozen first")
        #expect(ShieldGuardTests.state(stubborn) == "T")
        // Still there, frozen, during the grace.
        usleep(1_000_000)  // a wait for something not to happen
        #expect(ShieldGuardTests.state(mine) == "T", "ended before the grace")
        #expect(eventually(within: 4) { ShieldGuardTests.ended(mine) }, "not ended after the grace")
        let ended = ShieldGuardTests.monotonic() - added
        print("shield guard: terminate with a 2 s grace ended the game \(Int(ended * 1000)) ms after 'shield add'")
        #expect(ended >= 2)
        // SIGTERM ignored: killed 5 s after it was asked.
        #expect(!ShieldGuardTests.ended(stubborn), "the one ignoring SIGTERM ended at once")
        #expect(eventually(within: 8) { ShieldGuardTests.ended(stubborn) }, "the one ignoring SIGTERM was not killed")
        #expect(ShieldGuardTests.state(theirs) == "S", "another user's process was touched")
    }

    /// Usage measured while lifted: a 3 s lift of a running game is 3 ± 1 s of distracting time in the report, and
    /// time logged by hand is added apart.
    @Test func aLiftedRunIsMeasuredAndHandLogsAreAddedApart() throws {
        let games = try Games()
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        let mine = try games.start()
        #expect(try games.hum("ledger", "adjust", "+10m", "--reason", "test").code == 0)
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { ShieldGuardTests.state(mine) == "T" })
        #expect(try Self.distracting(games).isEmpty)

        #expect(try games.hum("pass", "3s", "--on", "games").code == 0)
        #expect(eventually(within: 5) { ShieldGuardTests.state(mine) == "T" }, "not frozen again after the lift")
        var measured: Int? = nil
        let found = try eventually(within: 3) {
            measured = try Self.distracting(games).first?["measured_seconds"] as? Int
            return measured != nil
        }
        #expect(found, "no distracting time measured")
        print("shield guard: a 3 s lift measured \(measured ?? -1) s of distracting time")
        #expect(measured.map { (2...4).contains($0) } == true, "measured \(String(describing: measured))")

        let log = try games.hum("log", "20m", "--shield", "games", "--json")
        #expect(log.code == 0, "\(log.err)")
        let logged = json(log.out) as? [String: Any]
        #expect(logged?["logged_seconds"] as? Int == 1200 && logged?["day_logged_seconds"] as? Int == 1200)
        let day = try Self.distracting(games).first
        #expect(day?["logged_seconds"] as? Int == 1200 && day?["seconds"] as? Int == 1200 + (measured ?? 0))
        // Distracting time beats no focus: the day leaned distracted.
        let report = json(try games.hum("report", "day", "--json").out) as? [String: Any]
        let balance = (report?["balance"] as? [[String: Any]])?.last
        #expect(balance?["lean"] as? String == "distracted", "\(String(describing: balance))")
        let text = try games.hum("report", "day").out
        #expect(text.contains("distracting") && text.contains("20m logged by hand"), "\(text)")
        #expect(text.contains("leaned") && text.contains("productive on 0 of 1 day"), "\(text)")

        // Range-checked: more than 24 h at once is a usage error; a day past 24 h is refused; no such shield.
        #expect(try games.hum("log", "25h", "--shield", "games").code == 2)
        let full = try games.hum("log", "24h", "--shield", "games")
        #expect(full.code == 3 && full.err.contains("longer than 24h"), "\(full.err)")
        #expect(try games.hum("log", "5m", "--shield", "nope").code == 2)
        #expect(try games.hum("log", "5m").code == 2)
    }

    static func distracting(_ games: Games) throws -> [[String: Any]] {
        let run = try games.hum("report", "day", "--json")
        return ((json(run.out) as? [String: Any])?["distracting"] as? [[String: Any]]) ?? []
    }
}
