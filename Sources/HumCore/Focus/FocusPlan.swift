/// What a focus session is made of: the phase lengths, the cadence of long breaks, the number of rounds, the fade
/// and when the machine moves on without asking. A validated value: once built, every field is usable as is.
public struct FocusPlan: Equatable, Sendable {
    /// Which phase changes happen on their own when a phase runs out; the others wait for the user (`.start`).
    public enum AutoAdvance: String, CaseIterable, Equatable, Sendable {
        /// Every phase starts on its own.
        case all
        /// Every phase waits for the user. Spelled `none` on the command line.
        case off = "none"
        /// Breaks start on their own; the next focus round waits for the user.
        case toBreak = "to-break"
        /// Focus rounds start on their own after a break; breaks wait for the user.
        case toFocus = "to-focus"

        /// Whether the machine enters `next` by itself when the phase before it runs out.
        public func advancesOnItsOwn(into next: FocusPhase) -> Bool {
            switch self {
            case .all: true
            case .off: false
            case .toBreak: next.isBreak
            case .toFocus: next == .focus
            }
        }
    }

    /// Why a plan was refused. Messages are lowercase and say what to do.
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// A phase (focus, short break, long break) or the extension step is shorter than one second.
        case tooShort(what: String, Duration)
        /// A duration is longer than a year.
        case tooLong(what: String, Duration)
        /// The number of focus rounds is below one.
        case noRounds(Int)
        /// The long-break cadence is negative.
        case negativeLongBreakEvery(Int)
        /// The fade or the pause fade is negative.
        case negativeFade(what: String, Duration)

        public var description: String {
            switch self {
            case .tooShort(let what, let d): "\(what) is \(FocusPlan.describe(d)): use 1s or more"
            case .tooLong(let what, let d): "\(what) is \(FocusPlan.describe(d)): use a year or less"
            case .noRounds(let n): "rounds is \(n): use 1 or more"
            case .negativeLongBreakEvery(let n): "long-every is \(n): use 0 (never) or more"
            case .negativeFade(let what, let d): "\(what) is \(FocusPlan.describe(d)): use 0s or more"
            }
        }
    }

    public static let minimumPhase: Duration = .seconds(1)
    /// How many focus rounds a plan may have, wherever it comes from (`--rounds`, the setting, a client).
    public static let roundsRange: ClosedRange<Int> = 1...1000
    /// A long break every 0 (never) to 1000 rounds.
    public static let longBreakEveryRange: ClosedRange<Int> = 0...1000
    public static let maximumDuration: Duration = .milliseconds(DurationText.maximumMilliseconds)

    /// Length of a focus round.
    public var focus: Duration
    /// Length of a short break.
    public var shortBreak: Duration
    /// Length of a long break.
    public var longBreak: Duration
    /// A long break follows every `longBreakEvery`-th focus round (0: never). No break follows the last round.
    public var longBreakEvery: Int
    /// Number of focus rounds in the session.
    public var rounds: Int
    /// The end-of-round fade: it starts at deadline − fade and reaches silence exactly at the deadline. Never
    /// longer than `focus` (a longer request is clamped, see `fadeWasClamped`). 0 means the mix cuts at the deadline
    /// (through the engine's short click-free ramp).
    public private(set) var fade: Duration
    /// True when the requested fade was longer than the focus round and was shortened to it.
    public private(set) var fadeWasClamped: Bool
    /// The short ramp for pause, resume, skip and stop.
    public var pauseFade: Duration
    /// How much the `e` key adds to the current phase.
    public var extendStep: Duration
    public var autoAdvance: AutoAdvance

    /// hum's defaults: 25 / 5 / 15 minutes, a long break after every 4th round, 4 rounds, a 10 s fade, 1 s pause
    /// ramp, 5 min extension, auto-advance all.
    public static let standard = try! FocusPlan()

    public init(
        focus: Duration = .seconds(25 * 60), shortBreak: Duration = .seconds(5 * 60),
        longBreak: Duration = .seconds(15 * 60), longBreakEvery: Int = 4, rounds: Int = 4,
        fade: Duration = .seconds(10), pauseFade: Duration = .seconds(1), extendStep: Duration = .seconds(5 * 60),
        autoAdvance: AutoAdvance = .all
    ) throws(Problem) {
        for (what, d) in [
            ("focus", focus), ("short break", shortBreak), ("long break", longBreak),
            ("extend step", extendStep),
        ] {
            if d < Self.minimumPhase { throw .tooShort(what: what, d) }
        }
        for (what, d) in [
            ("focus", focus), ("short break", shortBreak), ("long break", longBreak),
            ("extend step", extendStep), ("fade", fade), ("pause fade", pauseFade),
        ] {
            if d > Self.maximumDuration { throw .tooLong(what: what, d) }
        }
        if fade < .zero { throw .negativeFade(what: "fade", fade) }
        if pauseFade < .zero { throw .negativeFade(what: "pause fade", pauseFade) }
        if rounds < 1 { throw .noRounds(rounds) }
        if longBreakEvery < 0 { throw .negativeLongBreakEvery(longBreakEvery) }
        self.focus = focus
        self.shortBreak = shortBreak
        self.longBreak = longBreak
        self.longBreakEvery = longBreakEvery
        self.rounds = rounds
        self.fade = min(fade, focus)
        self.fadeWasClamped = fade > focus
        self.pauseFade = pauseFade
        self.extendStep = extendStep
        self.autoAdvance = autoAdvance
    }

    /// The planned length of a phase.
    public func duration(of phase: FocusPhase) -> Duration {
        switch phase {
        case .focus: focus
        case .shortBreak: shortBreak
        case .longBreak: longBreak
        }
    }

    /// The phase after `phase` in round `round` (1-based), or nil when the session is over. A break keeps the number
    /// of the focus round it follows; the last focus round is followed by nothing.
    public func phase(after phase: FocusPhase, round: Int) -> (phase: FocusPhase, round: Int)? {
        switch phase {
        case .focus:
            if round >= rounds { return nil }
            let long = longBreakEvery > 0 && round % longBreakEvery == 0
            return (long ? .longBreak : .shortBreak, round)
        case .shortBreak, .longBreak:
            return (.focus, round + 1)
        }
    }

    static func describe(_ d: Duration) -> String {
        let ns = FocusTime.nanoseconds(d)
        if ns % 1_000_000_000 == 0 { return DurationText.format(seconds: ns / 1_000_000_000) }
        return "\(ns / 1_000_000)ms"
    }
}

/// The three kinds of phase a session goes through. Raw values are the names scripts see (`HUM_PHASE`).
public enum FocusPhase: String, CaseIterable, Equatable, Hashable, Sendable {
    case focus
    case shortBreak = "short-break"
    case longBreak = "long-break"

    public var isBreak: Bool { self != .focus }
}
