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
///   shields name or froze, whose state matters every second), every process in its first `youngLooks` looks
///   (stat and command line: a shell or launcher that forked a moment before often execs the real program soon
///   after), and a rotating slice of the rest, each process once every `rotation` looks (an old process that execs
///   a named program is found within that many seconds). `changed` says whether anything differs from the look
///   before: when nothing does, the plan made last time still holds.
///
/// What the look keeps can be stale (a process that changed its group, owner or program since its last read): it is
/// good for deciding that nothing needs doing, never for acting. Before sending any signal the guard takes a
/// `snapshot()` and plans again from it.
public final class ProcessFactsReader {
    /// The uid whose processes are read in full: this user's.
    public let uid: UInt32
    /// Whether to look for desktop ids (the environment and the cgroup): only when a shield names one.
    public var readsDesktopIDs: Bool
    /// How many looks a new process is read again at every look.
    public static let youngLooks: UInt64 = 8
    /// Every process is read again once in this many looks (a slice of them at each).
    public static let rotation: UInt64 = 16
    /// Whether the last `look` or `snapshot` found anything different from the one before (a process new, gone, or
    /// with other facts).
    public private(set) var changed = true
    /// How many processes the last `look` or `snapshot` read (the rest kept their facts): what a look costs.
    public private(set) var reads = 0
    private var kept: [Int32: Kept] = [:]
    private var looks: UInt64 = 0

    private struct Kept {
        var facts: ProcessFacts
        /// The inode number of /proc/PID when it was read (0 when read by pid alone).
        var inode: UInt64
        /// The look that first saw it.
        var born: UInt64
        /// Whether the executable and command line were read (this user's living processes), and the desktop id.
        var complete: Bool
        var readDesktopID: Bool
    }

    public init(uid: UInt32 = getuid(), readsDesktopIDs: Bool = true) {
        self.uid = uid
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
        if kept.count != seen.count {
            kept = kept.filter { seen.contains($0.key) }
            differs = true
        }
        changed = differs
        return out
    }

    /// Every process now, from the facts last read where they are still good (see the type's comment): only new
    /// processes, those in `refreshing`, the young and a rotating slice are read. Not fresh enough to act on.
    public func look(refreshing: Set<Int32> = []) -> [ProcessFacts] {
        looks &+= 1
        let look = looks
        var out: [ProcessFacts] = []
        out.reserveCapacity(kept.count + 16)
        var seen = 0
        var differs = false
        var gone: [Int32] = []
        reads = 0
        Self.eachPid { pid, inode in
            if let known = kept[pid], known.inode == inode,
                known.complete || known.facts.uid != uid || known.facts.isKernelThread,
                !readsDesktopIDs || known.readDesktopID
            {
                let age = look &- known.born
                let young = age <= Self.youngLooks
                guard young || refreshing.contains(pid) || (UInt64(pid) &+ look) % Self.rotation == 0 else {
                    seen += 1
                    out.append(known.facts)
                    return
                }
                guard let facts = read(pid, inode: inode, rereadProgram: young) else {
                    gone.append(pid)
                    return
                }
                seen += 1
                if facts != known.facts { differs = true }
                out.append(facts)
                return
            }
            // New (or its pid reused: another inode), or not read in full yet.
            let before = kept[pid]?.facts
            guard let facts = read(pid, inode: inode, rereadProgram: false) else { return }
            if before != facts { differs = true }
            seen += 1
            out.append(facts)
        }
        for pid in gone { kept[pid] = nil }
        if kept.count != seen {
            let living = Set(out.map(\.pid))
            kept = kept.filter { living.contains($0.key) }
            differs = true
        }
        changed = differs
        return out
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
    public func read(_ pid: Int32) -> ProcessFacts? { read(pid, inode: kept[pid]?.inode ?? 0, rereadProgram: false) }

    /// The facts of one process read now (its owner and stat line; its program too when it is new, when its command
    /// name changed, or with `rereadProgram`), kept for the next look; nil when it is gone.
    private func read(_ pid: Int32, inode: UInt64, rereadProgram: Bool) -> ProcessFacts? {
        reads += 1
        var info = stat()
        // The owner of /proc/PID is the process's effective uid (root when it is not dumpable): a set-uid program
        // or a process that hid itself counts as another user's, and is never touched.
        guard lstat("/proc/\(pid)", &info) == 0, let line = ProcStat.read(pid) else {
            kept[pid] = nil
            return nil
        }
        var facts = ProcessFacts(
            pid: pid, ppid: line.parent, pgid: line.group, sid: line.session, uid: info.st_uid, tty: line.tty,
            comm: line.comm, start: line.start, state: line.state, isKernelThread: line.isKernelThread)
        let known = kept[pid].flatMap { $0.facts.start == line.start ? $0 : nil }
        let born = known?.born ?? looks
        guard info.st_uid == uid, !line.isKernelThread else {
            kept[pid] = Kept(facts: facts, inode: inode, born: born, complete: false, readDesktopID: false)
            return facts
        }
        if let known, known.complete, !rereadProgram, known.facts.comm == line.comm, known.facts.uid == info.st_uid,
            !readsDesktopIDs || known.readDesktopID
        {
            facts.exe = known.facts.exe
            facts.cmdline = known.facts.cmdline
            facts.desktopID = known.facts.desktopID
            kept[pid] = Kept(facts: facts, inode: inode, born: born, complete: true, readDesktopID: known.readDesktopID)
            return facts
        }
        let cmdline = Self.words(LinuxProcessProbe.readSmallFile("/proc/\(pid)/cmdline", limit: 1 << 16))
        facts.exe = Self.exeName(pid)
        facts.cmdline = cmdline
        facts.desktopID = readsDesktopIDs ? Self.desktopID(pid) : nil
        // A process in the middle of starting has no command line yet: read again next time rather than keep it.
        let complete = !cmdline.isEmpty || line.state == "Z"
        kept[pid] = Kept(facts: facts, inode: inode, born: born, complete: complete, readDesktopID: readsDesktopIDs)
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
