import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the facts of the machine's processes from /proc for the shields (`ProcessFacts`), in two ways:
///
/// - `snapshot()`: every process read now. Each costs one `lstat` of its folder and one read of its `stat` line
///   (the safety rules need every process's parent, group and owner, whoever owns it); only this user's processes
///   are read further (the executable, the command line and, when asked, the desktop id), and only when the process
///   is new or its command name changed (an exec). About 20 µs a process on the test machine: what is done before
///   any signal is sent.
/// - `look(refreshing:)`: the once-a-second look, which must cost next to nothing (issue 22: under 0.2 % of a core
///   with 500 processes). It lists /proc (one `getdents` pass) and reads only the processes it has not seen, keyed
///   by pid and the inode number of `/proc/PID` (a pid reused by a new process gets a new inode, so it is read as
///   new); the others keep the facts of their last read. Some are read again: those asked (`refreshing`: what the
///   shields name or froze, whose state matters every second). Of every process younger than `youngSeconds` (a
///   shell or launcher that forked a moment before often execs the real program soon after), and of a rotating
///   slice of the rest, each process once every `rotation` looks, the command name alone is read, and the rest
///   when it changed (an exec): an old process that execs a named program is found within `rotation` seconds. `changes` and `ended` say what
///   differs from the look before: when nothing that matters does, the plan made last time still holds.
///
/// What the look keeps can be stale (a process that changed its group, owner or program since its last read): it is
/// good for deciding that nothing needs doing, never for acting. Before sending any signal the guard takes a
/// `snapshot()` and plans again from it.
public final class ProcessFactsReader {
    /// The uid whose processes are read in full: this user's.
    public let uid: UInt32
    /// Whether to look for desktop ids (the environment and the cgroup): only when a shield names one.
    public var readsDesktopIDs: Bool
    /// A process younger than this (seconds since it started) is read again at every look.
    public let youngSeconds: Double
    /// Every process is read again once in this many looks (a slice of them at each).
    public static let rotation: UInt64 = 32
    /// Whether the last `look` or `snapshot` found anything different from the one before (a process new, gone, or
    /// with other facts).
    public private(set) var changed = true
    /// What the last `look` found new or different (as read now), and the pids it found gone: the guard plans again
    /// only when one of them can matter to a plan (a process a shield names, one it watches, or one of their groups).
    public private(set) var changes: [ProcessFacts] = []
    public private(set) var ended: [Int32] = []
    /// How many processes the last `look` or `snapshot` read (the rest kept their facts): what a look costs.
    public private(set) var reads = 0
    /// The facts last read, by pid.
    private var kept: [Int32: Kept] = [:]
    /// What a look checks for every process, apart from the facts so that the look touches only plain values.
    private var marks: [Int32: Mark] = [:]
    private var looks: UInt64 = 0
    /// The kernel's last pid when /proc was last listed (`/proc/loadavg`).
    private var listedAtPid: Int32?
    /// How many looks did not list /proc (nothing was made since the listing before).
    public private(set) var skippedListings = 0

    private struct Mark {
        /// The inode number of /proc/PID when it was read (0 when read by pid alone).
        var inode: UInt64
        /// When it started: clock ticks after boot.
        var start: Int64
        /// Read as far as it ever is (this user's living processes: the program too).
        var ready: Bool
        var readDesktopID: Bool
    }

    private struct Kept {
        var facts: ProcessFacts
        /// Whether the executable and command line were read (this user's living processes), and the desktop id.
        var complete: Bool
        var readDesktopID: Bool
    }

    /// Where the kernel's last pid is read (`lastPid()`; a test gives its own).
    let lastPidSource: () -> Int32?

    public init(
        uid: UInt32 = getuid(), readsDesktopIDs: Bool = true, youngSeconds: Double = 8,
        lastPid: @escaping () -> Int32? = ProcessFactsReader.lastPid
    ) {
        self.uid = uid
        self.lastPidSource = lastPid
        self.youngSeconds = youngSeconds
        self.readsDesktopIDs = readsDesktopIDs
    }

    /// Every process now, each read now. One that ends while it is read is left out.
    public func snapshot() -> [ProcessFacts] {
        var out: [ProcessFacts] = []
        var seen: Set<Int32> = []
        var differs = false
        reads = 0
        Self.eachPid { pid, inode in
            let before = kept[pid]
            guard let facts = read(pid, inode: inode, rereadProgram: false) else { return }
            seen.insert(pid)
            if before?.facts != facts { differs = true }
            out.append(facts)
        }
        if kept.count != seen.count || marks.count != seen.count {
            kept = kept.filter { seen.contains($0.key) }
            marks = marks.filter { seen.contains($0.key) }
            differs = true
        }
        changed = differs
        return out
    }

    /// Every process as the last `look` or `snapshot` left it.
    public var current: [ProcessFacts] { kept.values.map(\.facts) }

    /// The processes of `pids` as the last `look` or `snapshot` left them (those gone left out).
    public func current(_ pids: Set<Int32>) -> [ProcessFacts] { pids.compactMap { kept[$0]?.facts } }

    /// Brings `current` up to date from the facts last read where they are still good (see the type's comment):
    /// only new processes, those in `refreshing` and the young are read; of a rotating slice, only the command name
    /// is read (the rest when it changed: an exec). Not fresh enough to act on. `changes` and `ended` say what it
    /// found.
    public func look(refreshing: Set<Int32> = []) {
        looks &+= 1
        let look = looks
        var changes: [ProcessFacts] = []
        var ended: [Int32] = []
        var listed: [Int32] = []
        listed.reserveCapacity(marks.count + 16)
        // How many listed processes have a mark after this look: more marks than that means some ended.
        var present = 0
        reads = 0
        // Processes that started after this tick are young.
        let youth = Self.ticksAfterBoot() - Int64(youngSeconds * Double(Self.ticksPerSecond))
        func visit(_ pid: Int32, _ inode: UInt64) {
            listed.append(pid)
            if let mark = marks[pid], mark.inode == inode, mark.ready, !readsDesktopIDs || mark.readDesktopID {
                if refreshing.contains(pid) {
                    reread(pid, inode: inode, young: false, into: &changes, ended: &ended)
                    if marks[pid] != nil { present += 1 }
                    return
                }
                // The young at every look, the others in turn: the command name alone (/proc/PID/comm, the
                // cheapest file), and the rest when it changed (an exec).
                guard mark.start >= youth || (UInt64(pid) &+ look) % Self.rotation == 0 else {
                    present += 1
                    return
                }
                reads += 1
                guard let comm = LinuxProcessProbe.readSmallFile("/proc/\(pid)/comm", limit: 64) else {
                    kept[pid] = nil
                    marks[pid] = nil
                    ended.append(pid)
                    return
                }
                if comm.dropLast() != kept[pid]?.facts.comm ?? "" {
                    reread(pid, inode: inode, young: false, into: &changes, ended: &ended)
                    if marks[pid] == nil { return }
                }
                present += 1
                return
            }
            // New (or its pid reused: another inode), or not read in full yet.
            let before = kept[pid]?.facts
            guard let facts = read(pid, inode: inode, rereadProgram: false) else { return }
            present += 1
            if before != facts { changes.append(facts) }
        }
        // No process (nor thread) was made since the last listing when the kernel's last pid did not move: the pids
        // known are all there can be, and /proc is not listed (its listing is most of a look's cost). Listed anyway
        // once in `rotation` looks, to forget the processes that ended unwatched.
        let lastPid = lastPidSource()
        if let lastPid, lastPid == listedAtPid, look % Self.rotation != 0 {
            skippedListings += 1
            for (pid, mark) in marks { visit(pid, mark.inode) }
        } else {
            Self.eachPid(visit)
        }
        listedAtPid = lastPid
        if marks.count != present {
            // Some known were not listed: gone (a process ended).
            let listed = Set(listed)
            for pid in marks.keys where !listed.contains(pid) {
                ended.append(pid)
                marks[pid] = nil
                kept[pid] = nil
            }
        }
        self.changes = changes
        self.ended = ended
        changed = !changes.isEmpty || !ended.isEmpty
    }

    private func reread(
        _ pid: Int32, inode: UInt64, young: Bool, into changes: inout [ProcessFacts], ended: inout [Int32]
    ) {
        let before = kept[pid]?.facts
        guard let facts = read(pid, inode: inode, rereadProgram: young) else {
            ended.append(pid)
            return
        }
        if facts != before { changes.append(facts) }
    }

    /// Clock ticks per second, the unit of /proc/PID/stat's start time.
    static let ticksPerSecond = max(1, sysconf(Int32(_SC_CLK_TCK)))

    /// Now, in clock ticks after boot (CLOCK_BOOTTIME, the clock of /proc/PID/stat's start time).
    static func ticksAfterBoot() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_BOOTTIME, &ts)
        return Int64(ts.tv_sec) * Int64(ticksPerSecond) + Int64(ts.tv_nsec) * Int64(ticksPerSecond) / 1_000_000_000
    }

    /// The last pid the kernel gave out in this pid namespace (the fifth field of /proc/loadavg): it moves with every
    /// process or thread made.
    public static func lastPid() -> Int32? {
        guard let text = LinuxProcessProbe.readSmallFile("/proc/loadavg", limit: 256) else { return nil }
        return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).dropFirst(4).first.flatMap { Int32($0) }
    }

    /// Calls `body` with every pid in /proc and the inode number of its folder (from `getdents`, no further call).
    private static func eachPid(_ body: (Int32, UInt64) -> Void) {
        guard let dir = opendir("/proc") else { return }
        defer { closedir(dir) }
        while let item = readdir(dir) {
            // Only folders whose name is all digits: a pid.
            let pid = withUnsafeBytes(of: item.pointee.d_name) { raw -> Int32? in
                var value: Int32 = 0
                var digits = 0
                for byte in raw {
                    if byte == 0 { break }
                    guard byte >= 0x30, byte <= 0x39, digits < 9 else { return nil }
                    value = value * 10 + Int32(byte - 0x30)
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            if let pid { body(pid, UInt64(item.pointee.d_ino)) }
        }
    }

    /// The facts of one process read now, or nil when it is gone.
    public func read(_ pid: Int32) -> ProcessFacts? { read(pid, inode: marks[pid]?.inode ?? 0, rereadProgram: false) }

    /// The facts of one process read now (its owner and stat line; its program too when it is new, when its command
    /// name changed, or with `rereadProgram`), kept for the next look; nil when it is gone.
    private func read(_ pid: Int32, inode: UInt64, rereadProgram: Bool) -> ProcessFacts? {
        reads += 1
        var info = stat()
        // The owner of /proc/PID is the process's effective uid (root when it is not dumpable): a set-uid program
        // or a process that hid itself counts as another user's, and is never touched.
        guard lstat("/proc/\(pid)", &info) == 0, let line = ProcStat.read(pid) else {
            kept[pid] = nil
            marks[pid] = nil
            return nil
        }
        var facts = ProcessFacts(
            pid: pid, ppid: line.parent, pgid: line.group, sid: line.session, uid: info.st_uid, tty: line.tty,
            comm: line.comm, start: line.start, state: line.state, isKernelThread: line.isKernelThread)
        let known = kept[pid].flatMap { $0.facts.start == line.start ? $0 : nil }
        guard info.st_uid == uid, !line.isKernelThread else {
            kept[pid] = Kept(facts: facts, complete: false, readDesktopID: false)
            marks[pid] = Mark(inode: inode, start: line.start, ready: true, readDesktopID: true)
            return facts
        }
        if let known, known.complete, !rereadProgram, known.facts.comm == line.comm, known.facts.uid == info.st_uid,
            !readsDesktopIDs || known.readDesktopID
        {
            facts.exe = known.facts.exe
            facts.cmdline = known.facts.cmdline
            facts.desktopID = known.facts.desktopID
            facts.scope = CgroupScopes.appScope(of: pid, uid: uid)
            kept[pid] = Kept(facts: facts, complete: true, readDesktopID: known.readDesktopID)
            marks[pid] = Mark(inode: inode, start: line.start, ready: true, readDesktopID: known.readDesktopID)
            return facts
        }
        let cmdline = Self.words(LinuxProcessProbe.readSmallFile("/proc/\(pid)/cmdline", limit: 1 << 16))
        facts.exe = Self.exeName(pid)
        facts.cmdline = cmdline
        facts.desktopID = readsDesktopIDs ? Self.desktopID(pid) : nil
        facts.scope = CgroupScopes.appScope(of: pid, uid: uid)
        // A process in the middle of starting has no command line yet: read again next time rather than keep it.
        let complete = !cmdline.isEmpty || line.state == "Z"
        kept[pid] = Kept(facts: facts, complete: complete, readDesktopID: readsDesktopIDs)
        marks[pid] = Mark(inode: inode, start: line.start, ready: complete, readDesktopID: readsDesktopIDs)
        return facts
    }

    /// Who hum is for `ShieldSafety`: this process, its uid and group, and its terminal's foreground group.
    public static func me() -> ShieldSafety.Me {
        var foreground: Int32? = nil
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where isatty(fd) != 0 {
            let group = tcgetpgrp(fd)
            if group > 0 {
                foreground = group
                break
            }
        }
        return ShieldSafety.Me(pid: getpid(), uid: getuid(), pgid: getpgrp(), foregroundGroup: foreground)
    }

    /// The environment a process was started with (`/proc/PID/environ`, `NAME=value` entries); empty when it
    /// cannot be read (gone, another user's).
    public static func environment(of pid: Int32) -> [String] {
        words(LinuxProcessProbe.readSmallFile("/proc/\(pid)/environ", limit: 1 << 18))
    }

    static func words(_ text: String?) -> [String] {
        guard let text else { return [] }
        return text.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
            .reversed().drop { $0.isEmpty }.reversed()
    }

    /// The executable's file name, from the link /proc/PID/exe (` (deleted)` taken off when the file was replaced).
    static func exeName(_ pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        var path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
        return path.split(separator: "/").last.map(String.init)
    }

    /// The desktop id: from the .desktop file the launcher named in the environment, else from the systemd unit the
    /// desktop started the program in.
    static func desktopID(_ pid: Int32) -> String? {
        let environment = words(LinuxProcessProbe.readSmallFile("/proc/\(pid)/environ", limit: 1 << 18))
        for key in ["GIO_LAUNCHED_DESKTOP_FILE=", "BAMF_DESKTOP_FILE_HINT="] {
            if let entry = environment.first(where: { $0.hasPrefix(key) }),
                let id = DesktopAppID.fromDesktopFile(String(entry.dropFirst(key.count)))
            {
                return id
            }
        }
        let cgroups = LinuxProcessProbe.readSmallFile("/proc/\(pid)/cgroup", limit: 1 << 14) ?? ""
        for line in cgroups.split(separator: "\n") {
            // cgroup v2 (`0::/path`) first; a v1 hierarchy names the same units.
            if let path = line.split(separator: ":", maxSplits: 2).last, let id = DesktopAppID.fromCgroup(String(path))
            {
                return id
            }
        }
        return nil
    }
}
