import Foundation
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The shields' guard end to end, through the built binary: a copy of `sleep` named `fakegame-<suffix>` started by
/// the test in a process group of its own, and one started as another user (`setpriv`, uid 65534);
/// `hum shield add games --app fakegame-<suffix>` starts a silent player that freezes the first within 2 s and never
/// touches the other; `off` thaws, `on` refreezes, stopping the player thaws; `hum pass 2s --on games` lifts the
/// shield and it relocks at the deadline; a player killed during a lift is made up for by its watchdog.
@Suite(.serialized) struct ShieldGuardTests {
    /// The programs of one test: a private folder (readable by uid 65534) with the copy of sleep.
    final class Games {
        let box = Sandbox()
        let folder: String
        let name: String
        var pids: [pid_t] = []

        init() throws {
            name = "fakegame-\(UUID().uuidString.prefix(8).lowercased())"
            folder = NSTemporaryDirectory() + "hum-games-" + UUID().uuidString
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: "\(folder)/\(name)")
            chmod("\(folder)/\(name)", 0o755)
        }

        /// Starts the game in a process group of its own (as a shell's job is), as uid 65534 when `nobody`.
        func start(nobody: Bool = false) throws -> pid_t {
            let game = "\(folder)/\(name)"
            let argv =
                nobody
                ? ["/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", game, "600"]
                : [game, "600"]
            let pid = try spawnInOwnGroup(argv)
            pids.append(pid)
            // setpriv execs the game: wait until the pid runs it, so that what follows looks at the game.
            _ = eventually(within: 5) {
                (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) == "\(String(name.prefix(15)))\n"
            }
            return pid
        }

        func hum(_ words: String...) throws -> (code: Int32, out: String, err: String) {
            try runBinary(words, environment: box.environment)
        }

        /// The player's pid, from `hum status --json`; nil when none runs.
        func playerPID() throws -> pid_t? {
            let run = try hum("status", "--json")
            return ((json(run.out) as? [String: Any])?["pid"] as? Int).map { pid_t($0) }
        }

        /// The shields in the player's status.
        func shields() throws -> [[String: Any]]? {
            let run = try hum("status", "--json")
            return (json(run.out) as? [String: Any])?["shields"] as? [[String: Any]]
        }

        /// Kills every process the test started, by pid, and the player it started.
        func cleanUp(player: pid_t?) {
            for pid in pids {
                kill(pid, SIGKILL)
                waitFor(pid)
            }
            if let player, player > 0 {
                kill(player, SIGCONT)
                kill(player, SIGKILL)
                _ = eventually(within: 5) { ShieldGuardTests.ended(player) }
            }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// The state letter of /proc/PID/stat (`T` stopped); nil when the process is gone.
    static func state(_ pid: pid_t) -> Character? { processState(pid) }

    /// Whether the process has ended (gone, or a zombie nobody reaped yet).
    static func ended(_ pid: pid_t) -> Bool {
        let letter = state(pid)
        return letter == nil || letter == "Z"
    }

    static func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    @Test func aShieldFreezesItsProgramWithinTwoSecondsAndOnlyThisUsers() throws {
        let games = try Games()
        let mine = try games.start()
        let theirs = try games.start(nobody: true)
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        // Both asleep (a program just started may still be running its loader).
        #expect(eventually(within: 2) { Self.state(mine) == "S" && Self.state(theirs) == "S" })

        let started = Self.monotonic()
        let add = try games.hum("shield", "add", "games", "--app", games.name)
        #expect(add.code == 0, "\(add.err)")
        #expect(add.err.contains("a silent player guards the shields in the background"), "\(add.err)")
        player = try games.playerPID()
        #expect(player != nil)
        #expect(eventually(within: 2) { Self.state(mine) == "T" }, "not frozen within 2 s")
        print("shield guard: frozen \(Int((Self.monotonic() - started) * 1000)) ms after 'hum shield add' began")
        #expect(try games.shields()?.first?["state"] as? String == "up")
        // Another user's copy is never touched, however long the guard looks.
        #expect(!eventually(within: 1.5) { Self.state(theirs) == "T" }, "another user's process was frozen")
        // A program started while the shield is up is found by the guard's once-a-second look.
        let late = try games.start()
        let lateStarted = Self.monotonic()
        #expect(eventually(within: 2) { Self.state(late) == "T" }, "a program started later was not frozen in 2 s")
        print("shield guard: a program started later frozen after \(Int((Self.monotonic() - lateStarted) * 1000)) ms")

        let off = try games.hum("shield", "off", "games", "--for", "1h")
        #expect(off.code == 0, "\(off.err)")
        #expect(eventually(within: 2) { Self.state(mine) == "S" }, "not thawed by the off")
        #expect(try games.shields()?.first?["state"] as? String == "off")
        #expect(try games.hum("shield", "on", "games").code == 0)
        #expect(eventually(within: 2) { Self.state(mine) == "T" }, "not frozen again by on")

        // Stopping the player on purpose thaws what it froze.
        let stop = try games.hum("ctl", "stop")
        #expect(stop.code == 0, "\(stop.err)")
        #expect(eventually(within: 5) { Self.state(mine) == "S" }, "still frozen after the player stopped")
        if let pid = player { #expect(eventually(within: 5) { Self.ended(pid) }, "the player did not stop") }
        #expect(Self.state(theirs) == "S")
    }

    @Test func aPassLiftsTheShieldAndItRelocksAtTheDeadline() throws {
        let games = try Games()
        let mine = try games.start()
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        #expect(try games.hum("ledger", "adjust", "+10m", "--reason", "test").code == 0)
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { Self.state(mine) == "T" })

        // Refused, nothing held: no such shield, and a shield that is off.
        let nope = try games.hum("pass", "2s", "--on", "nope")
        #expect(nope.code == 3 && nope.err.contains("there is no shield \"nope\""), "\(nope.err)")

        let asked = Self.monotonic()
        let pass = try games.hum("pass", "2s", "--on", "games")
        let replied = Self.monotonic()
        #expect(pass.code == 0, "\(pass.err)")
        #expect(pass.err.contains("the shield games is lifted until"), "\(pass.err)")
        #expect(Self.state(mine).map { $0 != "T" } == true, "not thawed when the pass returned")
        let lifted = try games.shields()?.first
        #expect(lifted?["state"] as? String == "lifted" && lifted?["until"] is String, "\(String(describing: lifted))")
        // It runs for the whole 2 s paid for (the lift's end is precise, not a whole second of the wall clock), and
        // is frozen again within 1 s after. The programs resume between the ask and the reply, so the 2 s are
        // counted from the ask (a lower bound of the time it ran) and the 1 s from the reply (an upper one).
        let frozenAt = waitFor(within: 4, pausingAtMost: 0.01) { Self.state(mine) == "T" ? Self.monotonic() : nil }
        #expect(frozenAt != nil, "not frozen again after the lift")
        let fromAsk = (frozenAt ?? 0) - asked
        let fromReply = (frozenAt ?? 0) - replied
        print(
            "shield guard: a 2 s lift frozen again \(Int(fromAsk * 1000)) ms after the ask, \(Int(fromReply * 1000)) ms after the reply"
        )
        #expect(fromAsk >= 2.0 && fromReply < 3.0, "frozen \(fromAsk) s after the ask, \(fromReply) s after the reply")
        #expect(eventually(within: 2) { (try? games.hum("ledger").out.contains("2s used")) == true })
        let again = try games.hum("shield", "off", "games", "--for", "1h")
        #expect(again.code == 0)
        let whileOff = try games.hum("pass", "2s", "--on", "games")
        #expect(whileOff.code == 3 && whileOff.err.contains("is off until"), "\(whileOff.err)")

        // No player, no guard: refused, nothing held.
        #expect(try games.hum("ctl", "stop").code == 0)
        if let pid = player { #expect(eventually(within: 5) { Self.ended(pid) }) }
        let bank = try games.hum("bank").out
        let unguarded = try games.hum("pass", "2s", "--on", "games")
        #expect(unguarded.code == 3 && unguarded.err.contains("no hum player runs"), "\(unguarded.err)")
        #expect(try games.hum("bank").out == bank, "something was held")
    }

    @Test func passEndRelocksAtOnceAndReturnsTheRest() throws {
        let games = try Games()
        let mine = try games.start()
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        #expect(try games.hum("ledger", "adjust", "+10m", "--reason", "test").code == 0)
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { Self.state(mine) == "T" })
        let none = try games.hum("pass", "end")
        #expect(none.code == 3 && none.err.contains("no lift runs"), "\(none.err)")

        #expect(try games.hum("pass", "60s", "--on", "games").code == 0)
        #expect(Self.state(mine).map { $0 != "T" } == true, "not thawed when the lift opened")
        #expect(try Self.balance(games) == 540, "60 s held")
        usleep(500_000)
        let asked = Self.monotonic()
        let end = try games.hum("pass", "end")
        #expect(end.code == 0, "\(end.err)")
        // Frozen again when the command returns, and the rest is back in the bank (at most 2 s used).
        #expect(eventually(within: 0.5) { Self.state(mine) == "T" }, "not frozen again by hum pass end")
        print("shield guard: 'hum pass end' refroze in \(Int((Self.monotonic() - asked) * 1000)) ms")
        let balance = try Self.balance(games) ?? 0
        #expect(balance >= 598 && balance < 600, "balance \(balance)")
        #expect((try games.shields()?.first?["state"] as? String) == "up")

        // With --forfeit the rest stays spent.
        #expect(try games.hum("pass", "60s", "--forfeit", "--on", "games").code == 0)
        #expect(Self.state(mine).map { $0 != "T" } == true, "not thawed when the lift opened")
        #expect(try games.hum("pass", "end", "--on", "games").code == 0)
        #expect(Self.state(mine) == "T")
        #expect(try Self.balance(games) == balance - 60)
    }

    static func balance(_ games: Games) throws -> Int? {
        (json(try games.hum("bank", "--json").out) as? [String: Any])?["balance_seconds"] as? Int
    }

    @Test func anEmergencyLiftsTheShieldFromTheReserve() throws {
        let games = try Games()
        let mine = try games.start()
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { Self.state(mine) == "T" })
        // Nothing banked: a pass is refused, the reserve is not.
        #expect(try games.hum("pass", "2s", "--on", "games").code == 3)
        let reserve = try Self.bank(games, "emergency_left_seconds")
        let draw = try games.hum("emergency", "2s", "--reason", "test", "--on", "games")
        #expect(draw.code == 0, "\(draw.err)")
        #expect(draw.err.contains("the shield games is lifted until"), "\(draw.err)")
        #expect(Self.state(mine).map { $0 != "T" } == true, "not thawed when the emergency returned")
        #expect(try Self.bank(games, "emergency_left_seconds") == reserve.map { $0 - 2 })
        #expect(eventually(within: 4) { Self.state(mine) == "T" }, "not frozen again after the emergency lift")
        // Ended early with 'hum pass end': up at once, and a draw is not returned.
        #expect(try games.hum("emergency", "60s", "--reason", "test", "--on", "games").code == 0)
        #expect(Self.state(mine).map { $0 != "T" } == true, "not thawed when the lift opened")
        let twice = try games.hum("emergency", "60s", "--reason", "test", "--on", "games")
        #expect(twice.code == 3 && twice.err.contains("already lifted"), "\(twice.err)")
        #expect(try games.hum("pass", "end").code == 0)
        #expect(eventually(within: 0.5) { Self.state(mine) == "T" })
        #expect(try Self.bank(games, "emergency_left_seconds") == reserve.map { $0 - 62 })
        let both = try games.hum("emergency", "1m", "--reason", "x", "--on", "games", "--", "true")
        #expect(both.code == 2, "\(both.err)")
    }

    /// A pass's command, and an emergency draw's command, run while the shield is up; another copy stays frozen.
    @Test(arguments: [["pass", "5m"], ["emergency", "5m", "--reason", "test"]])
    func aPassOwnCommandTreeIsNeverFrozen(_ words: [String]) throws {
        let games = try Games()
        let outside = try games.start()
        var player: pid_t? = nil
        var pass: pid_t? = nil
        var inside: pid_t? = nil
        defer {
            if let inside { kill(inside, SIGKILL) }
            if let pass { waitFor(pass) }
            games.cleanUp(player: player)
        }
        #expect(try games.hum("ledger", "adjust", "+10m", "--reason", "test").code == 0)
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { Self.state(outside) == "T" })
        pass = try spawnBinary(
            words + ["--", "\(games.folder)/\(games.name)", "600"], environment: games.box.environment,
            stdout: games.folder + "/pass.out", stderr: games.folder + "/pass.err")
        inside = waitFor(within: 5) { Self.child(of: pass ?? 0, named: games.name) }
        #expect(
            inside != nil,
            "the pass did not start its command: \((try? String(contentsOfFile: games.folder + "/pass.err", encoding: .utf8)) ?? "")"
        )
        // The guard looks once a second: over three looks the pass's game runs while the other stays frozen.
        usleep(3_000_000)  // a wait for something not to happen
        #expect(inside.map { Self.state($0) != "T" } == true, "the \(words[0])'s own command was frozen")
        #expect(Self.state(outside) == "T")
    }

    /// A child of `parent` running the program `name` (fields of /proc/PID/stat after the name: state, ppid).
    static func child(of parent: pid_t, named name: String) -> pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry),
                let line = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = line.firstIndex(of: "("), let close = line.lastIndex(of: ")")
            else { continue }
            let comm = line[line.index(after: open)..<close]
            let fields = line[line.index(close, offsetBy: 2)...].split(separator: " ")
            if comm == name.prefix(15), fields.count > 1, pid_t(fields[1]) == parent { return pid }
        }
        return nil
    }

    static func bank(_ games: Games, _ field: String) throws -> Int? {
        (json(try games.hum("bank", "--json").out) as? [String: Any])?[field] as? Int
    }

    @Test func aPlayerKilledDuringALiftIsMadeUpForByTheWatchdog() throws {
        let games = try Games()
        let mine = try games.start()
        var player: pid_t? = nil
        defer { games.cleanUp(player: player) }
        #expect(try games.hum("ledger", "adjust", "+10m", "--reason", "test").code == 0)
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { Self.state(mine) == "T" })

        let asked = Self.monotonic()
        let pass = try games.hum("pass", "3s", "--on", "games")
        #expect(pass.code == 0, "\(pass.err)")
        #expect(Self.state(mine).map { $0 != "T" } == true, "not thawed when the lift opened")
        if let pid = player { kill(pid, SIGKILL) }
        // Nothing guards the shield any more but the lift's watchdog: it freezes again at the deadline.
        #expect(eventually(within: 5) { Self.state(mine) == "T" }, "not frozen again after the player died")
        let late = Self.monotonic() - (asked + 3)
        print("shield watchdog: frozen again \(Int(late * 1000)) ms after the deadline of a lift whose player died")
        #expect(late < 1.5)
        #expect(eventually(within: 5) { (try? games.hum("ledger").out.contains("3s used")) == true })
    }
}

/// Stops the player a `hum shield add` of `box` started, if any (by its pid, after asking it to stop).
func stopShieldPlayer(_ box: Sandbox) {
    guard let run = try? runBinary(["status", "--json"], environment: box.environment),
        let pid = ((json(run.out) as? [String: Any])?["pid"] as? Int).map({ pid_t($0) })
    else { return }
    _ = try? runBinary(["ctl", "stop"], environment: box.environment)
    if !eventually(within: 5, { ShieldGuardTests.ended(pid) }) { kill(pid, SIGKILL) }
}
