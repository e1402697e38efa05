import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumCLI

/// `hum render` interrupted by a signal removes its temporary file (hundreds of MB for a long mix) and leaves the
/// named file as it was.
@Suite(.serialized) struct RenderInterruptTests {
    func entries(_ dir: String) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] }

    func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : -1
    }

    /// Waits until the render's temporary file holds some audio; returns its name (nil when the render ended
    /// first, or after 30 s).
    func waitForTemporary(in dir: String, pid: pid_t) -> String? {
        let found = waitFor(within: 30) { () -> String?? in
            if let temp = entries(dir).first(where: { $0.contains(".tmp-") }), size(dir + "/" + temp) > 1 << 20 {
                return .some(temp)
            }
            var status: Int32 = 0
            return waitpid(pid, &status, WNOHANG) == pid ? .some(nil) : nil
        }
        return found ?? nil
    }

    /// The threads of the process (but the one that waits for the signals) that do not block all of them: none
    /// may, or it could die of one before the watching thread has removed the file. (While a thread waits in
    /// sigwait, the kernel shows the signals it waits for as unblocked in it.) A thread that ends while it is being
    /// read is left out. Nil when the watching thread is not there.
    func threadsNotBlocking(_ signals: [Int32], pid: pid_t) -> [String]? {
        var watchers = 0
        var open: [String] = []
        for task in entries("/proc/\(pid)/task") {
            let status = contents("/proc/\(pid)/task/\(task)/status")
            let fields = Dictionary(
                status.split(separator: "\n").compactMap { line -> (String, String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (
                        String(line[..<colon]),
                        line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    )
                }, uniquingKeysWith: { a, _ in a })
            guard let name = fields["Name"], let blocked = fields["SigBlk"].flatMap({ UInt64($0, radix: 16) }) else {
                continue  // gone
            }
            if name == InterruptCleanup.threadName {
                watchers += 1
                continue
            }
            if signals.contains(where: { blocked & (1 << UInt64($0 - 1)) == 0 }) { open.append("\(task) \(name)") }
        }
        return watchers == 1 ? open : nil
    }

    /// `threadsNotBlocking`, asked again for a while if the watching thread is not seen yet (a loaded machine may
    /// not have run it far enough to name itself); with the threads' names and masks for the message.
    func blockingReport(_ signals: [Int32], pid: pid_t) -> (open: [String]?, threads: String) {
        if let open = waitFor(within: 2, { threadsNotBlocking(signals, pid: pid) }) { return (open, "") }
        let threads = entries("/proc/\(pid)/task").map { task in
            let status = contents("/proc/\(pid)/task/\(task)/status").split(separator: "\n")
            return status.filter { $0.hasPrefix("Name:") || $0.hasPrefix("SigBlk:") || $0.hasPrefix("State:") }
                .joined(separator: " ")
        }
        return (nil, threads.joined(separator: "; "))
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1])
    func aSignalRemovesTheTemporaryFile(signal: Int32) throws {
        let s = Sandbox()
        let dir = s.root + "/out"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let target = dir + "/long.wav"
        try "old".write(toFile: target, atomically: false, encoding: .utf8)
        let pid = try spawnBinary(
            ["render", "rain", "brown", "--duration", "3h", "-o", target], environment: s.environment,
            stdout: s.root + "/render.out", stderr: s.root + "/render.err")
        let temp = waitForTemporary(in: dir, pid: pid)
        #expect(temp != nil, "no temporary file appeared: \(contents(s.root + "/render.err"))")
        let report = blockingReport([SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1], pid: pid)
        #expect(report.open == [], "\(report.threads)")
        kill(pid, signal)
        let status = waitFor(pid)
        #expect(status == 128 + signal, "ended with \(status)")
        #expect(entries(dir) == ["long.wav"], "\(entries(dir))")
        #expect(contents(target) == "old")
    }

    /// A render that completes leaves exactly its file.
    @Test func aCompletedRenderLeavesOnlyItsFile() throws {
        let s = Sandbox()
        let dir = s.root + "/out"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let r = try runBinary(
            ["render", "rain", "--duration", "1s", "-o", dir + "/short.flac"], environment: s.environment)
        #expect(r.code == 0, "\(r.err)")
        #expect(entries(dir) == ["short.flac"])
        #expect(size(dir + "/short.flac") > 1000)
    }
}
