import CLinux
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// A command started directly (posix_spawnp, no shell) as the leader of a process group of its own, so that the
/// command and everything it starts are signalled as one: `kill(-group, …)`. Used for the commands of passes and
/// emergencies, for `focus --on-event` hooks, for the pass watchdog, and for the commands run for their output
/// (`CapturedCommand`: git, an external reviewer).
///
/// The leader is not reaped until the caller is done with its group: while it is a zombie its pid, and so the
/// group's id, cannot be given to another process, so signalling the group can never reach a stranger.
public final class ChildProcess {
    public let pid: pid_t
    /// The id of the command's process group: its own pid, since it leads the group.
    public var group: pid_t { pid }
    public let argv: [String]
    /// The wait status (as waitpid gives it) once the leader has exited.
    public private(set) var exitStatus: Int32? = nil
    public private(set) var reaped = false

    public struct Options {
        /// `NAME=value` entries added to hum's environment (replacing hum's own of the same name).
        public var environment: [String] = []
        /// Names of hum's environment left out.
        public var removing: Set<String> = []
        /// A terminal descriptor: the command's group becomes the foreground group of that terminal before the
        /// command runs, so it reads the keyboard and gets Ctrl-C and Ctrl-Z; hum takes the terminal back after.
        public var foreground: Int32? = nil
        /// A new session (setsid) instead of a new group: no controlling terminal, so no signal from the keyboard
        /// nor from a hang-up reaches it (the watchdog).
        public var newSession = false
        /// Descriptors given to the child: `(hum's, the child's number)`.
        public var descriptors: [(Int32, Int32)] = []
        /// Standard input and output on /dev/null (standard error stays).
        public var quiet = false
        /// An explicit program path instead of a search of PATH for argv[0].
        public var program: String? = nil

        public init(
            environment: [String] = [], removing: Set<String> = [], foreground: Int32? = nil, newSession: Bool = false,
            descriptors: [(Int32, Int32)] = [], quiet: Bool = false, program: String? = nil
        ) {
            self.environment = environment
            self.removing = removing
            self.foreground = foreground
            self.newSession = newSession
            self.descriptors = descriptors
            self.quiet = quiet
            self.program = program
        }
    }

    /// Where a command can be found, or nil: checked before any time is held.
    public static func resolve(_ name: String, path: String?) -> String? {
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

    /// Starts `argv` in a process group of its own (or a session of its own), with hum's environment changed as
    /// `options` say, every signal at its default and none blocked.
    public init(argv: [String], options: Options = Options()) throws(ProcessError) {
        self.argv = argv
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }

        // Handlers and SIG_IGN do not belong to the command: hum may ignore SIGPIPE, or block what it supervises.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU] {
            sigaddset(&defaults, s)
        }
        try ProcessCall.checkCode(
            "posix_spawnattr_setsigdefault", posix_spawnattr_setsigdefault(&attributes, &defaults))
        var mask = sigset_t()
        sigemptyset(&mask)
        try ProcessCall.checkCode("posix_spawnattr_setsigmask", posix_spawnattr_setsigmask(&attributes, &mask))
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if options.newSession {
            flags |= HUM_POSIX_SPAWN_SETSID
        } else {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            try ProcessCall.checkCode("posix_spawnattr_setpgroup", posix_spawnattr_setpgroup(&attributes, 0))
        }
        try ProcessCall.checkCode("posix_spawnattr_setflags", posix_spawnattr_setflags(&attributes, Int16(flags)))
        if options.quiet {
            for (fd, mode) in [(Int32(0), O_RDONLY), (1, O_WRONLY)] {
                try ProcessCall.checkCode(
                    "posix_spawn_file_actions_addopen",
                    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", mode, 0))
            }
        }
        for (from, to) in options.descriptors {
            try ProcessCall.checkCode(
                "posix_spawn_file_actions_adddup2", posix_spawn_file_actions_adddup2(&actions, from, to))
        }
        var handedInSpawn = false
        if let terminal = options.foreground, !options.newSession {
            handedInSpawn = hum_spawn_add_tcsetpgrp(&actions, terminal) == 0
        }

        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnv: [UnsafeMutablePointer<CChar>?] = options.environment.map { strdup($0) }
        let replaced =
            Set(options.environment.compactMap { $0.split(separator: "=").first.map(String.init) })
            .union(options.removing)
        var pointer = environ
        while let entry = pointer.pointee {
            let name = String(cString: entry).split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if !replaced.contains(name) { cEnv.append(strdup(entry)) }
            pointer += 1
        }
        cEnv.append(nil)
        defer { for p in cArgs + cEnv { free(p) } }
        var child: pid_t = 0
        let rc =
            options.program.map { posix_spawn(&child, $0, &actions, &attributes, cArgs, cEnv) }
            ?? posix_spawnp(&child, argv[0], &actions, &attributes, cArgs, cEnv)
        guard rc == 0 else {
            throw ProcessError.failure("cannot run \(argv[0].quoted): \(String(cString: strerror(rc)))")
        }
        pid = child
        if let terminal = options.foreground, !options.newSession, !handedInSpawn {
            // An older glibc: hand the terminal over from here. If the command reads it first it stops (SIGTTIN)
            // for a moment; `continueInForeground` wakes it.
            ForegroundTerminal.hand(terminal, to: child)
        }
    }

    /// Whether the leader has exited; it stays a zombie (not reaped) so that its group id stays ours.
    public func hasExited() -> Bool {
        if exitStatus != nil { return true }
        var info = siginfo_t()
        let r = ProcessCall.tolerate { waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) }
        if r < 0 {
            // ECHILD: reaped elsewhere; nothing more can be learned.
            if errno == ECHILD {
                exitStatus = 0
                reaped = true
                return true
            }
            return false
        }
        guard info._sifields._sigchld.si_pid == pid else { return false }
        let status = info._sifields._sigchld.si_status
        exitStatus = info.si_code == CLD_EXITED ? (status & 0xFF) << 8 : status & 0x7F
        return true
    }

    /// The signal that stopped the leader (Ctrl-Z, SIGTTIN…), if it stopped since the last call.
    public func takeStop() -> Int32? {
        guard !reaped else { return nil }
        var info = siginfo_t()
        let r = ProcessCall.tolerate { waitid(P_PID, id_t(pid), &info, WSTOPPED | WNOHANG) }
        guard r == 0, info._sifields._sigchld.si_pid == pid, info.si_code == CLD_STOPPED else { return nil }
        return info._sifields._sigchld.si_status
    }

    /// Reaps the leader once it has exited. After this the group is signalled no more.
    public func reap() {
        guard !reaped, hasExited() else { return }
        var status: Int32 = 0
        _ = ProcessCall.tolerate { waitpid(pid, &status, 0) }
        reaped = true
    }

    /// Signals every process of the group. After SIGTERM or SIGHUP also SIGCONT, so that a stopped process wakes
    /// to handle it (SIGKILL needs no waking).
    public func signalGroup(_ signal: Int32) {
        guard !reaped else { return }
        ProcessCall.tolerate { kill(-pid, signal) }
        if signal == SIGTERM || signal == SIGHUP { ProcessCall.tolerate { kill(-pid, SIGCONT) } }
    }

    /// The living members of the group, the leader counted only while it runs.
    public func groupMembers(in table: ProcessTable = .snapshot()) -> [ProcessTable.Entry] {
        reaped ? [] : table.members(ofGroup: pid)
    }

    /// True once the leader has exited and no other process is left in its group; the leader is then reaped.
    public func finished() -> Bool {
        guard hasExited() else { return false }
        if !reaped, !groupMembers().isEmpty { return false }
        reap()
        return true
    }

    /// The shell's convention: the exit code, or 128 + the signal that ended it.
    public var exitCode: Int32 {
        guard let status = exitStatus else { return 1 }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    /// Gives a child at most `limit` seconds more, then stops its group: SIGTERM, and SIGKILL `grace` seconds
    /// later; returns when the leader and its group are gone (or the SIGKILL had a second). It sleeps in poll on a
    /// pidfd of the leader: it wakes when the leader exits or a step is due. Stragglers of an exited leader are
    /// looked for again after 10 ms, then twice as long each time up to a second, so that a group gone at SIGTERM is
    /// not waited for until the SIGKILL is due.
    public func finish(within limit: Double, grace: Double) {
        let start = monotonicSeconds()
        var look = 0.01
        let pidfd = reaped ? -1 : hum_pidfd_open(pid)
        defer { if pidfd >= 0 { close(pidfd) } }
        /// True as soon as the leader and its group are gone; false when `moment` comes first.
        func finished(by moment: Double) -> Bool {
            while !self.finished() {
                let left = moment - (monotonicSeconds() - start)
                guard left > 0 else { return false }
                if pidfd >= 0, !hasExited() {
                    var fd = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
                    _ = ProcessCall.tolerate { poll(&fd, 1, Int32((left * 1000).rounded(.up))) }
                } else {
                    // Stragglers of an exited leader (not hum's children: nothing tells when they go), or no
                    // pidfd (Linux before 5.3): look again a little later.
                    usleep(UInt32(min(left, look) * 1_000_000))
                    look = min(look * 2, 1)
                }
            }
            return true
        }
        if finished(by: limit) { return }
        signalGroup(SIGTERM)
        if finished(by: limit + grace) { return }
        signalGroup(SIGKILL)
        _ = finished(by: limit + grace + 1)
        reap()
    }
}

/// The controlling terminal, shared between hum and the command of a pass: which process group reads it.
public enum ForegroundTerminal {
    /// The first of stderr, stdin and stdout that is a terminal on which hum's group is the foreground group, if
    /// any: only then has hum a terminal to lend. Run in the background (`&`) or without a terminal, hum lends none.
    public static func lendable() -> Int32? {
        for fd in [Int32(0), 2, 1] where isatty(fd) == 1 {
            if tcgetpgrp(fd) == getpgrp() { return fd }
        }
        return nil
    }

    /// Makes `group` the foreground group of `terminal`. SIGTTOU is blocked around the call: a process of the
    /// background may then set the foreground group (POSIX), as hum must to take the terminal back.
    public static func hand(_ terminal: Int32, to group: pid_t) {
        var block = sigset_t()
        sigemptyset(&block)
        sigaddset(&block, SIGTTOU)
        var old = sigset_t()
        pthread_sigmask(SIG_BLOCK, &block, &old)
        ProcessCall.tolerate { tcsetpgrp(terminal, group) }
        pthread_sigmask(SIG_SETMASK, &old, nil)
    }
}
