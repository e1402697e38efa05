import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Carries out a `ShieldPlan`: SIGSTOP to freeze, SIGCONT to thaw, to a whole process group or to one process, as
/// planned; a desktop program's own scope is frozen and thawed through its `cgroup.freeze` instead. Each target is checked again just before its signal (the plan was made from a snapshot): a process whose
/// start time changed (its pid was reused) or that left is not signalled, and neither are pid 1, hum itself or hum's
/// group, whatever a plan says.
public struct ProcessFreezer: Sendable {
    /// What happened to one action of a plan.
    public struct Outcome: Sendable, Equatable {
        public enum Result: Sendable, Equatable {
            /// The signal was sent.
            case done
            /// Nothing was sent: the process or group is gone, or is no longer the one planned.
            case gone
            /// The kernel refused the signal (`errno`), or hum refused to send it (`refused`).
            case failed(String)
        }
        public var action: ShieldPlan.Action
        public var freeze: Bool
        public var result: Result
    }

    /// What a plan did: every action's outcome, thaws first.
    public struct Report: Sendable, Equatable {
        public var outcomes: [Outcome] = []
        public var failures: [Outcome] { outcomes.filter { if case .failed = $0.result { true } else { false } } }
        public var frozen: [ShieldPlan.Action] { outcomes.filter { $0.freeze && $0.result == .done }.map(\.action) }
        public var thawed: [ShieldPlan.Action] { outcomes.filter { !$0.freeze && $0.result == .done }.map(\.action) }
    }

    public init() {}

    /// Thaws, then freezes, as the plan says.
    public func carryOut(_ plan: ShieldPlan) -> Report {
        var report = Report()
        for action in plan.thaw {
            report.outcomes.append(Outcome(action: action, freeze: false, result: send(SIGCONT, action)))
        }
        for action in plan.freeze {
            report.outcomes.append(Outcome(action: action, freeze: true, result: send(SIGSTOP, action)))
        }
        return report
    }

    /// Asks one process to end (`shield.action = terminate`): SIGTERM, then SIGCONT so that a frozen program can run
    /// its handler and end; with `kill`, SIGKILL. Checked as a freeze is: never pid 1 or hum, and only the process
    /// planned (same start time, not dead).
    public func terminate(_ id: ProcessIdentity, kill hard: Bool) -> Outcome.Result {
        guard id.pid > 1, id.pid != getpid() else { return .failed("refused: pid \(id.pid) is never signalled") }
        guard Self.isStill(id) != nil else { return .gone }
        guard kill(id.pid, hard ? SIGKILL : SIGTERM) == 0 else { return Self.failure(errno) }
        if !hard { kill(id.pid, SIGCONT) }
        return .done
    }

    func send(_ signal: Int32, _ action: ShieldPlan.Action) -> Outcome.Result {
        let me = getpid()
        switch action {
        case .process(let id):
            guard id.pid > 1, id.pid != me else { return .failed("refused: pid \(id.pid) is never signalled") }
            guard Self.isStill(id) != nil else { return .gone }
            return kill(id.pid, signal) == 0 ? .done : Self.failure(errno)
        case .group(let group, let members):
            guard group > 1, group != getpgrp(), !members.contains(where: { $0.pid == me || $0.pid <= 1 }) else {
                return .failed("refused: process group \(group) is never signalled")
            }
            // The group is still the one planned: every planned member still there is the same process, and at least
            // one of them is still in the group (so the group id was not reused by another group).
            let lines = members.map { Self.isStill($0) }
            guard lines.contains(where: { $0?.group == group }) else { return .gone }
            return kill(-group, signal) == 0 ? .done : Self.failure(errno)
        case .scope(let path, let members):
            guard !members.contains(where: { $0.pid == me || $0.pid <= 1 }),
                CgroupScopes.path(of: me) != path
            else { return .failed("refused: the scope \(path) is never frozen") }
            // The scope is still the one planned: a planned member is still the same process and still in it.
            guard members.contains(where: { Self.isStill($0) != nil && CgroupScopes.path(of: $0.pid) == path }) else {
                return .gone
            }
            let code = CgroupScopes.setFrozen(path, signal == SIGSTOP)
            return code == 0 ? .done : Self.failure(code)
        }
    }

    /// The stat line of the process when it is still the one named (same start time) and not dead.
    static func isStill(_ id: ProcessIdentity) -> ProcStat? {
        guard let line = ProcStat.read(id.pid), line.start == id.start, line.state != "Z", line.state != "X" else {
            return nil
        }
        return line
    }

    static func failure(_ code: Int32) -> Outcome.Result {
        code == ESRCH ? .gone : .failed(String(cString: strerror(code)))
    }
}
