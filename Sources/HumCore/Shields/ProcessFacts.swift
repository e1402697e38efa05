/// What hum knows of one process when it decides whether a shield holds it: read from /proc by HumSystem
/// (`ProcessFactsReader`), written by hand in tests.
public struct ProcessFacts: Sendable, Hashable {
    public var pid: Int32
    public var ppid: Int32
    /// The process group: what a freeze signals when every member may be touched.
    public var pgid: Int32
    /// The session; a process whose pid is its session id leads it (a login shell, a terminal's shell).
    public var sid: Int32
    /// The real user id (a process that changed ids, e.g. a set-uid program, has another and is left alone).
    public var uid: UInt32
    /// The controlling terminal's device number, 0 when none.
    public var tty: Int32
    /// The kernel's command name (at most 15 bytes, cut by the kernel).
    public var comm: String
    /// The executable's file name (`/proc/PID/exe`), nil when it cannot be read (another user's process).
    public var exe: String?
    /// The command line's words; empty for kernel threads and zombies.
    public var cmdline: [String]
    /// The desktop application id, when the environment or the systemd scope names it.
    public var desktopID: String?
    /// Clock ticks after boot: with the pid, it names one process for good (a pid can be reused).
    public var start: Int64
    /// The state letter of /proc/PID/stat (`T` stopped, `Z` zombie).
    public var state: Character
    /// A kernel thread (PF_KTHREAD, or a child of kthreadd): never a program of the user's.
    public var isKernelThread: Bool
    /// The desktop program's own systemd scope it runs in, when it runs in one (read for this user's processes).
    public var scope: AppScope?

    public init(
        pid: Int32, ppid: Int32, pgid: Int32, sid: Int32, uid: UInt32, tty: Int32 = 0, comm: String,
        exe: String? = nil, cmdline: [String] = [], desktopID: String? = nil, start: Int64, state: Character = "S",
        isKernelThread: Bool = false, scope: AppScope? = nil
    ) {
        self.pid = pid
        self.ppid = ppid
        self.pgid = pgid
        self.sid = sid
        self.uid = uid
        self.tty = tty
        self.comm = comm
        self.exe = exe
        self.cmdline = cmdline
        self.desktopID = desktopID
        self.start = start
        self.state = state
        self.isKernelThread = isKernelThread
        self.scope = scope
    }

    public var isStopped: Bool { state == "T" || state == "t" }
    /// Held still: stopped by a signal, or in a frozen scope (whose processes read `S`).
    public var isHeld: Bool { isStopped || scope?.frozen == true }
    public var isDead: Bool { state == "Z" || state == "X" }
    /// The process as a lasting name: pid and start time.
    public var identity: ProcessIdentity { ProcessIdentity(pid: pid, start: start) }

    /// The command line as the `--match` patterns see it: its words joined by single spaces.
    public var commandLine: String { cmdline.joined(separator: " ") }

    /// The name the program was called by: the last path component of its first word.
    public var argv0Name: String? {
        guard let first = cmdline.first, !first.isEmpty else { return nil }
        return first.split(separator: "/").last.map(String.init)
    }
}

/// One process for good: its pid and the clock tick it started at, so that a pid reused by another process is not
/// taken for it.
public struct ProcessIdentity: Sendable, Hashable, Codable, Comparable {
    public var pid: Int32
    public var start: Int64
    public init(pid: Int32, start: Int64) {
        self.pid = pid
        self.start = start
    }
    public static func < (a: ProcessIdentity, b: ProcessIdentity) -> Bool { (a.pid, a.start) < (b.pid, b.start) }
}
