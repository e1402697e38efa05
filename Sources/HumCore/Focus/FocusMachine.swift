/// The Pomodoro state machine that drives the sound mix: a value type with no clock, no I/O and no knowledge of the
/// mix itself. The adapter feeds it inputs at instants it reads (`handle(_:at:)`) and carries out the effects it
/// returns, in order.
///
/// States: not started → a phase (focus, short break, long break) running or paused → the next phase, or waiting
/// for the user when `FocusPlan.autoAdvance` says so → finished (completed or stopped). `docs/focus.md` has the
/// full table of states, inputs and effects.
///
/// Time: the machine's timeline is `MonotonicInstant.boottime`. Before handling any input it processes the time
/// that passed since its previous call: first a suspend (boot time advanced more than monotonic time, by at least
/// `suspendThreshold`) is turned into pause inserted right after the previous call, then every fade start, ramp end
/// and deadline up to now fires in order. Phases end at their deadlines, not at the tick that noticed them, so a
/// late tick never stretches a round.
public struct FocusMachine: Equatable, Sendable {
    /// A boot-time advance beyond the monotonic advance shorter than this is clock-reading jitter, not a suspend.
    public static let suspendThreshold: Duration = .milliseconds(250)

    /// Where the session stands.
    public enum State: Equatable, Sendable {
        case notStarted
        case running(FocusPhase)
        case paused(FocusPhase)
        /// The previous phase ran out; `FocusInput.start` begins this one.
        case waiting(FocusPhase)
        case finished(Ending)
    }

    public enum Ending: String, Equatable, Sendable {
        /// The last focus round ran out (or was skipped).
        case completed
        /// The user stopped the session.
        case stopped
    }

    public let plan: FocusPlan
    /// The reading passed with the first `.start`; record and notice times are offsets from it.
    public private(set) var sessionStart: MonotonicInstant?

    // MARK: state

    /// A phase under way (running or paused). Times are nanoseconds since the session start, on boot time.
    struct Phase: Equatable, Sendable {
        var kind: FocusPhase
        var round: Int
        var start: Int64
        var planned: Int64
        var extended: Int64 = 0
        /// Active time before `runningSince`.
        var activeBefore: Int64 = 0
        var runningSince: Int64?
        /// Paused time before `pausedSince`.
        var pausedBefore: Int64 = 0
        var pausedSince: Int64?

        func active(at t: Int64) -> Int64 { activeBefore + (runningSince.map { t - $0 } ?? 0) }
        func paused(at t: Int64) -> Int64 { pausedBefore + (pausedSince.map { t - $0 } ?? 0) }
        func remaining(at t: Int64) -> Int64 { planned - active(at: t) }
        /// When the phase runs out, if it is running.
        var deadline: Int64? { runningSince.map { $0 + planned - activeBefore } }
    }

    enum Stage: Equatable, Sendable {
        case notStarted
        case active(Phase)
        case waiting(FocusPhase, round: Int)
        case finished(Ending)
    }

    /// Where the fade level is meant to be heading.
    enum Sound: Equatable, Sendable {
        /// Level 0: a break, a pause, waiting, or finished.
        case silent
        /// A ramp up (fade-in, resume, reversed fade) that ends at the given time.
        case rampingUp(until: Int64)
        /// Level 1.
        case full
        /// The end-of-round fade toward silence at the deadline.
        case fadingOut
    }

    var stage: Stage = .notStarted
    var sound: Sound = .silent
    /// The user changed the sounds after the fade began or during the break: no automatic fade until the next
    /// focus round has started (which leaves their mix as it is).
    var userTookOver = false
    /// `.saveResumeMix` was sent for the current focus round's fade.
    var resumeMixSaved = false
    /// The last reading handled, and the time (since session start) it stands for.
    var lastReading: MonotonicInstant?
    var now: Int64 = 0

    let fadeNs: Int64
    private let pauseFadeNs: Int64

    public init(plan: FocusPlan) {
        self.plan = plan
        fadeNs = FocusTime.nanoseconds(plan.fade)
        pauseFadeNs = FocusTime.nanoseconds(plan.pauseFade)
    }

    // MARK: handling inputs

    /// Handles one input at the reading `at` and returns the effects to carry out, in order. Inputs that mean
    /// nothing in the current state (pause when paused, extend while waiting, anything after the end) are ignored
    /// and return no effects, though the time that passed is still processed.
    public mutating func handle(_ input: FocusInput, at reading: MonotonicInstant) -> [FocusEffect] {
        var effects: [FocusEffect] = []
        guard let origin = sessionStart else {
            if input == .start {
                sessionStart = reading
                lastReading = reading
                now = 0
                begin(.focus, round: 1, at: 0, into: &effects)
                advance(into: &effects)
            }
            return effects
        }
        if case .finished = stage { return effects }
        observe(reading, origin: origin, into: &effects)
        advance(into: &effects)
        switch input {
        case .tick: break
        case .start: startWaitingPhase(into: &effects)
        case .pause: pause(into: &effects)
        case .resume: resume(into: &effects)
        case .togglePause:
            switch state {
            case .running: pause(into: &effects)
            case .paused: resume(into: &effects)
            case .waiting: startWaitingPhase(into: &effects)
            default: break
            }
        case .skip: skip(into: &effects)
        case .extend(by: let amount): extend(by: FocusTime.nanoseconds(amount), into: &effects)
        case .stop: stop(into: &effects)
        case .restart: restart(into: &effects)
        case .userChangedMix: userChangedMix(into: &effects)
        }
        advance(into: &effects)
        return effects
    }

    // MARK: time

    /// Moves `now` to the reading, turning a suspend since the previous reading into pause.
    private mutating func observe(
        _ reading: MonotonicInstant, origin: MonotonicInstant, into effects: inout [FocusEffect]
    ) {
        let last = lastReading ?? origin
        lastReading = reading
        let bootDelta = reading.boottime >= last.boottime ? Int64(clamping: reading.boottime - last.boottime) : 0
        let monoDelta = reading.monotonic >= last.monotonic ? Int64(clamping: reading.monotonic - last.monotonic) : 0
        let suspended = bootDelta - min(bootDelta, monoDelta)
        let previous = now
        now = max(now, reading.boottime >= origin.boottime ? Int64(clamping: reading.boottime - origin.boottime) : 0)
        guard suspended >= FocusTime.nanoseconds(Self.suspendThreshold), case .active(var p) = stage,
            let since = p.runningSince
        else { return }
        // The suspend began right after the previous reading (ticks are frequent): the phase was paused from then
        // for as long as the machine slept. Audio ramps were frozen too, so they move with it.
        let shift = min(suspended, now - previous)
        p.runningSince = since + shift
        p.pausedBefore += shift
        stage = .active(p)
        if case .rampingUp(let until) = sound { sound = .rampingUp(until: until + shift) }
        notice(.wake, p.kind, p.round, remaining: p.remaining(at: now), at: now, into: &effects)
    }

    /// Fires everything scheduled up to `now`: ramp ends, the fade start, deadlines (and the phases after them).
    private mutating func advance(into effects: inout [FocusEffect]) {
        while case .active(let p) = stage, let deadline = p.deadline {
            if case .rampingUp(let until) = sound, until <= now { sound = .full }
            if p.kind == .focus, !userTookOver, sound == .full || sound == .silent, deadline - fadeNs <= now {
                if !resumeMixSaved {
                    effects.append(.saveResumeMix)
                    resumeMixSaved = true
                }
                effects.append(.startFadeOut(over: .nanoseconds(max(0, deadline - now))))
                sound = .fadingOut
            }
            guard deadline <= now else { return }
            // The phase ran out at its deadline.
            var done = p
            done.activeBefore = p.planned
            done.runningSince = nil
            effects.append(.recordRound(record(done, status: .completed, end: deadline)))
            effects.append(.chime)
            if p.kind == .focus, !userTookOver { sound = .silent }
            guard let next = plan.phase(after: p.kind, round: p.round) else {
                // Silent already at the deadline, unless the user's own mix is playing.
                finish(.completed, at: deadline, fadeOut: sound == .silent ? 0 : pauseFadeNs, into: &effects)
                return
            }
            if plan.autoAdvance.advancesOnItsOwn(into: next.phase) {
                begin(next.phase, round: next.round, at: deadline, into: &effects)
            } else {
                stage = .waiting(next.phase, round: next.round)
                notice(
                    .wait, next.phase, next.round, remaining: FocusTime.nanoseconds(plan.duration(of: next.phase)),
                    at: deadline, into: &effects)
            }
        }
    }

    // MARK: transitions

    /// Starts a phase that began at `start` (the previous deadline, or now).
    private mutating func begin(_ kind: FocusPhase, round: Int, at start: Int64, into effects: inout [FocusEffect]) {
        let p = Phase(
            kind: kind, round: round, start: start, planned: FocusTime.nanoseconds(plan.duration(of: kind)),
            runningSince: start)
        stage = .active(p)
        notice(.start, kind, round, remaining: p.planned, at: start, into: &effects)
        if kind == .focus {
            resumeMixSaved = false
            if userTookOver {
                // Their sounds are already playing: leave them as they are.
                userTookOver = false
                sound = .full
            } else {
                // The fade-in ends before the end-of-round fade begins; with fade == focus it is instant.
                let fadeIn = max(0, min(fadeNs, p.remaining(at: now) - fadeNs))
                effects.append(.fadeIn(over: .nanoseconds(fadeIn)))
                sound = fadeIn > 0 ? .rampingUp(until: now + fadeIn) : .full
            }
        } else {
            sound = userTookOver ? .full : .silent
        }
    }

    private mutating func startWaitingPhase(into effects: inout [FocusEffect]) {
        guard case .waiting(let kind, let round) = stage else { return }
        begin(kind, round: round, at: now, into: &effects)
    }

    private mutating func pause(into effects: inout [FocusEffect]) {
        guard case .active(var p) = stage, let since = p.runningSince else { return }
        p.activeBefore += now - since
        p.runningSince = nil
        p.pausedSince = now
        stage = .active(p)
        if sound != .silent { effects.append(.pauseFadeOut(over: plan.pauseFade)) }
        sound = .silent
        notice(.pause, p.kind, p.round, remaining: p.remaining(at: now), at: now, into: &effects)
    }

    private mutating func resume(into effects: inout [FocusEffect]) {
        guard case .active(var p) = stage, let since = p.pausedSince else { return }
        p.pausedBefore += now - since
        p.pausedSince = nil
        p.runningSince = now
        stage = .active(p)
        notice(.resume, p.kind, p.round, remaining: p.remaining(at: now), at: now, into: &effects)
        if userTookOver {
            effects.append(.resumeFadeIn(over: plan.pauseFade, toLevel: 1))
            sound = .full
        } else if p.kind == .focus {
            let remaining = p.remaining(at: now)
            if remaining > pauseFadeNs {
                // Ramp to where the end-of-round fade will be when the ramp ends; `advance` carries on from there.
                let level = fadeLevel(remaining: remaining - pauseFadeNs)
                effects.append(.resumeFadeIn(over: plan.pauseFade, toLevel: level))
                sound = .rampingUp(until: now + pauseFadeNs)
            } else {
                // Too little time left to come back: stay silent to the round's end.
                if !resumeMixSaved {
                    effects.append(.saveResumeMix)
                    resumeMixSaved = true
                }
                sound = .fadingOut
            }
        }
    }

    private mutating func extend(by requested: Int64, into effects: inout [FocusEffect]) {
        guard case .active(var p) = stage else { return }
        // A phase never grows beyond the longest duration a plan accepts (a year): no overflow, however often.
        let amount = min(requested, FocusTime.nanoseconds(FocusPlan.maximumDuration) - p.planned)
        guard amount > 0 else { return }
        let before = p.remaining(at: now)
        p.planned += amount
        p.extended += amount
        stage = .active(p)
        let after = before + amount
        if p.kind == .focus, !userTookOver {
            if after > fadeNs { resumeMixSaved = false }  // the fade has not begun under the new deadline
            if p.runningSince != nil {
                switch sound {
                case .fadingOut where after > fadeNs:
                    // Retrace the part of the fade already played, back to full before the new fade start.
                    let played = max(0, fadeNs - before)
                    let back = min(played, after - fadeNs)
                    effects.append(.reverseFadeOut(over: .nanoseconds(back)))
                    sound = back > 0 ? .rampingUp(until: now + back) : .full
                case .fadingOut:
                    // The new deadline is still inside the fade: carry on from here, more slowly.
                    effects.append(.startFadeOut(over: .nanoseconds(after)))
                case .rampingUp(let until):
                    // A resume ramp aims at the fade's level at its end: aim at the new one.
                    let left = until - now
                    let old = fadeLevel(remaining: before - left)
                    let new = fadeLevel(remaining: after - left)
                    if new != old { effects.append(.resumeFadeIn(over: .nanoseconds(left), toLevel: new)) }
                case .full, .silent:
                    break
                }
            }
        }
        notice(.extend, p.kind, p.round, remaining: after, at: now, into: &effects)
    }

    private mutating func skip(into effects: inout [FocusEffect]) {
        switch stage {
        case .active(let p):
            effects.append(.recordRound(record(p, status: .skipped, end: now)))
            let next = plan.phase(after: p.kind, round: p.round)
            // A quick fade to the break's silence (or to the end), never past the round's own deadline.
            let quick = min(pauseFadeNs, max(0, p.remaining(at: now)))
            if p.kind == .focus, !userTookOver, next != nil {
                if !resumeMixSaved {
                    effects.append(.saveResumeMix)
                    resumeMixSaved = true
                }
                if sound != .silent { effects.append(.startFadeOut(over: .nanoseconds(quick))) }
                sound = .silent
            }
            notice(.skip, p.kind, p.round, remaining: p.remaining(at: now), at: now, into: &effects)
            if let next {
                begin(next.phase, round: next.round, at: now, into: &effects)
            } else {
                finish(.completed, at: now, fadeOut: p.runningSince == nil ? pauseFadeNs : quick, into: &effects)
            }
        case .waiting:
            startWaitingPhase(into: &effects)
        case .notStarted, .finished:
            break
        }
    }

    private mutating func restart(into effects: inout [FocusEffect]) {
        guard case .active(let p) = stage, p.kind == .focus else { return }
        effects.append(.recordRound(record(p, status: .interrupted, end: now)))
        notice(.restart, p.kind, p.round, remaining: p.remaining(at: now), at: now, into: &effects)
        // What plays now (the user's mix, or the chosen one partway through its fade) is what the round brings in.
        effects.append(.saveResumeMix)
        userTookOver = false
        begin(.focus, round: p.round, at: now, into: &effects)
    }

    private mutating func stop(into effects: inout [FocusEffect]) {
        switch stage {
        case .active(let p):
            effects.append(.recordRound(record(p, status: .interrupted, end: now)))
            notice(.stop, p.kind, p.round, remaining: p.remaining(at: now), at: now, into: &effects)
        case .waiting(let kind, let round):
            notice(
                .stop, kind, round, remaining: FocusTime.nanoseconds(plan.duration(of: kind)), at: now,
                into: &effects)
        case .notStarted, .finished:
            return
        }
        // Even when meant to be silent, a pause ramp may still be sounding: always give the short fade.
        effects.append(.endSession(fadeOut: plan.pauseFade))
        sound = .silent
        stage = .finished(.stopped)
    }

    private mutating func userChangedMix(into effects: inout [FocusEffect]) {
        guard !userTookOver else { return }
        let audible: Bool
        switch stage {
        case .active(let p):
            // During a focus round, only once its end-of-round fade has begun.
            if p.kind == .focus, p.remaining(at: now) > fadeNs { return }
            audible = p.runningSince != nil
        case .waiting:
            audible = true
        case .notStarted, .finished:
            return
        }
        userTookOver = true
        effects.append(.keepUserMix(audible: audible))
        sound = audible ? .full : .silent
    }

    private mutating func finish(_ ending: Ending, at t: Int64, fadeOut: Int64, into effects: inout [FocusEffect]) {
        stage = .finished(ending)
        notice(.finish, nil, plan.rounds, remaining: 0, at: t, into: &effects)
        effects.append(.endSession(fadeOut: .nanoseconds(fadeOut)))
        sound = .silent
    }

    // MARK: helpers

    /// The end-of-round fade's level with `remaining` left in the round: 1 before the fade, 0 at the deadline.
    private func fadeLevel(remaining: Int64) -> Double {
        if remaining >= fadeNs { return 1 }
        if remaining <= 0 { return 0 }
        return Double(remaining) / Double(fadeNs)
    }

    private func record(_ p: Phase, status: FocusRoundRecord.Status, end: Int64) -> FocusRoundRecord {
        FocusRoundRecord(
            phase: p.kind, round: p.round, status: status, start: .nanoseconds(p.start),
            end: .nanoseconds(end), planned: .nanoseconds(p.planned), extended: .nanoseconds(p.extended),
            active: .nanoseconds(p.active(at: end)), paused: .nanoseconds(p.paused(at: end)))
    }

    private func notice(
        _ event: FocusNotice.Event, _ phase: FocusPhase?, _ round: Int, remaining: Int64, at: Int64,
        into effects: inout [FocusEffect]
    ) {
        effects.append(
            .phaseChanged(
                FocusNotice(
                    event: event, phase: phase, round: round, rounds: plan.rounds,
                    remaining: .nanoseconds(max(0, remaining)), at: .nanoseconds(at))))
    }
}
