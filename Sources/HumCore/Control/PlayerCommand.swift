/// A request to a player, whoever sends it: a key on its own terminal, `hum ctl`, another `hum play`, a status
/// bar, the desktop's media keys. Every client speaks these and the player runs them through one interpreter.
public enum PlayerCommand: Equatable, Sendable {
    /// Reply with the status.
    case status
    /// Reply with the status, then send an event at every change until the client leaves.
    case subscribe
    case pause
    case resume
    case toggle
    /// Skip to the next focus phase.
    case skip
    /// Extend the focus phase (by the plan's step when nil).
    case extend(seconds: Int64?)
    /// Start the focus round under way again from its full length (the desktop's Previous).
    case restart
    /// Fade out and stop the player.
    case stop
    case volume(sound: String, volume: Double)
    /// Move a sound's volume by a step from where it is now, within 0–100: computed by the player, so two clients
    /// stepping at once each get their step (`hum ctl volume rain +5`).
    case volumeBy(sound: String, step: Double)
    case add(sound: String, volume: Double)
    case remove(sound: String)
    /// Mute, unmute, or toggle (nil).
    case mute(sound: String, muted: Bool?)
    case master(volume: Double)
    /// Move the master by a step from where it is now, within 0–100.
    case masterBy(step: Double)
    /// Play these sounds instead of the mix (the name of a saved mix, when it is one).
    case play(Mix)
    /// Start focus rounds on the playing mix.
    case focus(FocusRequest)
    /// Stop the focus rounds; the mix plays on.
    case endFocus
    /// Read the shields again from the ledger now (`hum shield add|rm|off|on` send it after they commit).
    case shields
    /// Lift a shield for a while, paid from the bank by a pass (`hum pass 15m --on games`).
    case lift(ShieldLiftRequest)
    /// End the lift this player runs now (`hum pass end`): the shield is up again at once, the pass is settled for
    /// the time used. `shield`: only if it is the lift of that shield.
    case endLift(shield: String?)

    /// A relative volume step: -100 to +100.
    public static let volumeStep: ClosedRange<Double> = -100...100

    /// How many seconds one `extend` may add: 1 s to 24 h.
    public static let extendSeconds: ClosedRange<Int64> = 1...86_400

    /// The word on the wire and on the `hum ctl` command line.
    public var name: String {
        switch self {
        case .status: "status"
        case .subscribe: "subscribe"
        case .pause: "pause"
        case .resume: "resume"
        case .toggle: "toggle"
        case .skip: "skip"
        case .extend: "extend"
        case .restart: "restart"
        case .stop: "stop"
        case .volume, .volumeBy: "volume"
        case .add: "add"
        case .remove: "remove"
        case .mute: "mute"
        case .master, .masterBy: "master"
        case .play: "play"
        case .focus: "focus"
        case .endFocus: "end-focus"
        case .shields: "shields"
        case .lift: "lift"
        case .endLift: "end-lift"
        }
    }
}

/// A lift asked of the player's shield guard: `seconds` of the shield `shield`, held from the bank as a pass and
/// settled when it ends (the unused rest returned unless `forfeit`).
public struct ShieldLiftRequest: Equatable, Sendable {
    public var shield: String
    public var seconds: Int64
    public var forfeit: Bool
    /// Set: the lift is an emergency draw on the weekly reserve for this reason (`hum emergency 5m --on games`),
    /// not a pass paid from the bank.
    public var emergency: String?
    /// The wait and confirmation a strict contract asked of the emergency (`StrictFriction`), for its record.
    public var strictNote: String?
    public init(shield: String, seconds: Int64, forfeit: Bool, emergency: String? = nil, strictNote: String? = nil) {
        self.shield = shield
        self.seconds = seconds
        self.forfeit = forfeit
        self.emergency = emergency
        self.strictNote = strictNote
    }

    /// How long one lift may last: 1 s to 24 h.
    public static let secondsRange: ClosedRange<Int64> = 1...86_400
}

/// Focus rounds asked of a player: the plan and what the history keeps with them.
public struct FocusRequest: Equatable, Sendable, Codable {
    public var focusSeconds: Double
    public var shortBreakSeconds: Double
    public var longBreakSeconds: Double
    public var longBreakEvery: Int
    public var rounds: Int
    public var fadeSeconds: Double
    public var autoAdvance: String
    public var goal: String?
    public var tags: [String]
    /// The terminal bell when a phase runs out (the setting notify.bell; off with --quiet).
    public var bell: Bool
    /// A desktop notification when a phase runs out (the setting notify.desktop; off with --quiet).
    public var notify: Bool
    /// Neither bell nor notification (what older clients send instead of the two).
    public var quiet: Bool { !bell && !notify }
    /// The `--on-event` command line, split into words.
    public var onEvent: [String]?
    /// Keep the machine from sleeping while a focus round runs (`--inhibit`). Absent means no.
    public var inhibit: Bool?
    /// The contract these rounds work toward (`--done-when`), written by the player before the first round.
    public var contract: ContractStart?

    public init(
        plan: FocusPlan, goal: String?, tags: [String], quiet: Bool, onEvent: [String]?, inhibit: Bool = false,
        contract: ContractStart? = nil
    ) {
        focusSeconds = FocusTime.seconds(plan.focus)
        shortBreakSeconds = FocusTime.seconds(plan.shortBreak)
        longBreakSeconds = FocusTime.seconds(plan.longBreak)
        longBreakEvery = plan.longBreakEvery
        rounds = plan.rounds
        fadeSeconds = FocusTime.seconds(plan.fade)
        autoAdvance = plan.autoAdvance.rawValue
        self.goal = goal
        self.tags = tags
        self.bell = !quiet
        self.notify = !quiet
        self.onEvent = onEvent
        self.inhibit = inhibit ? true : nil
        self.contract = contract
    }

    /// The plan, validated again: a request may come from any client.
    public func plan() throws(FocusPlan.Problem) -> FocusPlan {
        func d(_ s: Double) -> Duration { .milliseconds(Int64((s.isFinite ? min(max(s, 0), 4e7) : 0) * 1000)) }
        return try FocusPlan(
            focus: d(focusSeconds), shortBreak: d(shortBreakSeconds), longBreak: d(longBreakSeconds),
            longBreakEvery: longBreakEvery, rounds: rounds, fade: d(fadeSeconds),
            autoAdvance: FocusPlan.AutoAdvance(rawValue: autoAdvance) ?? .all)
    }

    enum CodingKeys: String, CodingKey {
        case rounds, goal, tags, quiet, inhibit, contract, bell, notify
        case focusSeconds = "focus_seconds"
        case shortBreakSeconds = "short_break_seconds"
        case longBreakSeconds = "long_break_seconds"
        case longBreakEvery = "long_break_every"
        case fadeSeconds = "fade_seconds"
        case autoAdvance = "auto_advance"
        case onEvent = "on_event"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Each number within what a plan accepts (FocusPlan), checked here where a client's request enters.
        let year = FocusTime.seconds(FocusPlan.maximumDuration)
        let phase = FocusTime.seconds(FocusPlan.minimumPhase)...year
        let phaseWanted = "a number of seconds from 1 to \(Int64(year)) (a year)"
        focusSeconds = try c.number(.focusSeconds, in: phase, phaseWanted)
        shortBreakSeconds = try c.number(.shortBreakSeconds, in: phase, phaseWanted)
        longBreakSeconds = try c.number(.longBreakSeconds, in: phase, phaseWanted)
        longBreakEvery = try c.integer(.longBreakEvery, in: FocusPlan.longBreakEveryRange)
        rounds = try c.integer(.rounds, in: FocusPlan.roundsRange)
        fadeSeconds = try c.number(.fadeSeconds, in: 0...year, "a number of seconds from 0 to \(Int64(year)) (a year)")
        autoAdvance = try c.decode(String.self, forKey: .autoAdvance)
        guard FocusPlan.AutoAdvance(rawValue: autoAdvance) != nil else {
            let names = FocusPlan.AutoAdvance.allCases.map(\.rawValue).joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                forKey: .autoAdvance, in: c, debugDescription: "must be one of \(names); got \"\(autoAdvance)\"")
        }
        goal = try c.decodeIfPresent(String.self, forKey: .goal)
        tags = try c.decode([String].self, forKey: .tags)
        let quiet = try c.decodeIfPresent(Bool.self, forKey: .quiet) ?? false
        bell = try c.decodeIfPresent(Bool.self, forKey: .bell) ?? !quiet
        notify = try c.decodeIfPresent(Bool.self, forKey: .notify) ?? !quiet
        onEvent = try c.decodeIfPresent([String].self, forKey: .onEvent)
        inhibit = try c.decodeIfPresent(Bool.self, forKey: .inhibit)
        contract = try c.decodeIfPresent(ContractStart.self, forKey: .contract)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(focusSeconds, forKey: .focusSeconds)
        try c.encode(shortBreakSeconds, forKey: .shortBreakSeconds)
        try c.encode(longBreakSeconds, forKey: .longBreakSeconds)
        try c.encode(longBreakEvery, forKey: .longBreakEvery)
        try c.encode(rounds, forKey: .rounds)
        try c.encode(fadeSeconds, forKey: .fadeSeconds)
        try c.encode(autoAdvance, forKey: .autoAdvance)
        try c.encodeIfPresent(goal, forKey: .goal)
        try c.encode(tags, forKey: .tags)
        try c.encode(quiet, forKey: .quiet)
        try c.encode(bell, forKey: .bell)
        try c.encode(notify, forKey: .notify)
        try c.encodeIfPresent(onEvent, forKey: .onEvent)
        try c.encodeIfPresent(inhibit, forKey: .inhibit)
        try c.encodeIfPresent(contract, forKey: .contract)
    }
}
