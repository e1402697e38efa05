import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumSystem

/// A copy of /bin/sleep under a game's name, in a folder of its own that every user may run from; `tag` keeps the
/// name of each test's copy its own among every process of the machine (other tests, other test runs), so that a
/// plan made from the whole of /proc only ever names this test's processes.
final class FakeGame {
    let folder: String
    let name: String
    var path: String { folder + "/" + name }
    private var children: [ChildProcess] = []

    init(tag: Character) throws {
        folder = NSTemporaryDirectory() + "hum-shield-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        name = "fakegame\(tag)\(getpid() % 100_000)"
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: path)
    }

    /// Starts the game in a process group of its own, optionally through a wrapper that execs it (setpriv).
    func start(through wrapper: [String] = [], environment: [String] = []) throws -> ChildProcess {
        let child = try spawn(wrapper + [path, "300"], environment: environment)
        children.append(child)
        // Wait for the exec: the process shows the game's name.
        eventually(within: 5) { ProcStat.read(child.pid)?.comm == name }
        return child
    }

    /// A copy just written can be "busy" for a moment (another test's fork may still hold it open for writing): the
    /// start is tried again then.
    private func spawn(_ argv: [String], environment: [String]) throws -> ChildProcess {
        let options = ChildProcess.Options(environment: environment)
        var tries = 0
        while true {
            let result = Result { () throws(ProcessError) -> ChildProcess in
                try ChildProcess(argv: argv, options: options)
            }
            if case .failure(let error) = result, error.message.contains("busy"), tries < 50 {
                tries += 1
                usleep(20_000)
                continue
            }
            return try result.get()
        }
    }

    deinit {
        for child in children {
            kill(child.pid, SIGKILL)
            child.reap()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
}

/// The state letter of /proc/PID/stat, waited for up to `within` seconds.
func state(of pid: Int32, becomes expected: Character, within: Double = 2) -> Bool {
    eventually(within: within) { ProcStat.read(pid)?.state == expected }
}

@Suite struct ProcessFreezerTests {
    let created = Timestamp(epochSeconds: 0, offsetSeconds: 0)

    func plan(_ shields: [Shield], _ status: ShieldStatus, frozen: Set<ProcessIdentity> = [], exempt: Set<Int32> = [])
        -> (ShieldPlan, [ProcessFacts])
    {
        let processes = ProcessFactsReader().snapshot()
        let safety = ShieldSafety(me: ProcessFactsReader.me(), among: processes)
        let wanted = Dictionary(uniqueKeysWithValues: shields.map { ($0.name, status) })
        return (
            ShieldPlan.make(
                shields: shields, status: wanted, processes: processes, frozen: frozen, exempt: exempt, safety: safety),
            processes
        )
    }

    @Test func theReaderSeesAGameAsItIs() throws {
        let game = try FakeGame(tag: "r")
        let child = try game.start(environment: [
            "GIO_LAUNCHED_DESKTOP_FILE=/usr/share/applications/org.example.Game.desktop"
        ])
        let facts = try #require(ProcessFactsReader().snapshot().first { $0.pid == child.pid })
        #expect(facts.comm == game.name && facts.exe == game.name)
        #expect(facts.cmdline == [game.path, "300"])
        #expect(facts.pgid == child.pid && facts.ppid == getpid() && facts.uid == getuid())
        #expect(facts.sid == getsid(0) && !facts.isKernelThread && facts.start > 0)
        #expect(facts.desktopID == "org.example.Game")
        // Kernel threads are known as such (kthreadd is pid 2 where the kernel shows it).
        if let kthreadd = ProcessFactsReader().read(2) { #expect(kthreadd.isKernelThread) }
    }

    @Test func aGameIsFrozenAndThawedWithItsGroup() throws {
        let game = try FakeGame(tag: "f")
        let child = try game.start()
        let shields = [Shield(name: "games", targets: [.app(game.name)], created: created)]
        let (up, _) = plan(shields, .up)
        #expect(up.freeze.map(\.processes).joined().contains { $0.pid == child.pid })
        #expect(up.freeze.contains { if case .group(child.pid, _) = $0 { true } else { false } })
        let report = ProcessFreezer().carryOut(up)
        #expect(report.failures.isEmpty && report.frozen.count == up.freeze.count)
        #expect(state(of: child.pid, becomes: "T"), "the game was not stopped")

        // Planned again while up: nothing to do.
        let (again, _) = plan(shields, .up, frozen: up.frozen)
        #expect(again.isEmpty)

        let (lifted, _) = plan(shields, .lifted(until: 0, lift: "L"), frozen: up.frozen)
        #expect(lifted.thaw.map(\.processes).joined().contains { $0.pid == child.pid })
        let thawed = ProcessFreezer().carryOut(lifted)
        #expect(thawed.failures.isEmpty && !thawed.thawed.isEmpty)
        #expect(state(of: child.pid, becomes: "S"), "the game did not run again")
    }

    @Test func anotherUsersGameIsNeverTouched() throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        let game = try FakeGame(tag: "o")
        let mine = try game.start()
        let theirs = try game.start(through: [
            "/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
        ])
        // The command line of another user's process is not read; its command name (from stat) is, and matches.
        let shields = [Shield(name: "games", targets: [.match(game.name), .app(game.name)], created: created)]
        let (up, processes) = plan(shields, .up)
        let facts = try #require(processes.first { $0.pid == theirs.pid })
        #expect(facts.uid == 65534 && facts.comm == game.name)
        #expect(up.untouchable[facts.identity] == .otherUser)
        #expect(!up.freeze.map(\.processes).joined().contains { $0.pid == theirs.pid })
        _ = ProcessFreezer().carryOut(up)
        #expect(state(of: mine.pid, becomes: "T"))
        // Watched for a while: it is never stopped.
        #expect(
            !eventually(within: 0.2) { ProcStat.read(theirs.pid)?.state == "T" }, "another user's process was touched")
    }

    @Test func protectedProcessesAreNeverFrozen() throws {
        // A shield naming this test process (hum's stand-in) and pid 1 plans nothing for them.
        let me = try #require(ProcessFactsReader().read(getpid()))
        let initName = try #require(ProcStat.read(1)).comm
        let shields = [Shield(name: "all", targets: [.app(me.comm), .app(initName)], created: created)]
        let (up, _) = plan(shields, .up)
        #expect(!up.freeze.map(\.processes).joined().contains { $0.pid == getpid() || $0.pid == 1 })
        #expect(up.untouchable[me.identity] == .hum)
        #expect(up.untouchable.values.contains(.initProcess))
        // And the freezer refuses them even when a plan names them (SIGCONT, harmless should it be sent).
        let freezer = ProcessFreezer()
        #expect(freezer.send(SIGCONT, .process(me.identity)) != .done)
        #expect(freezer.send(SIGCONT, .process(ProcessIdentity(pid: 1, start: 0))) != .done)
        #expect(freezer.send(SIGCONT, .group(getpgrp(), members: [me.identity])) != .done)
    }

    @Test func aReusedPidIsNotSignalled() throws {
        let game = try FakeGame(tag: "p")
        let child = try game.start()
        let facts = try #require(ProcessFactsReader().read(child.pid))
        let stale = ProcessIdentity(pid: child.pid, start: facts.start - 1)
        #expect(ProcessFreezer().send(SIGSTOP, .process(stale)) == .gone)
        #expect(ProcessFreezer().send(SIGSTOP, .group(child.pid, members: [stale])) == .gone)
        #expect(!eventually(within: 0.1) { ProcStat.read(child.pid)?.state == "T" }, "a reused pid was signalled")
    }
}
