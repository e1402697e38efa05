/// The systemd scope a desktop started a program in (`app-<launcher>-<id>-<random>.scope` under the user's own
/// `user@UID.service`): a cgroup of the program's processes alone, which the user may freeze as a whole
/// (`cgroup.freeze`, delegated to the user by the user manager). A program in such a scope is frozen through it, so
/// that a process it starts later (or that left its process group) is held too.
public struct AppScope: Sendable, Hashable {
    /// The cgroup's path from the cgroup2 root, as /proc/PID/cgroup gives it (`/user.slice/…/app-….scope`).
    public var path: String
    /// Whether the cgroup is frozen now (`frozen 1` in its `cgroup.events`). Its processes then read `S`, not `T`.
    public var frozen: Bool

    public init(path: String, frozen: Bool) {
        self.path = path
        self.frozen = frozen
    }

    /// Whether `path` (a cgroup v2 path) is a desktop program's own scope under the user manager of `uid`: its last
    /// unit an `app-….scope`, below `user@UID.service`, with no `.` or `..` unit and nothing but plain unit names.
    /// Anything else (a terminal's `vte-spawn-….scope`, a session's `session-2.scope`, another user's manager) is not
    /// frozen as a scope.
    public static func isAppScope(_ path: String, uid: UInt32) -> Bool {
        guard path.hasPrefix("/"), path.utf8.count < 4096 else { return false }
        let units = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard let last = units.last, last.hasPrefix("app-"), last.hasSuffix(".scope"), last.count > 10 else {
            return false
        }
        guard units.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return false }
        return units.contains { $0 == "user@\(uid).service" }
    }
}
