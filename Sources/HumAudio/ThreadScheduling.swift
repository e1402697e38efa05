#if canImport(Glibc)
    import Glibc
#endif

/// How the engine thread is scheduled: what it asked the kernel for and what it was granted.
///
/// The engine asks for real-time scheduling (SCHED_FIFO) at a low real-time priority, within RLIMIT_RTPRIO; where
/// that is refused it asks for a raised priority among normal threads (a negative nice value, within RLIMIT_NICE);
/// where that is refused too it runs as any other thread. Nothing is printed: the value says what happened.
///
/// rtkit (the D-Bus service desktops use to hand out real-time priority) is not asked: that takes a D-Bus client
/// library (libsystemd's sd-bus, with a C shim for its variadic calls), RLIMIT_RTTIME set first, and a system bus
/// with rtkit on it to test against, which the machines hum is tested on do not have. Where a sound server
/// (PipeWire, PulseAudio) sits between hum and the device, its own buffer covers a period that comes late.
public enum ThreadScheduling: Sendable, Equatable, CustomStringConvertible {
    public enum Policy: String, Sendable {
        case fifo = "SCHED_FIFO"
        case roundRobin = "SCHED_RR"
    }

    /// Real-time: the kernel runs the thread before every normal thread.
    case realtime(policy: Policy, priority: Int)
    /// Real-time was refused (`reason` says why); the thread runs at this nice value (below 0: a raised priority).
    case niced(Int, reason: String)
    /// Neither real-time nor a raised priority was granted (`reason` says why): the thread runs as any other.
    case normal(reason: String)

    public var description: String {
        switch self {
        case .realtime(let policy, let priority): "real-time (\(policy.rawValue), priority \(priority))"
        case .niced(let nice, let reason): "raised priority (nice \(nice)); \(reason)"
        case .normal(let reason): "normal priority; \(reason)"
        }
    }
}

/// The engine's request, as a decision over what the kernel answers: pure, so every fallback can be tested.
enum SchedulingRequest {
    /// One below PulseAudio's real-time priority (5) and far below PipeWire's and JACK's: the sound server, which
    /// the engine feeds, should run first; every normal thread runs after.
    static let realtimePriority: Int32 = 4
    /// The nice value asked for when real-time is refused (PulseAudio asks for -11).
    static let niceValue: Int32 = -10

    /// How the calling thread runs before the request.
    struct Current: Equatable {
        /// SCHED_OTHER, SCHED_FIFO, SCHED_RR, …
        var policy: Int32
        var priority: Int32
        var nice: Int32
    }

    /// The soft resource limits that bound what a thread without CAP_SYS_NICE may ask for.
    struct Limits: Equatable {
        /// RLIMIT_RTPRIO: the highest real-time priority (`rlim_t.max`: unlimited).
        var realtimePriority: rlim_t
        /// RLIMIT_NICE: the lowest nice value is 20 − this (`rlim_t.max`: unlimited).
        var nice: rlim_t
    }

    /// Decides, asking the kernel through `setRealtime` (SCHED_FIFO at a priority) and `setNice`, each returning 0
    /// or the error number of the refusal.
    ///
    /// A priority or nice value is asked for even where the limit is 0: a privileged process (CAP_SYS_NICE) is
    /// granted it regardless.
    static func decide(
        current: Current, limits: Limits, priorityRange: ClosedRange<Int32>,
        setRealtime: (Int32) -> Int32, setNice: (Int32) -> Int32
    ) -> ThreadScheduling {
        // Already real-time (started under chrt, say): kept as it is.
        if current.policy == SCHED_FIFO || current.policy == SCHED_RR {
            return .realtime(
                policy: current.policy == SCHED_FIFO ? .fifo : .roundRobin, priority: Int(current.priority))
        }
        var priority = realtimePriority
        if limits.realtimePriority > 0, limits.realtimePriority < rlim_t(priority) {
            priority = Int32(limits.realtimePriority)
        }
        priority = min(max(priority, priorityRange.lowerBound), priorityRange.upperBound)
        let realtimeError = setRealtime(priority)
        if realtimeError == 0 { return .realtime(policy: .fifo, priority: Int(priority)) }
        let realtimeRefusal =
            "real-time refused (pthread_setschedparam SCHED_FIFO \(priority): \(describe(realtimeError))"
            + (limits.realtimePriority == 0 ? "; RLIMIT_RTPRIO is 0)" : ")")

        // The lowest nice value RLIMIT_NICE allows, if it allows any below 0.
        var nice = niceValue
        if limits.nice > 20, limits.nice < rlim_t(20 - nice) { nice = 20 - Int32(limits.nice) }
        if current.nice <= nice {
            // Already as high as asked for, or higher (started with a lower nice value): left alone.
            return current.nice < 0
                ? .niced(Int(current.nice), reason: realtimeRefusal) : .normal(reason: realtimeRefusal)
        }
        let niceError = setNice(nice)
        if niceError == 0 { return .niced(Int(nice), reason: realtimeRefusal) }
        let niceRefusal =
            "nice \(nice) refused (setpriority: \(describe(niceError))"
            + (limits.nice <= 20 ? "; RLIMIT_NICE is \(limits.nice))" : ")")
        return .normal(reason: realtimeRefusal + ", " + niceRefusal)
    }

    /// An error number in words, lower-case: "operation not permitted".
    static func describe(_ error: Int32) -> String {
        let text = String(cString: strerror(error))
        return text.prefix(1).lowercased() + text.dropFirst()
    }

    /// Asks for the calling thread, reading what it needs from the kernel. Allocates (the reasons): call it before
    /// the audio loop, never in it.
    static func applyToCurrentThread() -> ThreadScheduling {
        let thread = pthread_self()
        let lowest = sched_get_priority_min(SCHED_FIFO)
        var policy: Int32 = 0
        var parameters = sched_param()
        if pthread_getschedparam(thread, &policy, &parameters) != 0 { policy = SCHED_OTHER }
        // On Linux a nice value belongs to a thread: PRIO_PROCESS with 0 reads and sets the calling thread's.
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        let current = Current(
            policy: policy, priority: parameters.sched_priority, nice: errno == 0 ? nice : 0)
        return decide(
            current: current,
            limits: Limits(
                realtimePriority: softLimit(__RLIMIT_RTPRIO.rawValue), nice: softLimit(__RLIMIT_NICE.rawValue)),
            priorityRange: lowest...max(lowest, sched_get_priority_max(SCHED_FIFO)),
            setRealtime: { priority in
                var parameters = sched_param()
                parameters.sched_priority = priority
                return pthread_setschedparam(thread, SCHED_FIFO, &parameters)
            },
            setNice: { nice in
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) == 0 ? 0 : errno
            })
    }

    /// A soft resource limit; 0 when it cannot be read (ask anyway: privilege may grant it).
    static func softLimit(_ resource: UInt32) -> rlim_t {
        var limit = rlimit()
        return getrlimit(__rlimit_resource_t(resource), &limit) == 0 ? limit.rlim_cur : 0
    }
}
