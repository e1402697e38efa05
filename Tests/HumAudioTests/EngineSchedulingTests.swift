import Foundation
import HumCore
import Testing

@testable import HumAudio

#if canImport(Glibc)
    import Glibc
#endif

/// A sink that notes, from inside the engine thread, how the kernel schedules that thread.
final class SchedulingProbeSink: AudioSink, @unchecked Sendable {
    // @unchecked: written by the engine thread on its first write, read after the engine finished.
    let sampleRate = 48000
    let periodFrames = 960
    private(set) var observed: ObservedScheduling?

    func open() throws(AudioSinkError) {}

    func write(_ frames: UnsafePointer<Float>, count: Int) -> AudioSinkWriteResult {
        if observed == nil { observed = ObservedScheduling.ofCurrentThread() }
        return .written
    }

    func finish() {}
    func close() {}
}

/// How the kernel runs a thread, read back from the thread itself.
struct ObservedScheduling: Equatable, CustomStringConvertible {
    var policy: Int32
    var priority: Int32
    var nice: Int32

    static func ofCurrentThread() -> ObservedScheduling {
        var policy: Int32 = -1
        var parameters = sched_param()
        let result = pthread_getschedparam(pthread_self(), &policy, &parameters)
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        return ObservedScheduling(
            policy: result == 0 ? policy : -1, priority: parameters.sched_priority, nice: errno == 0 ? nice : 99)
    }

    var description: String { "policy \(policy) priority \(priority) nice \(nice)" }

    /// Whether `reported` says what the thread really runs with; `creatorNice` is the nice value it started with.
    func matches(_ reported: ThreadScheduling, creatorNice: Int32) -> Bool {
        switch reported {
        case .realtime(let p, let priority):
            policy == (p == .fifo ? SCHED_FIFO : SCHED_RR) && Int(self.priority) == priority
        case .niced(let value, _): policy == SCHED_OTHER && Int(nice) == value
        case .normal: policy == SCHED_OTHER && nice == creatorNice
        }
    }
}

@Suite struct EngineSchedulingTests {
    /// Runs an engine over a short mix and returns what it reported and what its thread ran with.
    static func runEngine() -> (reported: ThreadScheduling, observed: ObservedScheduling?, creatorNice: Int32) {
        let loop = LoopBuffer(interleaved: sine(frequency: 300, rate: 48000, frames: 4800), channels: 1)
        let controls = MixerControls(volumes: [100])
        controls.scheduleEnd(atFrame: 9600, fadeFrames: 480)
        let sink = SchedulingProbeSink()
        let engine = PlaybackEngine(
            mixer: Mixer(sampleRate: 48000, tracks: [.init(loop: loop)], controls: controls), sink: sink)
        let creatorNice = ObservedScheduling.ofCurrentThread().nice
        engine.start()
        let reported = engine.scheduling  // known once start returned
        _ = engine.wait(timeout: 10)
        #expect(engine.scheduling == reported)
        return (reported, sink.observed, creatorNice)
    }

    /// Whether this process may take real-time scheduling: CAP_SYS_NICE, or a RLIMIT_RTPRIO above 0.
    static var realtimeIsAllowed: Bool {
        hasCapSysNice || SchedulingRequest.softLimit(__RLIMIT_RTPRIO.rawValue) > 0
    }

    static var hasCapSysNice: Bool {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
            let bits = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return bits & (1 << 23) != 0  // CAP_SYS_NICE
    }

    @Test func theEngineThreadRunsAsReported() throws {
        let (reported, observed, creatorNice) = Self.runEngine()
        let thread = try #require(observed)
        #expect(thread.matches(reported, creatorNice: creatorNice), "reported \(reported), the thread runs \(thread)")
        if Self.realtimeIsAllowed {
            // Allowed here, so granted: SCHED_FIFO at the engine's priority (or RLIMIT_RTPRIO, if lower).
            let limit = SchedulingRequest.softLimit(__RLIMIT_RTPRIO.rawValue)
            let expected = Self.hasCapSysNice || limit >= 4 ? 4 : Int(limit)
            #expect(reported == .realtime(policy: .fifo, priority: expected))
            #expect(reported.description == "real-time (SCHED_FIFO, priority \(expected))")
        }
    }

    static let childReport = "HUM_TEST_SCHEDULING_REPORT"

    /// In a child process of this test binary that may not take real-time scheduling (CAP_SYS_NICE dropped,
    /// RLIMIT_RTPRIO at 0), the engine still plays, at normal or raised priority, and says so truthfully.
    @Test func fallsBackQuietlyWhereRealtimeIsRefused() throws {
        if let report = ProcessInfo.processInfo.environment[Self.childReport] {
            // The child's part.
            var limit = rlimit()
            #expect(getrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &limit) == 0)
            limit.rlim_cur = 0
            #expect(setrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &limit) == 0)
            let (reported, observed, creatorNice) = Self.runEngine()
            let lines = [
                reported.description, observed.map { "\($0)" } ?? "not observed",
                observed?.matches(reported, creatorNice: creatorNice) == true ? "truthful" : "untruthful",
            ]
            try (lines.joined(separator: "\n") + "\n").write(toFile: report, atomically: true, encoding: .utf8)
            return
        }
        let dir = temporaryDirectory()
        let report = dir + "/report"
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var arguments = [
            executable, "--testing-library", "swift-testing", "--filter",
            "EngineSchedulingTests/fallsBackQuietlyWhereRealtimeIsRefused",
        ]
        if Self.hasCapSysNice {
            // As root (or with the capability), the kernel grants real-time whatever the limit: drop it.
            arguments = ["/usr/bin/setpriv", "--inh-caps=-sys_nice", "--bounding-set=-sys_nice", "--"] + arguments
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: arguments[0])
        child.arguments = Array(arguments.dropFirst())
        child.environment = ProcessInfo.processInfo.environment.merging([Self.childReport: report]) { $1 }
        _ = FileManager.default.createFile(atPath: dir + "/output", contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/output"))
        child.standardOutput = output
        child.standardError = output
        try child.run()
        child.waitUntilExit()
        try output.close()
        let log = (try? String(contentsOfFile: dir + "/output", encoding: .utf8)) ?? ""
        #expect(child.terminationStatus == 0, "the child's run:\n\(log)")
        let lines = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(lines.count == 3)
        #expect(
            lines[0].contains(
                "real-time refused (pthread_setschedparam SCHED_FIFO 4: operation not permitted; RLIMIT_RTPRIO is 0)"),
            "\(lines[0])")
        #expect(lines[0].hasPrefix("normal priority; ") || lines[0].hasPrefix("raised priority (nice "))
        #expect(lines[1].hasPrefix("policy \(SCHED_OTHER) "))
        #expect(lines[2] == "truthful")
    }
}

/// The decision alone, against scripted answers from the kernel.
@Suite struct SchedulingRequestTests {
    /// What was asked for, in order: "fifo 4", "nice -10".
    final class Kernel {
        var asked: [String] = []
        var realtimeAnswer: Int32 = 0
        var niceAnswer: Int32 = 0
    }

    static let normalThread = SchedulingRequest.Current(policy: SCHED_OTHER, priority: 0, nice: 0)

    func decide(
        current: SchedulingRequest.Current = normalThread, rtprio: rlim_t, nice: rlim_t, _ kernel: Kernel
    ) -> ThreadScheduling {
        SchedulingRequest.decide(
            current: current, limits: .init(realtimePriority: rtprio, nice: nice), priorityRange: 1...99,
            setRealtime: {
                kernel.asked.append("fifo \($0)")
                return kernel.realtimeAnswer
            },
            setNice: {
                kernel.asked.append("nice \($0)")
                return kernel.niceAnswer
            })
    }

    @Test func asksForALowRealtimePriorityWithinTheLimit() {
        let kernel = Kernel()
        #expect(decide(rtprio: 95, nice: 0, kernel) == .realtime(policy: .fifo, priority: 4))
        #expect(decide(rtprio: rlim_t.max, nice: 0, kernel) == .realtime(policy: .fifo, priority: 4))
        #expect(decide(rtprio: 2, nice: 0, kernel) == .realtime(policy: .fifo, priority: 2))
        #expect(kernel.asked == ["fifo 4", "fifo 4", "fifo 2"])
    }

    @Test func aLimitOfZeroStillAsksForPrivilegeMayGrantIt() {
        let kernel = Kernel()
        #expect(decide(rtprio: 0, nice: 0, kernel) == .realtime(policy: .fifo, priority: 4))
        #expect(kernel.asked == ["fifo 4"])
    }

    @Test func refusedRealtimeFallsBackToARaisedPriorityWithinRLIMIT_NICE() {
        let kernel = Kernel()
        kernel.realtimeAnswer = EPERM
        let reason =
            "real-time refused (pthread_setschedparam SCHED_FIFO 4: operation not permitted; RLIMIT_RTPRIO is 0)"
        #expect(decide(rtprio: 0, nice: 30, kernel) == .niced(-10, reason: reason))
        #expect(decide(rtprio: 0, nice: rlim_t.max, kernel) == .niced(-10, reason: reason))
        #expect(decide(rtprio: 0, nice: 25, kernel) == .niced(-5, reason: reason))
        #expect(kernel.asked == ["fifo 4", "nice -10", "fifo 4", "nice -10", "fifo 4", "nice -5"])
        #expect(
            ThreadScheduling.niced(-5, reason: reason).description
                == "raised priority (nice -5); real-time refused (pthread_setschedparam SCHED_FIFO 4: operation not "
                + "permitted; RLIMIT_RTPRIO is 0)")
    }

    @Test func whenBothAreRefusedTheThreadRunsNormallyAndSaysWhy() {
        let kernel = Kernel()
        kernel.realtimeAnswer = EPERM
        kernel.niceAnswer = EACCES
        let scheduling = decide(rtprio: 0, nice: 0, kernel)
        #expect(
            scheduling
                == .normal(
                    reason: "real-time refused (pthread_setschedparam SCHED_FIFO 4: operation not permitted; "
                        + "RLIMIT_RTPRIO is 0), nice -10 refused (setpriority: permission denied; RLIMIT_NICE is 0)"))
        #expect(scheduling.description.hasPrefix("normal priority; real-time refused ("))
        #expect(kernel.asked == ["fifo 4", "nice -10"])
    }

    @Test func aThreadAlreadyRunningRealtimeOrRaisedIsLeftAlone() {
        let kernel = Kernel()
        let rr = SchedulingRequest.Current(policy: SCHED_RR, priority: 30, nice: 0)
        #expect(decide(current: rr, rtprio: 0, nice: 0, kernel) == .realtime(policy: .roundRobin, priority: 30))
        kernel.realtimeAnswer = EPERM
        let raised = SchedulingRequest.Current(policy: SCHED_OTHER, priority: 0, nice: -15)
        guard case .niced(-15, _) = decide(current: raised, rtprio: 0, nice: 0, kernel) else {
            Issue.record("a nice value of -15 is not lowered to -10")
            return
        }
        // A thread started at a lower priority (nice 5) is raised as far as asked.
        let lowered = SchedulingRequest.Current(policy: SCHED_OTHER, priority: 0, nice: 5)
        guard case .niced(-10, _) = decide(current: lowered, rtprio: 0, nice: 30, kernel) else {
            Issue.record("nice 5 is raised to -10")
            return
        }
        #expect(kernel.asked == ["fifo 4", "fifo 4", "nice -10"])
    }
}
