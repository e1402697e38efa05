import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reads the facts of the machine's processes from /proc for the shields (`ProcessFacts`), cheaply enough to do
/// every second: every process costs one `stat` of its folder and one read of its `stat` line (the safety rules
/// need every process's parent and group, whoever owns it); only this user's processes are read further (the
/// executable, the command line and, when asked, the desktop id), and only once per process: what does not change
/// in a process's life is kept by pid and start time until it ends.
public final class ProcessFactsReader {
    /// The uid whose processes are read in full: this user's.
    public let uid: UInt32
    /// Whether to look for desktop ids (the environment and the cgroup): only when a shield names one.
    public var readsDesktopIDs: Bool
    private var kept: [Int32: Kept] = [:]

    private struct Kept {
        var start: Int64
        var exe: String?
        var cmdline: [String]
        var desktopID: String?
        var readDesktopID: Bool
    }

    public init(uid: UInt32 = getuid(), readsDesktopIDs: Bool = true) {
        self.uid = uid
        self.readsDesktopIDs = readsDesktopIDs
    }

    /// Every process now. One that ends while it is read is left out.
    public func snapshot() -> [ProcessFacts] {
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        var out: [ProcessFacts] = []
        var seen: Set<Int32> = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = Int32(name), let facts = read(pid) else { continue }
            seen.insert(pid)
            out.append(facts)
        }
        kept = kept.filter { seen.contains($0.key) }
        return out
    }

    /// The facts of one process, or nil when it is gone.
    public func read(_ pid: Int32) -> ProcessFacts? {
        var info = stat()
        // The owner of /proc/PID is the process's effective uid (root when it is not dumpable): a set-uid program
        // or a process that hid itself counts as another user's, and is never touched.
        guard lstat("/proc/\(pid)", &info) == 0, let line = ProcStat.read(pid) else { return nil }
        var facts = ProcessFacts(
            pid: pid, ppid: line.parent, pgid: line.group, sid: line.session, uid: info.st_uid, tty: line.tty,
            comm: line.comm, start: line.start, state: line.state, isKernelThread: line.isKernelThread)
        guard info.st_uid == uid, !line.isKernelThread else { return facts }
        var known = kept[pid].flatMap { $0.start == line.start ? $0 : nil }
        if known == nil || (readsDesktopIDs && known?.readDesktopID == false) {
            let cmdline = Self.words(LinuxProcessProbe.readSmallFile("/proc/\(pid)/cmdline", limit: 1 << 16))
            // A zombie has no command line yet: read again next time rather than keep nothing.
            if cmdline.isEmpty && line.state != "Z" { return facts }
            known = Kept(
                start: line.start, exe: Self.exeName(pid), cmdline: cmdline,
                desktopID: readsDesktopIDs ? Self.desktopID(pid) : nil, readDesktopID: readsDesktopIDs)
            kept[pid] = known
        }
        facts.exe = known?.exe
        facts.cmdline = known?.cmdline ?? []
        facts.desktopID = known?.desktopID
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
