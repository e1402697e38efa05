/// The live countdown a terminal shows: phase, round n/N, time left and a progress bar, as of the machine's last
/// handled instant (`FocusMachine.countdown`). Send a `.tick` before reading it.
public struct FocusCountdown: Equatable, Sendable {
    public var state: FocusMachine.State
    /// The current phase, or the one waiting to start; nil once finished.
    public var phase: FocusPhase?
    public var round: Int
    public var rounds: Int
    /// Time left in the phase (a waiting phase: its full length).
    public var remaining: Duration
    /// The phase's planned length, extensions included.
    public var planned: Duration

    public init(
        state: FocusMachine.State, phase: FocusPhase?, round: Int, rounds: Int, remaining: Duration,
        planned: Duration
    ) {
        self.state = state
        self.phase = phase
        self.round = round
        self.rounds = rounds
        self.remaining = remaining
        self.planned = planned
    }

    /// How much of the phase has passed, 0…1: 0 at its start (and while waiting), 1 at its end and once finished.
    public var progress: Double {
        let total = FocusTime.nanoseconds(planned)
        guard total > 0 else { return 1 }
        let left = min(max(0, FocusTime.nanoseconds(remaining)), total)
        return Double(total - left) / Double(total)
    }

    /// Whole seconds left, rounded up (the countdown reads 0 only at the end).
    public var remainingSeconds: Int64 { FocusTime.wholeSecondsRoundedUp(remaining) }

    /// The time left as a clock: `24:59`, `1:02:03`.
    public var clockText: String { DurationText.clock(seconds: remainingSeconds) }

    /// `round 2/4`-style counter.
    public var roundText: String { "\(round)/\(rounds)" }
}

/// Text and environments built from notices, for the adapter to print and pass on. Nothing here writes anywhere.
public enum FocusOutput {
    /// The one line printed per notice when stdout is not a terminal, fields separated by single spaces:
    /// `TIME EVENT PHASE ROUND/ROUNDS REMAINING`, e.g. `14:03:07 start focus 1/4 25:00`. `time` is preformatted by
    /// the caller (wall clock, local time); remaining is a clock rounded up to whole seconds.
    public static func line(time: String, notice: FocusNotice) -> String {
        let remaining = DurationText.clock(seconds: FocusTime.wholeSecondsRoundedUp(notice.remaining))
        return "\(time) \(notice.event.rawValue) \(notice.phaseName) \(notice.round)/\(notice.rounds) \(remaining)"
    }

    /// The variables the `--on-event` command gets on top of the inherited environment: HUM_EVENT, HUM_PHASE,
    /// HUM_ROUND, HUM_ROUNDS, HUM_REMAINING_SECONDS (whole seconds, rounded up) and HUM_SESSION_ID.
    public static func environment(for notice: FocusNotice, sessionID: String) -> [String: String] {
        [
            "HUM_EVENT": notice.event.rawValue,
            "HUM_PHASE": notice.phaseName,
            "HUM_ROUND": String(notice.round),
            "HUM_ROUNDS": String(notice.rounds),
            "HUM_REMAINING_SECONDS": String(FocusTime.wholeSecondsRoundedUp(notice.remaining)),
            "HUM_SESSION_ID": sessionID,
        ]
    }
}
