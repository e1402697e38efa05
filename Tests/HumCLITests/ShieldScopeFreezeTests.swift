import Foundation
import HumSystem
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A program that the desktop started in a systemd scope of its own (`app-….scope` under `user@UID.service`) is
/// frozen through the scope's `cgroup.freeze`, not by a signal: the test makes such a cgroup under the machine's
/// cgroup2 hierarchy (`/hum-test-…/user@0.service/app.slice/app-fakegame-….scope`; there is no user manager here),
/// moves a copy of `sleep` into it, and removes it all at the end.
@Suite(.serialized) struct ShieldScopeFreezeTests {
    typealias Games = ShieldGuardTests.Games

    /// `frozen 1` in the cgroup's own `cgroup.events`, read by the test itself.
    static func frozen(_ folder: String) -> Bool {
        ((try? String(contentsOfFile: folder + "/cgroup.events", encoding: .utf8)) ?? "").contains("frozen 1")
    }

    @Test func aProgramInItsOwnScopeIsFrozenThroughTheScopeAndRelockedByTheWatchdog() throws {
        let root = try #require(CgroupScopes.root, "no cgroup2 hierarchy on this machine")
        let games = try Games()
        let base = root + "/hum-test-" + UUID().uuidString.prefix(8).lowercased()
        let folders = [
            base, base + "/user@0.service", base + "/user@0.service/app.slice",
            base + "/user@0.service/app.slice/app-\(games.name)-4242.scope",
        ]
        let scope = folders[3]
        try FileManager.default.createDirectory(atPath: scope, withIntermediateDirectories: true)
        var player: pid_t? = nil
        defer {
            games.cleanUp(player: player)
            for folder in folders.reversed() { _ = eventually(within: 5) { rmdir(folder) == 0 || errno == ENOENT } }
        }
        let game = try games.start()
        try "\(game)\n".write(toFile: scope + "/cgroup.procs", atomically: false, encoding: .utf8)
        #expect(try String(contentsOfFile: "/proc/\(game)/cgroup", encoding: .utf8).contains("app-\(games.name)"))

        #expect(try games.hum("ledger", "adjust", "+10m", "--reason", "test").code == 0)
        #expect(try games.hum("shield", "add", "games", "--app", games.name).code == 0)
        player = try games.playerPID()
        #expect(eventually(within: 2) { Self.frozen(scope) }, "the scope was not frozen")
        // Held by the cgroup, not by SIGSTOP: the process reads `S`, and stays frozen over the next looks (the plan
        // reads the scope's state, so it is not frozen again and again).
        #expect(processState(game) == "S")

        let pass = try games.hum("pass", "2s", "--on", "games")
        #expect(pass.code == 0, "\(pass.err)")
        let asked = ShieldGuardTests.monotonic()
        #expect(!Self.frozen(scope), "not thawed when the lift opened")
        if let pid = player { kill(pid, SIGKILL) }
        // Nothing guards the shield any more but the lift's watchdog: it freezes the scope again at the deadline.
        #expect(eventually(within: 5) { Self.frozen(scope) }, "not frozen again after the player died")
        let late = ShieldGuardTests.monotonic() - (asked + 2)
        print("shield scope: frozen again \(Int(late * 1000)) ms after the deadline of a lift whose player died")
        #expect(late < 1.5)
    }
}
