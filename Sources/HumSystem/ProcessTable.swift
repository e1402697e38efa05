#if canImport(Glibc)
    import Glibc
#endif

/// The processes of the machine as /proc shows them at one moment: who is whose parent, and in which process group.
/// How the processes of a pass are found: by its process group, by descent from hum, and by the environment entry
/// each of them inherits.
public struct ProcessTable: Sendable {
    public struct Entry: Sendable, Equatable {
        public var pid: Int32
        public var parent: Int32
        public var group: Int32
        /// The state letter of /proc/PID/stat: `Z` is a zombie (dead, not yet reaped), `T` stopped.
        public var state: Character
        /// Clock ticks after boot: with the pid, names one process for good.
        public var start: Int64
        public var isDead: Bool { state == "Z" || state == "X" }
    }

    public private(set) var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Reads /proc now. A process that ends while it is read is left out.
    public static func snapshot() -> ProcessTable {
        guard let dir = opendir("/proc") else { return ProcessTable(entries: []) }
        defer { closedir(dir) }
        var entries: [Entry] = []
        while let item = readdir(dir) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = Int32(name), let fields = statFields(pid) else { continue }
            entries.append(fields)
        }
        return ProcessTable(entries: entries)
    }

    /// The living processes (zombies left out) that descend from `ancestor`, not counting the subtrees of `pruned`.
    public func descendants(of ancestor: Int32, pruning pruned: Set<Int32> = []) -> [Entry] {
        var children: [Int32: [Entry]] = [:]
        for entry in entries { children[entry.parent, default: []].append(entry) }
        var found: [Entry] = []
        var queue = [ancestor]
        var seen: Set<Int32> = [ancestor]
        while let next = queue.popLast() {
            for child in children[next] ?? [] where !pruned.contains(child.pid) && seen.insert(child.pid).inserted {
                if !child.isDead { found.append(child) }
                queue.append(child.pid)
            }
        }
        return found
    }

    /// The living members of process group `group`.
    public func members(ofGroup group: Int32) -> [Entry] {
        entries.filter { $0.group == group && !$0.isDead }
    }

    /// The living processes whose environment holds `entry` (`NAME=value`), read from /proc/PID/environ: the
    /// environment each was started with, which its children inherit. Processes of other users cannot be read
    /// (unless hum runs as root) and are left out.
    public func carrying(environment entry: String) -> [Entry] {
        let needle = Array(entry.utf8)
        let me = getpid()
        return entries.filter { process in
            guard process.pid != me, !process.isDead,
                let environ = LinuxProcessProbe.readSmallFile("/proc/\(process.pid)/environ", limit: 1 << 20)
            else { return false }
            return Array(environ.utf8).split(separator: 0).contains { $0.elementsEqual(needle) }
        }
    }

    /// Fields 3 (state), 4 (parent), 5 (process group) and 22 (start time) of /proc/PID/stat.
    static func statFields(_ pid: Int32) -> Entry? {
        ProcStat.read(pid).map { Entry(pid: pid, parent: $0.parent, group: $0.group, state: $0.state, start: $0.start) }
    }
}
