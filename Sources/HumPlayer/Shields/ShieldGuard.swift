import HumCore
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The shields' guard, on the player's loop (docs/shields.md): it makes this user's processes match the shields'
/// state. Level-triggered: on start, on every change it is told of (`reread`) and at the next instant the state can
/// change by itself (an off or a lift ending), it reads the shields from the ledger, asks `ShieldState` which are
/// up, and while any is up looks at the processes once a second, plans with `ShieldPlan` and carries the plan out
/// with `ProcessFreezer`. While no shield is up it does nothing at all between changes.
///
/// It thaws what it froze when it stops (the player stops on purpose); a shield turned off or removed is thawed by
/// the plan itself. A lift this player paid for (`lift`) is settled here when it ends (ShieldGuard+Lift.swift).
final class ShieldGuard {
    let environment: PlayerEnvironment
    let loop: any EventLoopProtocol
    /// Called when a shield's state changed (the player tells its views and subscribers).
    var onChange: () -> Void = {}
    /// Called after every look at the processes: the plan carried out, the processes it was made from, and the
    /// processes whose freeze failed (the shields' notices, ShieldNotices.swift).
    var onScanned: (_ plan: ShieldPlan, _ processes: [ProcessFacts], _ notFrozen: Set<ProcessIdentity>) -> Void = {
        _, _, _ in
    }
    /// Called after every evaluation: the shields, their state and the wall-clock second it was taken at (strong
    /// mode's helper is told, StrongShieldSync.swift).
    var onEvaluated: (_ shields: [Shield], _ states: [String: ShieldStatus], _ now: Int64) -> Void = { _, _, _ in }

    /// The ledger, opened once it exists (the guard never creates it).
    var database: HumDatabase?
    let reader = ProcessFactsReader(readsDesktopIDs: false)
    private let freezer = ProcessFreezer()
    private(set) var inputs = ShieldInputs(shields: [])
    private(set) var states: [String: ShieldStatus] = [:]
    /// What this guard froze, handed back to every plan (so that it is thawed when no longer wanted).
    private(set) var frozen: Set<ProcessIdentity> = []
    /// Pids never frozen, besides a pass's own command tree (found at each look, ShieldGuard+Exempt.swift).
    var exempt: Set<Int32> = [] { didSet { mustPlan = true } }
    /// The once-a-second look at the processes, armed only while a shield is up or lifted.
    private var scanTimer: (any LoopTimer)?
    private var scanning = false
    /// The pids whose facts matter at every look: what the shields name and what the guard froze.
    private(set) var watched: Set<Int32> = []
    private var watchedGroups: Set<Int32> = []
    /// Every shield's targets, compiled once per reading of the shields.
    private var named = ShieldMatcher(shields: [])
    /// Whether the next look plans even when no process changed (the shields or their state changed, or the last
    /// look acted).
    private var mustPlan = true
    /// The next instant a state can change by itself, on the wall clock (lifts and offs end at wall-clock seconds).
    private var changeTimer: (any LoopTimer)?
    private(set) var stopped = false
    /// The last trouble said, so that a lasting one is said once.
    private var lastProblem: String?
    /// The lift this player paid for, while it runs.
    var running: RunningLift?
    /// The running lift's precise end, on the monotonic clock.
    var liftTimer: (any LoopTimer)?
    /// `shield.action` and `shield.grace`, read with the shields (ShieldGuard+Terminate.swift).
    var action: ShieldAction = .freeze
    var graceSeconds: Int64 = 10
    /// With `terminate`: since when (monotonic) each process has been held, and when those asked to end were asked.
    var held: [ProcessIdentity: Double] = [:]
    var terminating: [ProcessIdentity: Double] = [:]
    /// Distracting time: the meter of the lifted shields' programs, and what it measured not yet written, by shield
    /// and day (ShieldGuard+Usage.swift).
    var usageMeter = ShieldUsageMeter()
    var pendingUsage: [UsageKey: Double] = [:]
    var usageWritten: Double = 0
    /// Watchdogs told `done`, reaped once they have exited.
    var spentWatchdogs: [Watchdog] = []

    init(environment: PlayerEnvironment, loop: any EventLoopProtocol) throws(LoopError) {
        self.environment = environment
        self.loop = loop
        scanTimer = try loop.makeTimer(clock: .monotonic) { [unowned self] in self.scan() }
        changeTimer = try loop.makeTimer(clock: .wall) { [unowned self] in self.evaluate() }
        liftTimer = try loop.makeTimer(clock: .monotonic) { [unowned self] in self.liftReachedItsEnd() }
    }

    /// Reads the shields and makes the processes match them.
    func start() { reread() }

    /// Reads the shields from the ledger again (a command changed them), then makes the processes match. When the
    /// ledger cannot be read, the shields stay as last read: fail closed.
    func reread() {
        guard !stopped else { return }
        do {
            if let db = try openDatabase() {
                inputs = try db.shieldInputs()
                named = ShieldMatcher(shields: inputs.shields)
                let settings = try db.settings(environment: [:])
                action = settings.shieldAction
                graceSeconds = settings.shieldGraceSeconds
            }
            lastProblem = nil
        } catch {
            say(
                "the shields could not be read (\((error as? any UserFacingError)?.message ?? "\(error)")); they stay as they were"
            )
        }
        evaluate()
    }

    /// The ledger, once it exists. Opened without the reconciliation of a command: the guard reads shields and
    /// writes only its own lift's pass.
    func openDatabase() throws -> HumDatabase? {
        if let database { return database }
        if let problem = environment.paths.problem { throw PlayerError.failure(problem) }
        guard access(environment.paths.databasePath, F_OK) == 0 else { return nil }
        let db = try HumDatabase(
            path: environment.paths.databasePath, calendar: environment.calendar, probe: LinuxProcessProbe())
        database = db
        return db
    }

    /// The state now, the timers for what comes next, and one look at the processes when a shield exists.
    func evaluate() {
        guard !stopped else { return }
        let now = environment.calendar.clock.nowEpochSeconds()
        let next = ShieldState.shielded(inputs, now: now)
        let changed = next != states
        states = next
        mustPlan = true
        liftMayHaveEnded()
        armNextChange(now: now)
        if !inputs.shields.isEmpty || !frozen.isEmpty { scan() }
        // Looking once a second while a shield that names programs is up (new programs) or lifted (how long its
        // programs run); websites are the browser extension's.
        let looking = inputs.shields.contains { shield in
            guard let state = states[shield.name], state.isUp || state.isLifted else { return false }
            return shield.targets.contains { $0.kind != .site }
        }
        if looking, !scanning {
            scanTimer?.repeating(every: 1)
        } else if !looking, scanning {
            scanTimer?.disarm()
            usageMeter.reset()
        }
        scanning = looking
        if changed { onChange() }
        onEvaluated(inputs.shields, states, now)
    }

    /// Arms the wall-clock timer for the next change: at the turn of the second it happens at (a second before it,
    /// then at the turn, so that a long wait is not cut short by the seconds' rounding).
    private func armNextChange(now: Int64) {
        guard let next = ShieldState.nextChange(inputs, after: now) else {
            changeTimer?.disarm()
            return
        }
        if next - now <= 1 {
            changeTimer?.armAtNextMultiple(of: 1)
        } else {
            changeTimer?.arm(after: Double(min(next - now - 1, 86_400)))
        }
    }

    /// One look at the processes: plan, carry out, keep what is frozen. The look is cheap (`ProcessFactsReader.look`:
    /// only new processes, those watched, the young and a rotating slice are read); when no process changed and the
    /// shields' state did not either, the last plan still holds and nothing more is done. A plan that would do
    /// something is made again from a `snapshot()` (every process read now), and only that one is carried out: what
    /// a signal is sent to is decided on facts read a moment before, as the safety rules require.
    func scan() {
        guard !stopped else { return }
        reapWatchdogs()
        reader.readsDesktopIDs = inputs.shields.contains { $0.targets.contains { $0.kind == .desktopID } }
        reader.look(refreshing: watched)
        let now = environment.monotonic()
        let due = terminationDue(now: now)
        var thawed: Set<ProcessIdentity> = []
        if mustPlan || due || mayMatter() {
            var outcome: ProcessFreezer.Report?
            var planned = plan(reader.current)
            if !planned.plan.isEmpty || due {
                planned = plan(reader.snapshot())
                if !planned.plan.isEmpty {
                    let carried = freezer.carryOut(planned.plan)
                    report(carried)
                    thawed = Set(carried.thawed.flatMap(\.processes))
                    outcome = carried
                }
            }
            let processes = planned.processes
            frozen = planned.plan.frozen
            onScanned(planned.plan, processes, notFrozen(outcome))
            noteHeld(now: now)
            if due { terminateDue(among: planned.processes, now: now) }
            watched = Set(frozen.map(\.pid)).union(processes.lazy.filter { self.named.matches($0) }.map(\.pid))
            watchedGroups = Set(processes.lazy.filter { self.watched.contains($0.pid) }.map(\.pgid))
            // Planned again at the next look, whatever changes: after acting (to see that it held), and while a
            // pass's command is exempt (the pass can end with no process changing).
            mustPlan = !planned.plan.isEmpty || planned.passes
        }
        measureUsage(thawed: thawed, now: now)
    }

    /// Whether what the last look found new, changed or gone can change the plan: a process a shield names, one the
    /// guard watches (named or frozen), or a member of their groups (a freeze takes a group whole only when every
    /// member may be touched). Any other process coming, going or changing (a build's compilers, a shell's state)
    /// leaves the last plan as it was.
    private func mayMatter() -> Bool {
        reader.ended.contains { watched.contains($0) }
            || reader.changes.contains {
                watched.contains($0.pid) || watchedGroups.contains($0.pgid) || named.matches($0)
            }
    }

    /// The plan for `processes`, with a pass's own command left out (ShieldGuard+Exempt).
    private func plan(_ processes: [ProcessFacts]) -> (plan: ShieldPlan, processes: [ProcessFacts], passes: Bool) {
        let safety = ShieldSafety(me: ProcessFactsReader.me(), among: processes)
        // Processes asked to end are left running, to end cleanly (ShieldGuard+Terminate).
        let exempt = exempt.union(terminating.keys.map(\.pid))
        var plan = ShieldPlan.make(
            shields: inputs.shields, status: states, processes: processes, frozen: frozen, exempt: exempt,
            safety: safety)
        // A pass's own command is exempt: planned again without what it would freeze of it (ShieldGuard+Exempt).
        let passes = passProcesses(among: plan)
        if !passes.isEmpty {
            plan = ShieldPlan.make(
                shields: inputs.shields, status: states, processes: processes, frozen: frozen,
                exempt: exempt.union(passes), safety: safety)
        }
        return (plan, processes, !passes.isEmpty)
    }

    /// The processes a freeze was planned for and not sent to (gone, refused).
    private func notFrozen(_ outcome: ProcessFreezer.Report?) -> Set<ProcessIdentity> {
        Set((outcome?.outcomes ?? []).filter { $0.freeze && $0.result != .done }.flatMap(\.action.processes))
    }

    /// Thaws everything this guard froze and stops looking: the player stops on purpose. A lift under way is
    /// settled for the time it ran.
    func stop() {
        guard !stopped else { return }
        endRunningLift(early: true, relock: false)
        let processes = reader.snapshot()
        let safety = ShieldSafety(me: ProcessFactsReader.me(), among: processes)
        // No shield wanted: every process frozen before is thawed (and only those).
        let plan = ShieldPlan.make(
            shields: [], status: [:], processes: processes, frozen: frozen, exempt: [], safety: safety)
        if !plan.isEmpty { report(freezer.carryOut(plan)) }
        frozen = []
        finishUsage()
        held = [:]
        terminating = [:]
        stopped = true
        scanTimer?.disarm()
        changeTimer?.disarm()
        liftTimer?.disarm()
        reapWatchdogs()
    }

    /// The shields as a status shows them, oldest first.
    var lines: [ShieldLine] {
        inputs.shields.map { shield in
            let state = states[shield.name] ?? .up
            var line = ShieldLine(
                name: shield.name, state: state.word, until: state.until.map { environment.calendar.stamp($0) })
            if let running, running.lift.shield == shield.name, running.lift.budget != .emergency {
                line.quotaSeconds = running.quotaSeconds
                line.bankSeconds = running.seconds - running.quotaSeconds
            }
            return line
        }
    }

    private func report(_ outcome: ProcessFreezer.Report) {
        for failure in outcome.failures {
            guard case .failed(let why) = failure.result else { continue }
            let pids = failure.action.processes.map { String($0.pid) }.joined(separator: ", ")
            say("could not \(failure.freeze ? "freeze" : "thaw") pid \(pids): \(why)")
        }
    }

    /// A warning, said once while the same trouble lasts.
    func say(_ problem: String) {
        guard problem != lastProblem else { return }
        lastProblem = problem
        environment.warn(problem)
    }

    private func reapWatchdogs() {
        spentWatchdogs.removeAll { watchdog in
            guard watchdog.process.hasExited() else { return false }
            watchdog.process.reap()
            return true
        }
    }
}
