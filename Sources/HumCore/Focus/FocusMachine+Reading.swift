/// What the focus machine says about itself between inputs: its state, round, deadlines and countdown.
extension FocusMachine {
    public var state: State {
        switch stage {
        case .notStarted: .notStarted
        case .active(let p): p.runningSince != nil ? .running(p.kind) : .paused(p.kind)
        case .waiting(let kind, _): .waiting(kind)
        case .finished(let ending): .finished(ending)
        }
    }

    /// The current focus round (1-based); a break carries the number of the round before it.
    public var round: Int {
        switch stage {
        case .notStarted: 1
        case .active(let p): p.round
        case .waiting(_, let round): round
        case .finished: plan.rounds
        }
    }

    /// True once the session completed or was stopped: every later input is ignored.
    public var isFinished: Bool {
        if case .finished = stage { true } else { false }
    }

    /// When the current phase (running or paused) started, as time since the session start; nil when none is.
    public var phaseStart: Duration? {
        guard case .active(let p) = stage else { return nil }
        return .nanoseconds(p.start)
    }

    /// When the running phase will run out, as time since the session start: persist it (as wall time) with the
    /// round so a killed process leaves a record. Nil while paused (the deadline moves), waiting or finished.
    public var deadline: Duration? {
        guard case .active(let p) = stage, let deadline = p.deadline else { return nil }
        return .nanoseconds(deadline)
    }

    /// Active and paused time of the current phase so far (as of the last handled instant), for the heartbeat
    /// that lets a dead process leave a record with its real active time; nil when no phase is under way.
    public var phaseProgress: (active: Duration, paused: Duration)? {
        guard case .active(let p) = stage else { return nil }
        return (.nanoseconds(p.active(at: now)), .nanoseconds(p.paused(at: now)))
    }

    /// The kind and round of the phase under way (running or paused).
    public var currentPhase: (kind: FocusPhase, round: Int)? {
        guard case .active(let p) = stage else { return nil }
        return (p.kind, p.round)
    }

    /// Whether the user's own mix is playing instead of the automatic fade (see `FocusInput.userChangedMix`).
    public var userMixWins: Bool { userTookOver }

    /// How long after the last handled instant the adapter must send a `.tick` at the latest (a deadline, a fade
    /// start, the end of a ramp); nil when nothing is scheduled (paused, waiting, finished, not started).
    public var nextWakeup: Duration? {
        guard case .active(let p) = stage, let deadline = p.deadline else { return nil }
        var next = deadline
        if case .rampingUp(let until) = sound { next = min(next, until) }
        if p.kind == .focus, !userTookOver, sound == .full || sound == .silent {
            next = min(next, deadline - fadeNs)
        }
        return .nanoseconds(max(0, next - now))
    }

    /// The live countdown as of the last handled instant.
    public var countdown: FocusCountdown {
        switch stage {
        case .notStarted:
            return FocusCountdown(
                state: state, phase: .focus, round: 1, rounds: plan.rounds, remaining: plan.focus,
                planned: plan.focus)
        case .active(let p):
            return FocusCountdown(
                state: state, phase: p.kind, round: p.round, rounds: plan.rounds,
                remaining: .nanoseconds(max(0, p.remaining(at: now))), planned: .nanoseconds(p.planned))
        case .waiting(let kind, let round):
            let d = plan.duration(of: kind)
            return FocusCountdown(
                state: state, phase: kind, round: round, rounds: plan.rounds, remaining: d, planned: d)
        case .finished:
            return FocusCountdown(
                state: state, phase: nil, round: plan.rounds, rounds: plan.rounds, remaining: .zero,
                planned: .zero)
        }
    }

}
