import HumAudio
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Removes a command's temporary files when a signal ends it, so an interrupted `hum render` or `hum export -o`
/// leaves nothing behind.
///
/// The asynchronous signals whose default is to end the process (HUP, INT, QUIT, TERM, USR1, USR2, ALRM,
/// VTALRM, PROF, XCPU, XFSZ, IO, PWR, STKFLT) are blocked and taken by one thread with `sigwait`: it removes the
/// registered files, then raises the signal again with its default action, so hum ends as the signal asked (a
/// shell sees SIGINT, not an exit code). No handler runs in a strange context for these. The synchronous crash
/// signals (SEGV, BUS, ILL, TRAP, FPE, ABRT, SYS: a bug) cannot be blocked; a handler removes the files with
/// `unlink` (async-signal-safe, on paths prepared in advance) and the default action follows. SIGKILL cannot be
/// caught by anyone: a temporary file survives it (its hidden name says what it is).
///
/// `start()` must run before the command starts any thread, so that every thread inherits the blocked signals.
/// Commands that watch signals themselves (play, focus, pass) do not use this.
final class InterruptCleanup: Sendable {
    static let shared = InterruptCleanup()

    /// The signals taken by the watching thread.
    static let watched: [Int32] = [
        SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,
        SIGPWR, SIGSTKFLT,
    ]
    /// The signals of a crash, handled by `unlink` and the default action.
    static let crashes: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS]

    /// The watching thread's name.
    static let threadName = "hum-signals"

    /// Room for the paths the crash handler removes: more temporary files than any command makes at once.
    static let slots = 8

    private struct State {
        var started = false
        var paths: [Int: String] = [:]
        /// The crash handler's slot of each registered path, if it got one.
        var slots: [Int: Int] = [:]
        var nextToken = 0
    }
    private let state = Mutex(State())

    /// The registered paths as C strings, for the crash handler (which must not allocate or lock). A slot is
    /// written only under `state`'s lock; the handler only reads.
    // nonisolated(unsafe): see above; the pointers themselves are created once and never freed.
    nonisolated(unsafe) private static let crashPaths: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slots)
        p.initialize(repeating: nil, count: slots)
        return p
    }()

    /// Blocks the watched signals in this thread (and so in every thread it starts from now on), starts the
    /// watching thread and installs the crash handlers. Does nothing the second time.
    func start() {
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        _ = InterruptCleanup.crashPaths  // made now, not in a handler
        // These calls fail only for an invalid signal number or mask operation (EINVAL); these are constants.
        var set = InterruptCleanup.signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
        for signal in InterruptCleanup.crashes {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                InterruptCleanup.unlinkForCrash()
                Glibc.signal(signal, SIG_DFL)
                raise(signal)  // for ABRT, TRAP and the others raised on purpose; a fault faults again anyway
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = Int32(bitPattern: UInt32(SA_RESETHAND) | UInt32(SA_NODEFER))
            sigaction(signal, &action, nil)
        }
        NamedThread.start(InterruptCleanup.threadName) { [self] in watch() }
    }

    /// Registers a file to remove if a signal ends hum; returns a token for `unregister`.
    func register(_ path: String) -> Int {
        state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.paths[token] = path
            if let free = (0..<InterruptCleanup.slots).first(where: { InterruptCleanup.crashPaths[$0] == nil }) {
                InterruptCleanup.crashPaths[free] = strdup(path)
                state.slots[token] = free
            }
            return token
        }
    }

    /// Forgets a file: it was completed (renamed into place) or removed. `body` runs under the same lock as the
    /// removal on a signal, so a rename in it is never raced by the removal: either the file is removed first
    /// (and hum is ending) or it is renamed first (and nothing is removed).
    func unregister<T>(_ token: Int, while body: () throws -> T) rethrows -> T {
        try state.withLock { state in
            defer {
                state.paths[token] = nil
                // The string is left allocated: a crash handler on another thread may be reading it. One short
                // string per temporary file.
                if let slot = state.slots.removeValue(forKey: token) { InterruptCleanup.crashPaths[slot] = nil }
            }
            return try body()
        }
    }

    private func watch() {
        // Named by NamedThread (tests and `ps -L` tell it by its name). While it waits, the kernel shows the
        // signals it waits for as unblocked in it.
        var set = InterruptCleanup.signalSet()
        while true {
            var signal: Int32 = 0
            guard sigwait(&set, &signal) == 0 else { continue }
            // Taking the lock waits for a rename under way, and keeps any other from starting.
            state.withLock { state in
                for path in state.paths.values { unlink(path) }
                state.paths.removeAll()
                Glibc.signal(signal, SIG_DFL)
                var only = sigset_t()
                sigemptyset(&only)
                sigaddset(&only, signal)
                pthread_sigmask(SIG_UNBLOCK, &only, nil)
                raise(signal)  // ends the process by the signal's default action
                _exit(128 + signal)  // for a signal whose default is to be ignored (none of those watched)
            }
        }
    }

    private static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in watched { sigaddset(&set, signal) }
        return set
    }

    private static func unlinkForCrash() {
        for slot in 0..<slots {
            if let path = crashPaths[slot] { unlink(path) }
        }
    }
}
