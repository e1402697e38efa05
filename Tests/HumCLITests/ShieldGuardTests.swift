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
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            posix_spawnattr_setpgroup(&attributes, 0)
            var mask = sigset_t()
            sigemptyset(&mask)
            posix_spawnattr_setsigmask(&attributes, &mask)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))
            let cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
            defer { for p in cargs { free(p) } }
            var pid: pid_t = 0
            var rc: Int32 = 0
            // A copy written a moment ago can be busy for exec (ETXTBSY) while a child another test spawned at that
            // moment still holds the copy's descriptor: that child lets go as soon as it execs.
            _ = eventually(within: 5) {
                rc = posix_spawn(&pid, argv[0], nil, &attributes, cargs, environ)
                return rc != ETXTBSY
            }
            guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
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
    static func state(_ pid: pid_t) -> Character? {
        guard let line = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = line.lastIndex(of: ")")
        else { return nil }
        return line[line.index(close, offsetBy: 2)...].first
    }

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
        #expect(pass.code == 0, "\(pass.err)")
        #expect(pass.err.contains("the shield games is lifted until"), "\(pass.err)")
        #expect(Self.state(mine) == "S", "not thawed when the pass returned")
        let lifted = try games.shields()?.first
        #expect(lifted?["state"] as? String == "lifted" && lifted?["until"] is String, "\(String(describing: lifted))")
        // Frozen again within 1 s of the deadline (the lift's deadline is a whole second of the wall clock, so it
        // may come up to a second before `asked + 2`).
        #expect(eventually(within: 3.5) { Self.state(mine) == "T" }, "not frozen again after the deadline")
        let relocked = Self.monotonic() - (asked + 2)
        print("shield guard: frozen again \(Int(relocked * 1000)) ms after the pass's deadline")
        #expect(relocked < 1.0)
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
        #expect(Self.state(mine) == "S")
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
