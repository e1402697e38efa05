/// What a running player is doing, as `hum status`, status bars, the full screen and MPRIS see it. Sent whole in
/// every reply and event of the control protocol (docs/control.md), so a client never assembles state from pieces.
public struct PlayerStatus: Equatable, Sendable, Codable {
    public enum State: String, Equatable, Sendable, Codable {
        /// Sound is playing (or, during a break, would play: the mix is kept, faded out).
        case playing
        /// Paused by the user: the mix is faded out and focus time does not run.
        case paused
        /// Fading out to stop.
        case stopping
    }

    /// The focus rounds, when the session carries a plan.
    public struct Focus: Equatable, Sendable, Codable {
        public var phase: FocusPhase
        public var round: Int
        public var rounds: Int
        /// Seconds left in the phase (at the moment the status was made).
        public var remainingSeconds: Int64
        /// The phase's length, extensions included.
        public var plannedSeconds: Int64
        /// When the phase ends on the wall clock (RFC 3339); nil while paused or waiting.
        public var deadline: Timestamp?
        public var paused: Bool
        /// The phase waits for the user to start it (`--auto-advance`), by space or `hum ctl resume`.
        public var waiting: Bool
        public var goal: String?
        public var tags: [String]
        /// How long the mix fades out at a focus round's end (and in at the next one's start), so a view can show
        /// the fade as it happens. Absent from older players.
        public var fadeSeconds: Int64?

        public init(
            phase: FocusPhase, round: Int, rounds: Int, remainingSeconds: Int64, plannedSeconds: Int64,
            deadline: Timestamp?, paused: Bool, waiting: Bool, goal: String?, tags: [String], fadeSeconds: Int64? = nil
        ) {
            self.fadeSeconds = fadeSeconds
            self.phase = phase
            self.round = round
            self.rounds = rounds
            self.remainingSeconds = remainingSeconds
            self.plannedSeconds = plannedSeconds
            self.deadline = deadline
            self.paused = paused
            self.waiting = waiting
            self.goal = goal
            self.tags = tags
        }

        enum CodingKeys: String, CodingKey {
            case phase, round, rounds, deadline, paused, waiting, goal, tags
            case remainingSeconds = "remaining_seconds"
            case plannedSeconds = "planned_seconds"
            case fadeSeconds = "fade_seconds"
        }
    }

    public var pid: Int32
    public var session: String
    public var state: State
    public var mix: Mix
    public var focus: Focus?
    /// Seconds the mix has played (paused time included), for the clock of the live line.
    public var elapsedSeconds: Int64
    /// Seconds until a timed play (`--for`) ends.
    public var endsInSeconds: Int64?
    /// A note the player wants seen (the audio device went away, waiting for `hum ctl resume`).
    public var note: String?
    /// How many clients follow the player's events (`subscribe`): a screen leaving asks whether another still
    /// watches before it stops a player it started. Absent from older players.
    public var subscribers: Int?
    /// The shields as the player's guard holds them, oldest first; absent from older players.
    public var shields: [ShieldLine]?
    /// How many times the audio device ran dry since the player opened it (the audio thread was late and the
    /// device played silence); absent from a player without sound and from older players.
    public var underruns: Int?

    public init(
        pid: Int32, session: String, state: State, mix: Mix, focus: Focus? = nil, elapsedSeconds: Int64 = 0,
        endsInSeconds: Int64? = nil, note: String? = nil
    ) {
        self.elapsedSeconds = elapsedSeconds
        self.pid = pid
        self.session = session
        self.state = state
        self.mix = mix
        self.focus = focus
        self.endsInSeconds = endsInSeconds
        self.note = note
    }

    enum CodingKeys: String, CodingKey {
        case pid, session, state, mix, focus, note
        case elapsedSeconds = "elapsed_seconds"
        case endsInSeconds = "ends_in_seconds"
        case subscribers, shields, underruns
    }
}

/// One shield in a player's status: `up`, `lifted` or `off`, and until when (absent while up).
public struct ShieldLine: Equatable, Sendable, Codable {
    public var name: String
    public var state: String
    public var until: Timestamp?
    /// While this player's own lift runs: the seconds of it today's quota paid and the bank paid (absent
    /// otherwise, and from older players).
    public var quotaSeconds: Int64?
    public var bankSeconds: Int64?
    public init(
        name: String, state: String, until: Timestamp? = nil, quotaSeconds: Int64? = nil, bankSeconds: Int64? = nil
    ) {
        self.name = name
        self.state = state
        self.until = until
        self.quotaSeconds = quotaSeconds
        self.bankSeconds = bankSeconds
    }

    enum CodingKeys: String, CodingKey {
        case name, state, until
        case quotaSeconds = "quota_seconds"
        case bankSeconds = "bank_seconds"
    }

    /// `games up`, `games lifted until 14:32`, `games off until 15:00`.
    public var text: String { until.map { "\(name) \(state) until \($0.localClock)" } ?? "\(name) \(state)" }
}

extension FocusPhase: Codable {}

extension PlayerStatus {
    /// The status `seconds` later, as far as the clock alone moves it (a screen between two events): the
    /// countdown of a running phase and a timed play go down, the elapsed time goes up.
    public func advanced(by seconds: Int64) -> PlayerStatus {
        guard seconds > 0 else { return self }
        var next = self
        next.elapsedSeconds += seconds
        if let left = endsInSeconds { next.endsInSeconds = max(0, left - seconds) }
        if var focus, !focus.paused, !focus.waiting {
            focus.remainingSeconds = max(0, focus.remainingSeconds - seconds)
            next.focus = focus
        }
        return next
    }
}
