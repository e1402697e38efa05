import HumCore
import HumSystem

/// Where the runtime writes text: a terminal's stdout and stderr, a log, a test's buffer. HumCLI's outputs are
/// ones (`TextOutput` refines it).
public protocol TextSink: AnyObject, Sendable {
    func write(_ text: String)
}

/// What the runtime may use of the outside world, handed in by its caller (HumCLI builds it from a command's
/// context, in one place; a test builds its own): never a global, never the CLI's context.
public struct PlayerEnvironment: Sendable {
    /// The process's environment variables (`HUM_…`, `XDG_…`, `PATH`, `NO_COLOR`, `NOTIFY_SOCKET`).
    public var variables: [String: String]
    public var paths: HumPaths
    public var stdout: any TextSink
    public var stderr: any TextSink
    /// True when stdout is a terminal: live status lines are allowed.
    public var stdoutIsTerminal: Bool
    /// True when stdin is a terminal: keys can be read, questions asked.
    public var stdinIsTerminal: Bool
    /// Colour may be used on stdout.
    public var useColor: Bool
    /// Descriptor 2 may be pointed at /dev/null while decoder libraries open files (only in hum's own process).
    public var silencesLibraryNoise: Bool
    /// The wall clock and the zone: the ledger's dates, the last mix's time, the focus lines' clock.
    public var calendar: LocalCalendar
    /// Seconds on a clock that never jumps (CLOCK_MONOTONIC), for work off the player's loop (which has its own
    /// clocks): a pass's zero, the watchdog's deadline, the wait for a detached player.
    public var monotonic: @Sendable () -> Double
    /// Marks a change that outlasts the run as made (`done`, and how to `see` it), right after it is committed: the
    /// caller says so when what it prints cannot be written.
    public var made: @Sendable (_ done: String, _ see: String) -> Void

    public init(
        variables: [String: String], paths: HumPaths, stdout: any TextSink, stderr: any TextSink,
        stdoutIsTerminal: Bool = false, stdinIsTerminal: Bool = false, useColor: Bool = false,
        silencesLibraryNoise: Bool = false, calendar: LocalCalendar = .system,
        monotonic: @escaping @Sendable () -> Double = { monotonicSeconds() },
        made: @escaping @Sendable (_ done: String, _ see: String) -> Void = { _, _ in }
    ) {
        self.variables = variables
        self.paths = paths
        self.stdout = stdout
        self.stderr = stderr
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stdinIsTerminal = stdinIsTerminal
        self.useColor = useColor
        self.silencesLibraryNoise = silencesLibraryNoise
        self.calendar = calendar
        self.monotonic = monotonic
        self.made = made
    }

    /// Prints a warning line, `hum: warning: …`, on stderr, with control characters of what it quotes escaped.
    public func warn(_ message: String) {
        stderr.write("hum: warning: \(message.visible)\n")
    }
}
