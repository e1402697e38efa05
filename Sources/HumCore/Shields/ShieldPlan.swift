/// What to do so that the processes match the shields' state: which to freeze, which to thaw. Made by the pure
/// `ShieldPlan.make`; carried out by HumSystem's `ProcessFreezer`. Level-triggered: the same state and processes
/// give the same plan, and carrying it out twice does nothing more.
public struct ShieldPlan: Sendable, Equatable {
    /// One signal: to a whole process group (only when every member may be touched), or to one process; or a
    /// desktop program's own scope frozen or thawed as a whole (only when every member may be touched).
    public enum Action: Sendable, Hashable {
        /// `kill(-pgid, …)`; `members` are the group's processes when planned, to check before signalling that the
        /// group still is what was planned.
        case group(Int32, members: [ProcessIdentity])
        case process(ProcessIdentity)
        /// `cgroup.freeze` of the scope at this cgroup path; `members` as for a group.
        case scope(String, members: [ProcessIdentity])

        /// Every process the action holds or resumes (as planned).
        public var processes: [ProcessIdentity] {
            switch self {
            case .group(_, let members), .scope(_, let members): members
            case .process(let id): [id]
            }
        }
    }

    public var freeze: [Action]
    public var thaw: [Action]
    /// The processes frozen by the shields once the plan is carried out: give it back as `frozen` next time.
    public var frozen: Set<ProcessIdentity>
    /// The processes this plan freezes that a shield names (not the other members of their groups), by shield: what a
    /// notification tells.
    public var newlyHeld: [String: [ProcessIdentity]]
    /// Processes a shield that is up names but that are never touched, with the reason.
    public var untouchable: [ProcessIdentity: ShieldSafety.Reason]

    public var isEmpty: Bool { freeze.isEmpty && thaw.isEmpty }

    /// The plan for `processes` (a snapshot of /proc) under `status` (from `ShieldState.shielded`).
    /// - `frozen`: what earlier plans froze (identities; processes gone since are dropped).
    /// - `exempt`: pids never frozen, and thawed if frozen: a pass's own command tree.
    /// A stopped process that a shield names (or that an earlier plan froze) and that should run is thawed, even
    /// when no record says hum froze it: after a restart of hum, the kernel's state is the record.
    public static func make(
        shields: [Shield], status: [String: ShieldStatus], processes: [ProcessFacts], frozen: Set<ProcessIdentity>,
        exempt: Set<Int32>, safety: ShieldSafety
    ) -> ShieldPlan {
        let living = processes.filter { !$0.isDead }
        let up = ShieldMatcher(shields: shields.filter { status[$0.name]?.isUp ?? true })
        let any = ShieldMatcher(shields: shields)
        var groups: [Int32: [ProcessFacts]] = [:]
        var scopes: [String: [ProcessFacts]] = [:]
        for p in living {
            groups[p.pgid, default: []].append(p)
            if let scope = p.scope { scopes[scope.path, default: []].append(p) }
        }

        // The processes a shield that is up names, that may be touched.
        var named: [ProcessFacts] = []
        var untouchable: [ProcessIdentity: ShieldSafety.Reason] = [:]
        for p in living where !exempt.contains(p.pid) && up.matches(p) {
            if let reason = safety.protection(of: p) {
                untouchable[p.identity] = reason
            } else {
                named.append(p)
            }
        }
        // Their whole scopes, else their whole groups, when every member may be touched and none is exempt; else
        // themselves alone.
        var wanted: [ProcessIdentity: ProcessFacts] = [:]
        var wholeScopes: Set<String> = []
        var wholeGroups: Set<Int32> = []
        for p in named {
            wanted[p.identity] = p
            if let path = p.scope?.path, safety.mayTouchScope(path, among: living),
                !(scopes[path] ?? []).contains(where: { exempt.contains($0.pid) })
            {
                wholeScopes.insert(path)
                for m in scopes[path] ?? [] { wanted[m.identity] = m }
                continue
            }
            let members = groups[p.pgid] ?? []
            if safety.mayTouchGroup(p.pgid, among: living), !members.contains(where: { exempt.contains($0.pid) }) {
                wholeGroups.insert(p.pgid)
                for m in members { wanted[m.identity] = m }
            }
        }

        var freeze: [Action] = []
        var newlyHeld: [String: [ProcessIdentity]] = [:]
        let running = wanted.values.filter { !$0.isHeld }
        let inScopes = running.filter { $0.scope.map { wholeScopes.contains($0.path) } ?? false }
        for path in Set(inScopes.compactMap(\.scope?.path)).sorted() {
            freeze.append(.scope(path, members: (scopes[path] ?? []).map(\.identity).sorted()))
        }
        let rest = running.filter { $0.scope.map { !wholeScopes.contains($0.path) } ?? true }
        for (pgid, members) in Dictionary(grouping: rest, by: \.pgid).sorted(by: { $0.key < $1.key }) {
            if wholeGroups.contains(pgid) {
                freeze.append(.group(pgid, members: (groups[pgid] ?? []).map(\.identity).sorted()))
            } else {
                freeze += members.map(\.identity).sorted().map { .process($0) }
            }
        }
        for p in named where !p.isHeld {
            for name in up.shields(holding: p) { newlyHeld[name, default: []].append(p.identity) }
        }

        // Held processes to resume: frozen before or named by any shield, no longer wanted, and touchable. A frozen
        // scope is thawed as a whole once no member of it is wanted; a stopped process is resumed by signal.
        let release = living.filter { p in
            p.isHeld && wanted[p.identity] == nil && (frozen.contains(p.identity) || any.matches(p))
                && safety.protection(of: p) == nil
        }
        var thaw: [Action] = []
        let frozenScopes = Set(release.compactMap { $0.scope?.frozen == true ? $0.scope?.path : nil })
        for path in frozenScopes.sorted() {
            let members = scopes[path] ?? []
            if safety.mayTouchScope(path, among: living), !members.contains(where: { wanted[$0.identity] != nil }) {
                thaw.append(.scope(path, members: members.map(\.identity).sorted()))
            }
        }
        let stopped = release.filter(\.isStopped)
        for (pgid, members) in Dictionary(grouping: stopped, by: \.pgid).sorted(by: { $0.key < $1.key }) {
            let group = groups[pgid] ?? []
            if safety.mayTouchGroup(pgid, among: living), !group.contains(where: { wanted[$0.identity] != nil }) {
                thaw.append(.group(pgid, members: group.map(\.identity).sorted()))
            } else {
                thaw += members.map(\.identity).sorted().map { .process($0) }
            }
        }
        return ShieldPlan(
            freeze: freeze, thaw: thaw, frozen: Set(wanted.keys), newlyHeld: newlyHeld.mapValues { $0.sorted() },
            untouchable: untouchable)
    }
}
