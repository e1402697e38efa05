#if canImport(Glibc)
    import Glibc
#endif

/// Gives the terminal back when hum crashes while the full screen holds it: a handler of the crash signals (SEGV,
/// BUS, ILL, TRAP, FPE, ABRT, SYS) writes the saved reset sequence and restores the saved terminal modes (both
/// async-signal-safe: `write` and `tcsetattr`, on data prepared in advance), then the signal's default action
/// follows. SIGTERM, SIGHUP and SIGINT are not crashes: the frontend takes them on its event loop and closes the
/// screen the ordinary way.
public enum TerminalRescue {
    /// Room for the reset sequence.
    static let capacity = 256

    // nonisolated(unsafe): written before the handlers are armed and after they are disarmed, on the frontend's
    // thread; the handler only reads.
    nonisolated(unsafe) private static let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    nonisolated(unsafe) private static var length = 0
    nonisolated(unsafe) private static var modes = termios()
    nonisolated(unsafe) private static var fd: Int32 = -1
    nonisolated(unsafe) private static var saved = false

    static let crashes: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT, SIGSYS]

    /// Saves the terminal's modes before the screen changes them.
    public static func save(fd: Int32) {
        self.fd = fd
        saved = tcgetattr(fd, &modes) == 0
    }

    /// Arms the crash handlers with what resets the terminal.
    public static func arm(reset: [UInt8]) {
        length = min(reset.count, capacity)
        for i in 0..<length { bytes[i] = reset[i] }
        for signal in crashes {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                TerminalRescue.rescue()
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = Int32(bitPattern: UInt32(SA_RESETHAND) | UInt32(SA_NODEFER))
            sigaction(signal, &action, nil)
        }
    }

    /// The screen gave the terminal back itself: nothing to do on a crash any more.
    public static func forget() {
        length = 0
        saved = false
    }

    /// What the handler does (also callable by hand, for a test).
    public static func rescue() {
        if length > 0 { _ = write(STDOUT_FILENO, bytes, length) }
        if saved { _ = tcsetattr(fd, TCSANOW, &modes) }
    }
}
