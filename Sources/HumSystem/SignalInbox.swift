import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Signals taken as events instead of handled asynchronously: they are blocked, then read from a signalfd that the
/// supervisor waits on with its other descriptors. The command that supervises a child creates one and hands it
/// in; nothing is kept in a process-wide flag. The mask is restored when the inbox is closed.
///
/// Must be created before hum starts any thread: threads inherit the mask of the thread that creates them, and a
/// thread that does not block a signal would take it instead of the inbox. The ledger commands start none.
public final class SignalInbox {
    public let descriptor: Int32
    private var previous = sigset_t()
    private var closed = false

    public init(_ signals: [Int32]) throws(ProcessError) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        var old = sigset_t()
        try ProcessCall.checkCode("pthread_sigmask", pthread_sigmask(SIG_BLOCK, &set, &old))
        previous = old
        let fd = signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            pthread_sigmask(SIG_SETMASK, &old, nil)
            throw ProcessError.failure("signalfd failed: \(reason)")
        }
        descriptor = fd
    }

    /// The signals that arrived since the last call (each standard signal at most once: they do not queue).
    public func take() -> [Int32] {
        var taken: [Int32] = []
        var info = signalfd_siginfo()
        while true {
            let n = withUnsafeMutableBytes(of: &info) { read(descriptor, $0.baseAddress!, $0.count) }
            guard n == MemoryLayout<signalfd_siginfo>.size else { break }
            taken.append(Int32(bitPattern: info.ssi_signo))
        }
        return taken
    }

    /// Waits until a signal arrives, `extra` is readable or hung up, or `timeout` seconds pass (nil: no limit).
    /// Returns the descriptors that are ready (the inbox's own included when a signal is waiting).
    public func wait(timeout: Double?, extra: [Int32] = []) -> Set<Int32> {
        var fds = ([descriptor] + extra).map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let milliseconds = timeout.map { Int32(min(max(0, ($0 * 1000).rounded(.up)), 86_400_000)) } ?? -1
        let n = ProcessCall.tolerate { poll(&fds, nfds_t(fds.count), milliseconds) }
        guard n > 0 else { return [] }
        return Set(fds.filter { $0.revents != 0 }.map(\.fd))
    }

    /// Unblocks the signals again. What arrived and was not taken is dropped: the supervision is over.
    public func close() {
        guard !closed else { return }
        closed = true
        _ = take()
        Glibc.close(descriptor)
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }

    deinit { close() }
}
