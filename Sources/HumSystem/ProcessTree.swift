#if canImport(Glibc)
    import Glibc
#endif

/// The processes that belong to the command of a pass (or an emergency), found three ways, each covering a gap of
/// the others:
/// - its process group: everything it starts, unless a process moves to another group or session (setsid);
/// - descent from hum, while hum lives: hum is a child subreaper, so a process that double-forks or calls setsid
///   stays below hum and is found by its parents;
/// - an environment entry (`HUM_PASS_ID=<id>`) that every process inherits: what finds them after hum died, when
///   ancestry is lost (orphans go to init). A process that both leaves the group and clears its environment is
///   found only while hum lives.
public struct ProcessTree {
    /// The group the command leads (its pid).
    public var group: pid_t? = nil
    /// The start time of the group's leader, for a caller that is not its parent: the group is then trusted only
    /// while that leader exists (a zombie counts), since once it is gone the number can be reused by a stranger's
    /// group. The parent keeps the leader unreaped, which keeps the number, and leaves this nil.
    public var leaderStart: Int64? = nil
    /// hum itself, when it is the subreaper of the command.
    public var ancestor: pid_t? = nil
    /// The environment entry the command's processes carry.
    public var tag: String? = nil
    /// Processes never counted nor signalled, with what they start (the watchdog).
    public var spared: Set<pid_t> = []

    public init(
        group: pid_t? = nil, leaderStart: Int64? = nil, ancestor: pid_t? = nil, tag: String? = nil,
        spared: Set<pid_t> = []
    ) {
        self.group = group
        self.leaderStart = leaderStart
        self.ancestor = ancestor
        self.tag = tag
        self.spared = spared
    }

    /// The living members now.
    public func members(in table: ProcessTable = .snapshot()) -> [ProcessTable.Entry] {
        var found: [pid_t: ProcessTable.Entry] = [:]
        let me = getpid()
        if let group = trustedGroup(in: table) {
            for entry in table.members(ofGroup: group) { found[entry.pid] = entry }
        }
        if let ancestor {
            for entry in table.descendants(of: ancestor, pruning: spared) { found[entry.pid] = entry }
        }
        if let tag { for entry in table.carrying(environment: tag) { found[entry.pid] = entry } }
        for pid in spared { found[pid] = nil }
        found[me] = nil
        if let ancestor { found[ancestor] = nil }
        return found.values.sorted { $0.pid < $1.pid }
    }

    public func trustedGroup(in table: ProcessTable) -> pid_t? {
        guard let group else { return nil }
        guard let leaderStart else { return group }
        return table.entries.contains { $0.pid == group && $0.start == leaderStart } ? group : nil
    }

    /// Sends `signal` to every member: once to the group, and to each member outside it. After SIGTERM also
    /// SIGCONT, so a stopped process wakes to handle it. Returns how many processes were signalled.
    @discardableResult
    public func signal(_ signal: Int32, members: [ProcessTable.Entry]? = nil) -> Int {
        let members = members ?? self.members()
        let wake = signal == SIGTERM || signal == SIGHUP
        if let group, members.contains(where: { $0.group == group }) {
            ProcessCall.tolerate { kill(-group, signal) }
            if wake { ProcessCall.tolerate { kill(-group, SIGCONT) } }
        }
        for member in members where member.group != group {
            ProcessCall.tolerate { kill(member.pid, signal) }
            if wake { ProcessCall.tolerate { kill(member.pid, SIGCONT) } }
        }
        return members.count
    }

    /// Stops a tree hum is not the parent of (after hum died: in the watchdog, in the reconciliation): SIGTERM,
    /// then SIGKILL to what is left after `grace` seconds. Nothing tells a non-parent when a process ends, so it
    /// looks again every 100 ms during the grace period only. Returns how many processes were found.
    @discardableResult
    public func stop(grace: Double) -> Int {
        let found = members()
        guard !found.isEmpty else { return 0 }
        signal(SIGTERM, members: found)
        let start = monotonicSeconds()
        var left = members()
        while !left.isEmpty, monotonicSeconds() - start < grace {
            usleep(100_000)
            left = members()
        }
        // SIGKILL until none is left: a process may fork between a look and the signal.
        var rounds = 0
        while !left.isEmpty, rounds < 50 {
            signal(SIGKILL, members: left)
            usleep(20_000)
            left = members()
            rounds += 1
        }
        return found.count
    }
}
