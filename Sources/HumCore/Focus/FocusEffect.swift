/// What the user (or the adapter's timer) tells the focus machine. Every input is handled at an instant the adapter
/// passes in; time is processed first, so any input also acts as a `.tick`.
public enum FocusInput: Equatable, Sendable {
    /// Start the session (the first call), or the phase that waits for the user.
    case start
    /// Nothing happened but time passed. Send one at `FocusMachine.nextWakeup` at the latest.
    case tick
    /// Pause the running phase: the mix fades out, the deadline stops approaching.
    case pause
    /// Resume a paused phase.
    case resume
    /// Space: pause when running, resume when paused, start when waiting.
    case togglePause
    /// End the current phase now (recorded as skipped) and start the next one; while waiting, the same as `.start`.
    case skip
    /// Add time to the current phase (running or paused). `FocusPlan.extendStep` is the `e` key's amount.
    case extend(by: Duration)
    /// End the session: the current phase is recorded as interrupted and the mix fades out.
    case stop
    /// Start the focus round under way (running or paused) again from its full length (the desktop's Previous):
    /// it is recorded as interrupted, and the mix playing now is the one the new round brings in. Ignored in a
    /// break, while waiting, and before or after the session.
    case restart
    /// The user changed the sounds (a mixer key). Only matters once the end-of-round fade began, in a break, or
    /// while waiting: then the user's sounds win.
    case userChangedMix
}

/// What the adapter must carry out, in the order given, when a call returns.
///
/// Audio effects speak of the *fade level*: a number on the engine's fade curve where 1 is the mix as the user set
/// it and 0 is silence. Every ramp starts from wherever the level is now, so a ramp never jumps.
public enum FocusEffect: Equatable, Sendable {
    /// A focus round begins: bring in the resume mix saved by `.saveResumeMix` (at the session's start: the chosen
    /// mix), and ramp the fade level up to 1 over the duration (0: at once, through the engine's click-free ramp).
    case fadeIn(over: Duration)
    /// Remember the current mix (sounds and volumes) as the one the next focus round brings back. Sent once per
    /// focus round, just before its end-of-round fade starts (or when it is skipped before that).
    case saveResumeMix
    /// Ramp the fade level down to 0 over the duration, reaching silence exactly at the round's deadline. Also sent
    /// when an extension shorter than the part of the fade already played makes the fade slower.
    case startFadeOut(over: Duration)
    /// The phase was extended during the end-of-round fade: ramp the fade level back up to 1 over the duration,
    /// from wherever it is (no jump). The fade starts again later at the new deadline − fade.
    case reverseFadeOut(over: Duration)
    /// The user changed the sounds after the fade began, during a break or while waiting: drop the resume mix,
    /// cancel any automatic ramp, and, when `audible`, bring the fade level to 1 at once so their sounds play. When
    /// paused (`audible` false) the level stays at 0 until `.resumeFadeIn`.
    case keepUserMix(audible: Bool)
    /// Pause: ramp the fade level to 0 over the duration.
    case pauseFadeOut(over: Duration)
    /// Resume: ramp the fade level up to `toLevel` over the duration. Below 1 when resuming inside the end-of-round
    /// fade: the fade then carries on from that level (a `.startFadeOut` follows when the ramp ends).
    case resumeFadeIn(over: Duration, toLevel: Double)
    /// Play hum's chime (see `Chime`): a phase ran out its time.
    case chime
    /// Something scripts and people are told about: print the non-TTY line, run `--on-event`, notify.
    case phaseChanged(FocusNotice)
    /// A phase is over: store it.
    case recordRound(FocusRoundRecord)
    /// The session is over: ramp the fade level to 0 over the duration (nothing to wait for if it is 0 already),
    /// let a pending chime ring out, close the audio and exit. Zero only when the last round ran out in silence.
    case endSession(fadeOut: Duration)
}

/// A change worth telling: one line of non-TTY output, one run of the `--on-event` command.
public struct FocusNotice: Equatable, Sendable {
    /// Values of `HUM_EVENT`.
    public enum Event: String, CaseIterable, Equatable, Sendable {
        /// A phase started (`phase` is the new phase, `remaining` its full length).
        case start
        /// A phase ran out and the next one waits for the user (`phase` is the waiting phase).
        case wait
        case pause
        case resume
        /// The user skipped `phase`; a `start` (or `finish`) follows.
        case skip
        /// The user extended `phase`; `remaining` is the new remaining time.
        case extend
        /// The user stopped the session during `phase`.
        case stop
        /// The last focus round ran out: the session is complete.
        case finish
        /// The machine woke from a suspend; the suspended time counted as pause.
        case wake
        /// The user restarted the focus round `phase`; a `start` of the same round follows.
        case restart
    }

    public var event: Event
    /// The phase concerned; nil once the session is finished.
    public var phase: FocusPhase?
    /// The focus round concerned, 1-based (a break carries the number of the round before it).
    public var round: Int
    public var rounds: Int
    /// Time left in `phase` at `at` (a waiting phase: its full length).
    public var remaining: Duration
    /// When it happened, as time since the session started (on the boot-time clock).
    public var at: Duration

    public init(event: Event, phase: FocusPhase?, round: Int, rounds: Int, remaining: Duration, at: Duration) {
        self.event = event
        self.phase = phase
        self.round = round
        self.rounds = rounds
        self.remaining = remaining
        self.at = at
    }

    /// `HUM_PHASE`: the phase's name, or `finished`.
    public var phaseName: String { phase?.rawValue ?? "finished" }
}

/// One phase, focus or break, as it goes into the history.
public struct FocusRoundRecord: Equatable, Sendable {
    public enum Status: String, CaseIterable, Equatable, Sendable {
        /// Ran out its (possibly extended) time.
        case completed
        /// The user stopped the session during it.
        case interrupted
        /// The user skipped to the next phase.
        case skipped
    }

    public var phase: FocusPhase
    public var round: Int
    public var status: Status
    /// Start and end as time since the session started (boot-time clock): add them to the wall time read at the
    /// session's start. A completed phase ends exactly at its deadline, however late the tick that noticed it.
    public var start: Duration
    public var end: Duration
    /// The planned length, extensions included.
    public var planned: Duration
    /// How much of `planned` came from extensions.
    public var extended: Duration
    /// Time the phase ran (not paused). A completed phase has `active == planned`.
    public var active: Duration
    /// Time paused, suspends included. `active + paused == end - start`.
    public var paused: Duration

    public init(
        phase: FocusPhase, round: Int, status: Status, start: Duration, end: Duration, planned: Duration,
        extended: Duration, active: Duration, paused: Duration
    ) {
        self.phase = phase
        self.round = round
        self.status = status
        self.start = start
        self.end = end
        self.planned = planned
        self.extended = extended
        self.active = active
        self.paused = paused
    }
}
