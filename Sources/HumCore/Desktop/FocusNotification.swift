/// The desktop notification of a focus session: what happened and what comes next, as one line
/// ("Focus 2/4 done — 5 min break, then focus 3/4"), the goal under it, and the buttons that make sense now. One
/// per session, replaced in place at each phase that runs out. Pure text: the bus adapter sends it.
public struct FocusNotification: Equatable, Sendable {
    /// A button on the notification: `key` comes back when it is pressed.
    public struct Action: Equatable, Sendable {
        public var key: Key
        public var label: String

        public init(key: Key, label: String) {
            self.key = key
            self.label = label
        }
    }

    /// What a button asks of the player.
    public enum Key: String, Equatable, Sendable {
        /// Skip the phase under way (while waiting: start it).
        case skip
        /// Extend the phase under way by the plan's step.
        case extend

        public var command: PlayerCommand {
            switch self {
            case .skip: .skip
            case .extend: .extend(seconds: nil)
            }
        }
    }

    public var summary: String
    /// The goal, when the session has one; empty otherwise.
    public var body: String
    public var actions: [Action]

    public init(summary: String, body: String, actions: [Action]) {
        self.summary = summary
        self.body = body
        self.actions = actions
    }

    /// The notification for a notice that follows a phase running out (a `start` of the next phase, a `wait` for
    /// it, or the `finish`); nil for notices people caused themselves (pause, skip, extend, stop…).
    public init?(after notice: FocusNotice, plan: FocusPlan, goal: String?) {
        let running = [
            Action(key: .skip, label: "Skip"),
            Action(key: .extend, label: "+" + FocusNotification.spelled(plan.extendStep)),
        ]
        switch (notice.event, notice.phase) {
        case (.start, .focus?):
            summary =
                "\(FocusNotification.breakName(before: notice.round, plan: plan)) done — focus "
                + "\(notice.round)/\(notice.rounds), \(FocusNotification.spelled(plan.focus))"
            actions = running
        case (.start, let phase?):
            summary =
                "Focus \(notice.round)/\(notice.rounds) done — \(FocusNotification.breakText(phase, plan: plan)), "
                + "then focus \(notice.round + 1)/\(notice.rounds)"
            actions = running
        case (.wait, .focus?):
            summary =
                "\(FocusNotification.breakName(before: notice.round, plan: plan)) done — focus "
                + "\(notice.round)/\(notice.rounds) waits for you"
            actions = [Action(key: .skip, label: "Start")]
        case (.wait, let phase?):
            summary =
                "Focus \(notice.round)/\(notice.rounds) done — the \(FocusNotification.breakText(phase, plan: plan)) "
                + "waits for you"
            actions = [Action(key: .skip, label: "Start")]
        case (.finish, _):
            summary = "Focus \(notice.rounds)/\(notice.rounds) done — the session is complete"
            actions = []
        default:
            return nil
        }
        body = goal.map { $0.isEmpty ? "" : "Goal: \($0)" } ?? ""
    }

    /// Adds the achievements a round just earned to the body: "Achievement: 100 rounds (100 focus rounds
    /// completed)", one line each.
    public mutating func announce(_ achievements: [Achievement]) {
        let lines = achievements.map { "Achievement: \($0.title) (\($0.rule))" }
        body = ([body].filter { !$0.isEmpty } + lines).joined(separator: "\n")
    }

    /// "5 min break", "15 min long break".
    static func breakText(_ phase: FocusPhase, plan: FocusPlan) -> String {
        "\(spelled(plan.duration(of: phase))) \(phase == .longBreak ? "long break" : "break")"
    }

    /// "Break" or "Long break": the one that came before focus round `round`.
    static func breakName(before round: Int, plan: FocusPlan) -> String {
        plan.phase(after: .focus, round: max(1, round - 1))?.phase == .longBreak ? "Long break" : "Break"
    }

    /// A duration as people say it: "25 min", "1 h 30 min", "45 s", "2 min 30 s".
    static func spelled(_ duration: Duration) -> String {
        let seconds = FocusTime.wholeSecondsRoundedUp(duration)
        let (h, m, s) = (seconds / 3600, seconds % 3600 / 60, seconds % 60)
        var parts: [String] = []
        if h > 0 { parts.append("\(h) h") }
        if m > 0 { parts.append("\(m) min") }
        if s > 0 || parts.isEmpty { parts.append("\(s) s") }
        return parts.joined(separator: " ")
    }
}
