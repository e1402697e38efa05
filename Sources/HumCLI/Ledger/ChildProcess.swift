import HumSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a command directly (posix_spawnp, no shell) in hum's process group, so it keeps the terminal, and stops it
/// when its time is up: SIGTERM, then SIGKILL after a grace period.
final class ChildProcess {
    let pid: pid_t
    let argv: [String]
    private(set) var exitStatus: Int32? = nil

    /// Set by SIGTERM or SIGHUP sent to hum itself: stop the command and settle.
    static let stopRequested = Atomic<Bool>(false)

    /// Where a command can be found, or nil: checked before any time is held.
    static func resolve(_ name: String, path: String?) -> String? {
        if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
        for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Installs the handlers for SIGTERM and SIGHUP (stop the command, settle, exit) and SIGINT (ignored by hum: the
    /// command, in the same process group, gets it from the terminal and decides). Handlers, unlike SIG_IGN, are
    /// reset to the default in the child by exec.
    static func installSignalHandlers() {
        let stop: @convention(c) (Int32) -> Void = { _ in ChildProcess.stopRequested.store(true, ordering: .relaxed) }
        let ignore: @convention(c) (Int32) -> Void = { _ in }
        Glibc.signal(SIGTERM, stop)
        Glibc.signal(SIGHUP, stop)
        Glibc.signal(SIGINT, ignore)
        // A parent may have started hum with these blocked; they must reach the handlers.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for s in [SIGTERM, SIGHUP, SIGINT] { sigaddset(&unblock, s) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Starts `argv` with hum's environment plus `extraEnvironment` (`NAME=value` entries).
    init(argv: [String], extraEnvironment: [String] = []) throws {
        self.argv = argv
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnv: [UnsafeMutablePointer<CChar>?] = extraEnvironment.map { strdup($0) }
        let names = Set(extraEnvironment.compactMap { $0.split(separator: "=").first.map(String.init) })
        var pointer = environ
        while let entry = pointer.pointee {
            let name = String(cString: entry).split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if !names.contains(name) { cEnv.append(strdup(entry)) }
            pointer += 1
        }
        cEnv.append(nil)
        defer { for p in cArgs + cEnv { free(p) } }
        var child: pid_t = 0
        let rc = posix_spawnp(&child, argv[0], nil, &attributes, cArgs, cEnv)
        guard rc == 0 else {
            throw HumError.failure("cannot run \"\(argv[0])\": \(String(cString: strerror(rc)))")
        }
        pid = child
    }

    /// Reaps the child if it has exited; true when it has.
    func poll() -> Bool {
        if exitStatus != nil { return true }
        var status: Int32 = 0
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid {
            exitStatus = status
            return true
        }
        if r < 0 && errno == ECHILD {
            exitStatus = 0
            return true
        }
        return false
    }

    func send(_ s: Int32) { if exitStatus == nil { kill(pid, s) } }

    /// The shell's convention: the exit code, or 128 + the signal that ended it.
    var exitCode: Int32 {
        guard let status = exitStatus else { return 1 }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Runs until the child exits, calling `tick` about every 100 ms with the seconds elapsed (monotonic); when
    /// `limit` is reached, or `tick` returns false, or hum is asked to stop, it sends SIGTERM, then SIGKILL after
    /// `grace` seconds. Returns the seconds elapsed when the child ended or was first told to stop, whichever is first.
    func supervise(
        limit: Double, grace: Double = 5, tick: (Double) -> Bool,
        onStop: (StopReason) -> Void
    ) -> Double {
        let start = monotonicSeconds()
        var stoppedAt: Double? = nil
        var killed = false
        while !poll() {
            let elapsed = monotonicSeconds() - start
            if stoppedAt == nil {
                var reason: StopReason? = nil
                if elapsed >= limit {
                    reason = .timeUp
                } else if ChildProcess.stopRequested.load(ordering: .relaxed) {
                    reason = .asked
                } else if !tick(elapsed) {
                    reason = .settledElsewhere
                }
                if let reason {
                    onStop(reason)
                    send(SIGTERM)
                    stoppedAt = elapsed
                }
            } else if let at = stoppedAt, !killed, elapsed - at >= grace {
                send(SIGKILL)
                killed = true
            }
            usleep(100_000)
        }
        let end = monotonicSeconds() - start
        return min(end, stoppedAt ?? end)
    }

    enum StopReason { case timeUp, asked, settledElsewhere }
}
