/// `hum status --json`: the whole report as one flat object, every key present (null where it does not apply),
/// so `jq .phase` works the same with and without a player. docs/control.md lists the keys.
public struct StatusDocument: Encodable, Sendable {
    public var report: StatusReport

    public init(_ report: StatusReport) { self.report = report }

    enum Keys: String, CodingKey {
        case state, pid, session, phase, round, rounds, paused, waiting, percent, goal, tags, mix, master, note, shields
        case underruns
        case remainingSeconds = "remaining_seconds"
        case plannedSeconds = "planned_seconds"
        case deadline
        case elapsedSeconds = "elapsed_seconds"
        case endsInSeconds = "ends_in_seconds"
        case bankSeconds = "bank_seconds"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        let player = report.player
        let focus = player?.focus
        try c.encode(report.state, forKey: .state)
        try c.encode(player?.pid, forKey: .pid)
        try c.encode(player?.session, forKey: .session)
        try c.encode(focus?.phase.rawValue, forKey: .phase)
        try c.encode(focus?.round, forKey: .round)
        try c.encode(focus?.rounds, forKey: .rounds)
        try c.encode(focus?.remainingSeconds, forKey: .remainingSeconds)
        try c.encode(focus?.plannedSeconds, forKey: .plannedSeconds)
        try c.encode(focus?.deadline, forKey: .deadline)
        try c.encode(report.isPaused, forKey: .paused)
        try c.encode(report.isWaiting, forKey: .waiting)
        try c.encode(player == nil ? nil : report.percent, forKey: .percent)
        try c.encode(focus?.goal, forKey: .goal)
        try c.encode(focus?.tags ?? [], forKey: .tags)
        try c.encode(player?.mix, forKey: .mix)
        try c.encode(player?.mix.master, forKey: .master)
        try c.encode(player?.elapsedSeconds, forKey: .elapsedSeconds)
        try c.encode(player?.endsInSeconds, forKey: .endsInSeconds)
        try c.encode(player?.note, forKey: .note)
        try c.encode(report.bankSeconds, forKey: .bankSeconds)
        try c.encode(player?.shields, forKey: .shields)
        try c.encode(player?.underruns, forKey: .underruns)
    }
}

/// `hum status --waybar`: what a Waybar custom module with `"return-type": "json"` reads (waybar-custom(5)):
/// `text`, `tooltip`, `class` (an array: the state, then the phase, then `waiting`) and `percentage` (of the
/// phase done). Waybar reads text and tooltip as Pango markup, so what comes from outside is escaped for it.
public struct WaybarStatus: Encodable, Sendable, Equatable {
    public var text: String
    public var tooltip: String
    public var `class`: [String]
    public var percentage: Int

    enum CodingKeys: String, CodingKey { case text, tooltip, `class`, percentage }

    /// The short text of a bar: `focus 2/4 12:04`, `focus 2/4 12:04 paused`, `playing`, `idle`; or the template's.
    public init(_ report: StatusReport, template: StatusTemplate?) {
        let escape = WaybarStatus.escape
        if let template {
            text = template.render(report, escape: escape)
        } else if let focus = report.player?.focus {
            text =
                "\(focus.phase.rawValue) \(focus.round)/\(focus.rounds) "
                + "\(DurationText.clock(seconds: focus.remainingSeconds))"
            if focus.paused { text += " paused" } else if focus.waiting { text += " waiting" }
        } else if let left = report.player?.endsInSeconds {
            text = "\(report.state) \(DurationText.clock(seconds: left))"
        } else {
            text = report.state
        }
        tooltip = WaybarStatus.tooltip(report)
        var classes = [report.state]
        if let focus = report.player?.focus { classes.append(focus.phase.rawValue) }
        if report.isWaiting { classes.append("waiting") }
        `class` = classes
        percentage = report.percent
    }

    /// Every line of the state: the rounds, the goal, the mix, the bank.
    static func tooltip(_ report: StatusReport) -> String {
        let escape = WaybarStatus.escape
        var lines: [String] = []
        guard let player = report.player else {
            lines.append("no hum player is running")
            if let bank = report.bankSeconds { lines.append("\(StatusReport.bankText(bank)) banked") }
            return lines.joined(separator: "\n")
        }
        // No countdown to the second here: a template that shows minutes keeps the module still between them.
        if let focus = player.focus {
            var first = "\(focus.phase.rawValue) \(focus.round) of \(focus.rounds)"
            if focus.paused {
                first += ", paused with \(DurationText.clock(seconds: focus.remainingSeconds)) left"
            } else if focus.waiting {
                first += ", waiting to start ('hum ctl resume')"
            } else if let deadline = focus.deadline {
                first += ", ends at \(deadline.localClock)"
            }
            lines.append(first)
            if let goal = focus.goal { lines.append("goal: \(escape(goal))") }
        } else if let left = player.endsInSeconds {
            lines.append("\(report.state), \((left + 59) / 60) min left")
        } else {
            lines.append(report.state)
        }
        let mix = player.mix.tracks.isEmpty ? "no sounds" : report.mixText(escape)
        let name = player.mix.name.map { " (@\(escape($0)))" } ?? ""
        lines.append("\(mix)\(name), master \(MixSpec.formatVolume(player.mix.master))")
        if let note = player.note { lines.append(escape(note)) }
        if let bank = report.bankSeconds { lines.append("\(StatusReport.bankText(bank)) banked") }
        return lines.joined(separator: "\n")
    }

    /// Control characters made visible, then `&`, `<` and `>` escaped for Pango markup.
    public static func escape(_ text: String) -> String {
        var out = ""
        for c in VisibleText.escape(text) {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
        }
        return out
    }

    /// The fields the text, tooltip and percentage read: what decides when the object can change.
    public static func fields(template: StatusTemplate?) -> Set<StatusField> {
        (template?.fields ?? [.remaining]).union([.percent, .remainingMinutes])
    }
}
