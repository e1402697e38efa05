import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumSystem

/// `focus --on-event` hooks and notify-send run through `ChildProcess`: each leads a group of its own, and is
/// stopped as a whole. (The focus session gives a hook 10 s, then SIGTERM, then SIGKILL from 12 s.)
@Suite struct HookProcessTests {
    @Test func aHookIsStoppedWithEverythingItStarted() throws {
        let child = try ChildProcess(argv: ["sh", "-c", "trap '' TERM; sleep \(uniqueSleep("31.209")) & wait"])
        #expect(eventually(within: 3) { commandsRunning(containing: uniqueSleep("31.209")) == 1 }, "the hook never ran")
        let started = Date()
        child.finish(within: 0.3, grace: 0.5)
        #expect(commandsRunning(containing: uniqueSleep("31.209")) == 0, "the hook's background process outlived it")
        #expect(child.exitCode == 128 + SIGKILL)
        #expect(Date().timeIntervalSince(started) < 2.5)
    }

    @Test func aHookIsFinishedOnlyWhenNothingOfItIsLeft() throws {
        let child = try ChildProcess(argv: ["sh", "-c", "sleep \(uniqueSleep("31.210")) & exit 3"])
        #expect(eventually(within: 3) { child.hasExited() } && child.exitCode == 3)
        // The shell is gone, its background process is not: the hook is not finished.
        #expect(!child.finished())
        #expect(commandsRunning(containing: uniqueSleep("31.210")) == 1)
        child.signalGroup(SIGTERM)
        #expect(eventually(within: 3) { child.finished() } && commandsRunning(containing: uniqueSleep("31.210")) == 0)
    }

    @Test func aCommandThatCannotRunIsAProcessFailure() {
        #expect(throws: ProcessError.failure("cannot run \"/nonexistent/hum-test\": No such file or directory")) {
            try ChildProcess(argv: ["/nonexistent/hum-test"])
        }
        let error = ProcessError.failure("x")
        #expect(error.kind == .failure && error.message == "x")
    }
}

/// A command run for its output (an external reviewer, git).
@Suite struct CapturedCommandTests {
    /// The captured-command machinery (an external reviewer, git): the output counts when the command exits, even
    /// while a process it left in the background holds its stdout, which is stopped with the command's group; a
    /// command that closes its stdout but does not exit is still late.
    @Test func aCapturedCommandEndsAtItsExitAndItsGroupIsStopped() throws {
        let folder = NSTemporaryDirectory() + "hum-captured-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let pidFile = folder + "/background.pid"
        let started = Date()
        let answered = try CapturedCommand.run(
            ["/bin/sh", "-c", "read line; echo \"got $line\"; sleep 100 & echo $! > '\(pidFile)'"],
            input: Array("pass\n".utf8), timeout: 30)
        #expect(!answered.timedOut && !answered.tooLong && answered.exitCode == 0)
        #expect(String(decoding: answered.output, as: UTF8.self) == "got pass\n")
        #expect(Date().timeIntervalSince(started) < 15, "at its exit, not at the timeout")
        let pid = try #require(
            Int32(
                (try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(
                    in: .whitespacesAndNewlines) ?? ""))
        #expect(processIsGone(pid), "what it left in the background was stopped")

        let failed = try CapturedCommand.run(["/bin/sh", "-c", "echo no; exit 3"], timeout: 30)
        #expect(!failed.timedOut && failed.exitCode == 3 && failed.output == Array("no\n".utf8))

        let late = try CapturedCommand.run(["/bin/sh", "-c", "echo early; exec >&-; sleep 100"], timeout: 1)
        #expect(late.timedOut, "it closed its stdout, but had not exited in time")
    }
}
