import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The cgroup v2 side of the shields: which cgroup a process runs in, whether a cgroup is frozen, and freezing or
/// thawing one (`cgroup.freeze`, which the user manager delegates to its user for the scopes under
/// `user@UID.service`). Only the desktop programs' own scopes are ever frozen (`AppScope.isAppScope`).
public enum CgroupScopes {
    /// Where the cgroup2 hierarchy is mounted (`/sys/fs/cgroup` on a unified system, `/sys/fs/cgroup/unified` on a
    /// hybrid one), from /proc/self/mountinfo; nil when there is none.
    public static let root: String? = mountPoint(
        LinuxProcessProbe.readSmallFile("/proc/self/mountinfo", limit: 1 << 20) ?? "")

    /// The mount point of the first cgroup2 line of a mountinfo text (fields: id, parent, dev, root, mount point,
    /// options…, `-`, type, source, options), with its octal escapes (`\040` for a space) undone.
    static func mountPoint(_ mountinfo: String) -> String? {
        for line in mountinfo.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count, fields[dash + 1] == "cgroup2",
                fields.count > 4
            else { continue }
            return unescape(String(fields[4]))
        }
        return nil
    }

    private static func unescape(_ text: String) -> String {
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x5C, i + 3 < bytes.count,
                let value = UInt8(String(decoding: bytes[(i + 1)...(i + 3)], as: UTF8.self), radix: 8)
            {
                out.append(value)
                i += 4
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The cgroup v2 path of process `pid` (`0::/path` in /proc/PID/cgroup); nil when gone or none.
    public static func path(of pid: Int32) -> String? {
        guard let text = LinuxProcessProbe.readSmallFile("/proc/\(pid)/cgroup", limit: 1 << 14) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("0::") {
            return String(line.dropFirst(3))
        }
        return nil
    }

    /// The desktop program's own scope process `pid` runs in, under `uid`'s user manager, with whether it is frozen.
    public static func appScope(of pid: Int32, uid: UInt32) -> AppScope? {
        guard root != nil, let path = path(of: pid), AppScope.isAppScope(path, uid: uid) else { return nil }
        return AppScope(path: path, frozen: isFrozen(path))
    }

    /// Whether the cgroup at `path` says `frozen 1` in its `cgroup.events`.
    public static func isFrozen(_ path: String) -> Bool {
        guard let root, let text = LinuxProcessProbe.readSmallFile(root + path + "/cgroup.events", limit: 4096)
        else { return false }
        return text.split(separator: "\n").contains("frozen 1")
    }

    /// Writes `1` (freeze) or `0` (thaw) to the cgroup's `cgroup.freeze`; 0 when done, else the errno.
    public static func setFrozen(_ path: String, _ frozen: Bool) -> Int32 {
        guard let root else { return ENOENT }
        let fd = open(root + path + "/cgroup.freeze", O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        let byte: [UInt8] = [frozen ? 0x31 : 0x30]
        return write(fd, byte, 1) == 1 ? 0 : errno
    }
}
