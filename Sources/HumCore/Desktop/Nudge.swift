/// How a stretch of time went, as a person says it: logged by a nudge's button or by `hum log DUR --productive`
/// (docs/rules.md, "Nudges").
public enum HourVerdict: String, Sendable, CaseIterable, Codable {
    case productive
    case distracting

    /// The button's label.
    public var label: String {
        switch self {
        case .productive: "Productive"
        case .distracting: "Distracting"
        }
    }

    /// The command a person would type for it: `hum log 1h --productive`.
    public func command(seconds: Int64) -> String { "hum log \(DurationText.format(seconds: seconds)) --\(rawValue)" }
}

/// The nudge (setting `nudge.every`): while no round runs and the session is there, a desktop notification every
/// interval asks how the last one went, with a button per verdict that logs it. Pure text: the bus adapter sends it
/// (`NudgeNotifier`), through the same sender as the shields' notices.
public struct NudgeNotice: Equatable, Sendable {
    public var summary: String
    public var body: String
    /// The buttons, in order (the server draws them only when it can).
    public var actions: [HourVerdict]

    public init(summary: String, body: String, actions: [HourVerdict]) {
        self.summary = summary
        self.body = body
        self.actions = actions
    }

    /// "How did the last hour go?" with both buttons, and the commands that do the same.
    public static func asking(seconds: Int64) -> NudgeNotice {
        NudgeNotice(
            summary: "How did the last \(spelled(seconds)) go?",
            body:
                "\(HourVerdict.productive.command(seconds: seconds)) · \(HourVerdict.distracting.command(seconds: seconds))",
            actions: HourVerdict.allCases)
    }

    /// A button's verdict was logged: the notice says so and has no buttons left (one click logs once).
    public static func logged(_ verdict: HourVerdict, seconds: Int64, day: CivilDate) -> NudgeNotice {
        NudgeNotice(
            summary: "Logged \(spelled(seconds)) as \(verdict.rawValue)", body: "for \(day) · hum report day",
            actions: [])
    }

    /// A button's verdict could not be logged (`reason`, as `hum log` would say it).
    public static func refused(_ verdict: HourVerdict, reason: String) -> NudgeNotice {
        NudgeNotice(summary: "\(verdict.label) was not logged", body: reason, actions: [])
    }

    /// "hour", "30 min", "2 h", "1 h 30 min": the interval as the question says it.
    static func spelled(_ seconds: Int64) -> String {
        if seconds == 3600 { return "hour" }
        let (h, m, s) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
        var parts: [String] = []
        if h > 0 { parts.append("\(h) h") }
        if m > 0 { parts.append("\(m) min") }
        if s > 0 || parts.isEmpty { parts.append("\(s) s") }
        return parts.joined(separator: " ")
    }
}

/// Where the nudges go: the desktop's notification server (HumBus, the same sender as `ShieldNotifier`), or a
/// recording double in tests. Calls never wait; a nudge that cannot be shown is dropped.
public protocol NudgeNotifier: AnyObject {
    /// Shows `nudge`, replacing the nudge still shown, if one is.
    func show(_ nudge: NudgeNotice)
    /// A button of the shown nudge was pressed.
    var onVerdict: ((HourVerdict) -> Void)? { get set }
}

/// When the next nudge is due (pure: the player's one timer is armed at it). A nudge comes `every` seconds after the
/// quiet began: the later of the last nudge, the end of the last rounds, the session's return and the player's
/// start; none while rounds run (breaks included), while the session is away, or when nudges are off (`every` 0).
public struct NudgeSchedule: Sendable, Equatable {
    /// Seconds between nudges; 0: off.
    public var every: Int64
    public var roundsRun = false
    public var away = false
    /// When the quiet began, on the player's monotonic clock.
    public var quietSince: Double

    public init(every: Int64, quietSince: Double) {
        self.every = every
        self.quietSince = quietSince
    }

    /// The instant of the next nudge, or nil when none is due.
    public var due: Double? {
        guard every > 0, !roundsRun, !away else { return nil }
        return quietSince + Double(every)
    }

    /// Rounds began or ended at `now`: their end starts a quiet.
    public mutating func rounds(running: Bool, at now: Double) {
        if roundsRun, !running { quietSince = now }
        roundsRun = running
    }

    /// The session went away or came back at `now`: its return starts a quiet.
    public mutating func session(away: Bool, at now: Double) {
        if self.away, !away { quietSince = now }
        self.away = away
    }

    /// A nudge was shown at `now`: the next one is `every` later.
    public mutating func nudged(at now: Double) { quietSince = now }
}
