/// The processes a shield never touches, whatever its patterns match. Fail-safe: when in doubt, a process is
/// protected. This is about not harming the user's session (a frozen shell or terminal cannot be typed into), not
/// about security: the user can always stop hum.
public struct ShieldSafety: Sendable {
    /// Who hum is, as the caller sees it: its pid, its real uid, its process group, and the foreground process group
    /// of its terminal when it has one.
    public struct Me: Sendable, Equatable {
        public var pid: Int32
        public var uid: UInt32
        public var pgid: Int32
        public var foregroundGroup: Int32?
        public init(pid: Int32, uid: UInt32, pgid: Int32, foregroundGroup: Int32? = nil) {
            self.pid = pid
            self.uid = uid
            self.pgid = pgid
            self.foregroundGroup = foregroundGroup
        }
    }

    /// Why a process is protected, in the order checked.
    public enum Reason: String, Sendable, Equatable, CaseIterable {
        case initProcess = "pid 1"
        case kernelThread = "a kernel thread"
        case hum = "hum itself"
        case humAncestor = "a process hum runs under (its shell, terminal or service manager)"
        case humGroup = "a process of hum's own process group"
        case terminalForeground = "the foreground of hum's terminal"
        case otherUser = "another user's process"
        case sessionLeader = "a session leader (a login or terminal shell)"

        /// Whether a pattern that matches a process protected for this reason is refused when added. Another user's
        /// processes and kernel threads are simply never touched: a pattern that also names them is fine.
        public var refusesPattern: Bool { self != .otherUser && self != .kernelThread }
    }

    public let me: Me
    /// hum's ancestors, from its parent up (found through the processes given).
    public let ancestors: Set<Int32>

    public init(me: Me, among processes: [ProcessFacts]) {
        self.me = me
        var parent: [Int32: Int32] = [:]
        for p in processes { parent[p.pid] = p.ppid }
        var found: Set<Int32> = []
        var next = parent[me.pid]
        while let pid = next, pid > 0, found.insert(pid).inserted { next = parent[pid] }
        ancestors = found
    }

    /// Why `process` must never be touched, or nil when a shield may freeze it.
    public func protection(of p: ProcessFacts) -> Reason? {
        if p.pid == 1 { return .initProcess }
        if p.isKernelThread || p.pid == 2 || p.ppid == 2 { return .kernelThread }
        if p.pid < 1 || p.pgid <= 1 { return .initProcess }
        if p.pid == me.pid { return .hum }
        if ancestors.contains(p.pid) { return .humAncestor }
        if p.pgid == me.pgid { return .humGroup }
        if let fg = me.foregroundGroup, fg > 0, p.pgid == fg { return .terminalForeground }
        if p.uid != me.uid { return .otherUser }
        if p.pid == p.sid { return .sessionLeader }
        return nil
    }

    /// Whether every living member of `group` among `processes` may be touched (an empty group may not).
    public func mayTouchGroup(_ group: Int32, among processes: [ProcessFacts]) -> Bool {
        guard group > 1 else { return false }
        let members = processes.filter { $0.pgid == group && !$0.isDead }
        return !members.isEmpty && members.allSatisfy { protection(of: $0) == nil }
    }

    /// Whether every living member of the scope at `path` among `processes` may be touched (an empty one may not).
    public func mayTouchScope(_ path: String, among processes: [ProcessFacts]) -> Bool {
        let members = processes.filter { $0.scope?.path == path && !$0.isDead }
        return !members.isEmpty && members.allSatisfy { protection(of: $0) == nil && $0.uid == me.uid }
    }

    /// The refusal for a target that matches a process that must never be touched, among the processes running now;
    /// nil when it matches none. `hum shield add` refuses such a target (exit 3: a rule refused it; the pattern may be
    /// well formed, it names the wrong thing).
    public func refusal(for target: ShieldTarget, among processes: [ProcessFacts]) -> ShieldRefusal? {
        let matcher = ShieldMatcher(
            shields: [Shield(name: "new", targets: [target], created: Timestamp(epochSeconds: 0, offsetSeconds: 0))])
        for var p in processes {
            // The pattern's own text is in `hum shield add`'s command line (and in a shell's that runs it): what it
            // would match there is the pattern itself, not a program, so it is taken out first.
            if case .match(let pattern) = target, !p.cmdline.isEmpty {
                p.cmdline = [p.commandLine.replacing(pattern, with: "")]
            }
            guard matcher.matches(p) else { continue }
            if let reason = protection(of: p), reason.refusesPattern {
                return ShieldRefusal(target: target, pid: p.pid, name: p.exe ?? p.comm, reason: reason)
            }
        }
        return nil
    }
}

/// A target refused because it matches a process hum never touches (exit 3).
public struct ShieldRefusal: UserFacingError, Sendable, Equatable {
    public var target: ShieldTarget
    public var pid: Int32
    public var name: String
    public var reason: ShieldSafety.Reason

    public var kind: FailureKind { .refused }
    public var message: String {
        "\(target.option.quoted) matches \(name.quoted) (pid \(pid)), \(reason.rawValue), which a shield never "
            + "touches; nothing was changed: name the program more narrowly (--app NAME, or a --match pattern that "
            + "only its command line holds)"
    }
}
