import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumSystem

/// The once-a-second look of the shields' guard (`ProcessFactsReader.look`): cheap (only new processes, those asked,
/// the young and a rotating slice are read), yet a process that execs a named program after it was first seen is
/// found: at once while it is young, within `rotation` looks when old.
@Suite(.serialized) struct ProcessFactsReaderTests {
    /// Starts `sh -c SCRIPT` (a shell that later execs the game).
    static func shell(_ script: String) throws -> ChildProcess {
        try ChildProcess(argv: ["/bin/sh", "-c", script])
    }

    @Test func aLookReadsOnlyWhatIsNewOnceEveryProcessIsKnown() throws {
        // No process young: what a look reads besides the new ones is the rotating slice.
        let reader = ProcessFactsReader(readsDesktopIDs: false, youngSeconds: 0)
        let first = reader.looked()
        #expect(reader.reads == first.count, "the first look reads every process")
        // From then on a look reads the command names of a slice (a sixteenth) and what is new (the machine's other
        // processes come and go: a build's compilers).
        var most = 0
        var total = 0
        for _ in 0..<Int(ProcessFactsReader.rotation) {
            let processes = reader.looked()
            most = max(most, reader.reads - reader.changes.count)
            total = max(total, processes.count)
        }
        print("process facts: \(total) processes, at most \(most) read in one look besides the new")
        #expect(most < total / 4, "a look read \(most) of \(total) processes")
        // The facts a look keeps are those a snapshot reads (for the processes that did not change meanwhile).
        let kept = Dictionary(reader.looked().map { ($0.identity, $0) }, uniquingKeysWith: { a, _ in a })
        let fresh = ProcessFactsReader(readsDesktopIDs: false).snapshot()
        let me = try #require(fresh.first { $0.pid == getpid() })
        #expect(kept[me.identity]?.cmdline == me.cmdline && kept[me.identity]?.ppid == me.ppid)
    }

    @Test func aYoungProcessThatExecsIsSeenAsItsNewProgramAtTheNextLook() throws {
        let game = try FakeGame(tag: "y")
        let reader = ProcessFactsReader(readsDesktopIDs: false)
        reader.look()
        let child = try Self.shell("sleep 0.5; exec \(game.path) 300")
        defer {
            kill(child.pid, SIGKILL)
            child.reap()
        }
        let before = reader.looked().first { $0.pid == child.pid }
        #expect(before?.comm == "sh", "\(String(describing: before))")
        #expect(eventually(within: 3) { ProcStat.read(child.pid)?.comm == game.name })
        let after = reader.looked().first { $0.pid == child.pid }
        #expect(after?.comm == game.name && after?.exe == game.name, "\(String(describing: after))")
        #expect(after?.cmdline == [game.path, "300"])
    }

    @Test func anOldProcessThatExecsIsFoundWithinTheRotation() throws {
        let game = try FakeGame(tag: "o")
        // Young for half a second: the shell execs the game 1.5 s after it started, when it is old.
        let reader = ProcessFactsReader(readsDesktopIDs: false, youngSeconds: 0.5)
        let child = try Self.shell("sleep 1.5; exec \(game.path) 300")
        defer {
            kill(child.pid, SIGKILL)
            child.reap()
        }
        #expect(eventually(within: 2) { ProcStat.read(child.pid)?.comm == "sh" })
        #expect(reader.looked().first { $0.pid == child.pid }?.comm == "sh")
        #expect(eventually(within: 3) { ProcStat.read(child.pid)?.comm == game.name })
        var looks = 0
        var seen: ProcessFacts? = nil
        while looks < Int(ProcessFactsReader.rotation) {
            looks += 1
            seen = reader.looked().first { $0.pid == child.pid }
            if seen?.comm == game.name { break }
        }
        #expect(seen?.comm == game.name && seen?.exe == game.name, "not found in \(looks) looks")
        // Asked for (the guard asks for what the shields name), a process is read at every look.
        #expect(reader.looked(refreshing: [child.pid]).first { $0.pid == child.pid }?.cmdline == [game.path, "300"])
    }

    @Test func theKernelsLastPidMovesWithEveryProcessMade() throws {
        let before = try #require(ProcessFactsReader.lastPid())
        let child = try Self.shell("exit 0")
        child.reap()
        let after = try #require(ProcessFactsReader.lastPid())
        #expect(after != before && (after >= child.pid || after < before), "\(before) → \(after), child \(child.pid)")
    }

    @Test func aLookListsProcOnlyWhenAProcessWasMadeSinceTheLastListing() throws {
        let game = try FakeGame(tag: "l")
        var pid: Int32 = 1
        let reader = ProcessFactsReader(readsDesktopIDs: false, youngSeconds: 0, lastPid: { pid })
        reader.look()
        #expect(reader.skippedListings == 0)
        // Nothing made as far as the (scripted) kernel says: the next look does not list /proc, so a process started
        // meanwhile is not seen; the processes known are still looked at, and those asked for are read.
        let child = try Self.shell("exec \(game.path) 300")
        defer {
            kill(child.pid, SIGKILL)
            child.reap()
        }
        #expect(eventually(within: 2) { ProcStat.read(child.pid)?.comm == game.name })
        let me = getpid()
        let quiet = reader.looked(refreshing: [me])
        #expect(reader.skippedListings == 1)
        #expect(!quiet.contains { $0.pid == child.pid }, "seen without a listing")
        #expect(quiet.contains { $0.pid == me })
        // The last pid moved: listed, and the new process is found.
        pid = 2
        #expect(reader.looked().contains { $0.pid == child.pid && $0.comm == game.name })
        #expect(reader.skippedListings == 1)
    }
}

extension ProcessFactsReader {
    /// A look, and every process as it left them.
    func looked(refreshing: Set<Int32> = []) -> [ProcessFacts] {
        look(refreshing: refreshing)
        return current
    }
}
