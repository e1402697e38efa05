/// A placeholder of `hum status --template` (`{phase}`), and what it reads from a report. A field that does not
/// apply (the phase with no rounds running, the deadline while paused) is empty.
public enum StatusField: String, CaseIterable, Sendable {
    /// The whole default line.
    case line
    /// `idle`, `playing`, `paused` or `stopping`.
    case state
    /// `focus`, `short-break` or `long-break`.
    case phase
    case round
    case rounds
    /// The countdown as a clock, `12:04` (a focus phase, or a timed play).
    case remaining
    case remainingSeconds = "remaining_seconds"
    /// Whole minutes left, rounded up as a kitchen timer shows them (`13` for 12:04).
    case remainingMinutes = "remaining_minutes"
    /// The wall-clock time the phase ends, `14:32`.
    case deadline
    /// How much of the phase is done, 0–100.
    case percent
    /// `paused` when paused, else empty (for sections: `{#paused}⏸{/paused}`).
    case paused
    /// `waiting` when a phase waits to be started, else empty.
    case waiting
    /// `rain 40 brown 25`.
    case mix
    /// `rain brown`.
    case sounds
    case master
    /// The name of the saved mix playing, unchanged since it was loaded.
    case mixName = "mix_name"
    /// `42m`.
    case bank
    case bankSeconds = "bank_seconds"
    case goal
    /// Comma-separated.
    case tags
    /// How long the mix has played, as a clock.
    case elapsed
    case note
    case pid
    case session

    /// What the field reads, with text from outside (names, goal, tags, note) through `escape`.
    public func value(in report: StatusReport, escape: (String) -> String) -> String {
        let player = report.player
        let focus = player?.focus
        switch self {
        case .line: return report.line(escape)
        case .state: return report.state
        case .phase: return focus?.phase.rawValue ?? ""
        case .round: return focus.map { String($0.round) } ?? ""
        case .rounds: return focus.map { String($0.rounds) } ?? ""
        case .remaining: return report.countdownSeconds.map { DurationText.clock(seconds: $0) } ?? ""
        case .remainingSeconds: return report.countdownSeconds.map { String($0) } ?? ""
        case .remainingMinutes: return report.countdownSeconds.map { String(($0 + 59) / 60) } ?? ""
        case .deadline: return focus?.deadline?.localClock ?? ""
        case .percent: return player == nil ? "" : String(report.percent)
        case .paused: return report.isPaused ? "paused" : ""
        case .waiting: return report.isWaiting ? "waiting" : ""
        case .mix: return report.mixText(escape)
        case .sounds: return player?.mix.tracks.map { escape($0.displayName) }.joined(separator: " ") ?? ""
        case .master: return player.map { MixSpec.formatVolume($0.mix.master) } ?? ""
        case .mixName: return player?.mix.name.map(escape) ?? ""
        case .bank: return report.bankSeconds.map(StatusReport.bankText) ?? ""
        case .bankSeconds: return report.bankSeconds.map { String($0) } ?? ""
        case .goal: return focus?.goal.map(escape) ?? ""
        case .tags: return focus.map { $0.tags.map(escape).joined(separator: ",") } ?? ""
        case .elapsed: return player.map { DurationText.clock(seconds: $0.elapsedSeconds) } ?? ""
        case .note: return player?.note.map(escape) ?? ""
        case .pid: return player.map { String($0.pid) } ?? ""
        case .session: return player?.session ?? ""
        }
    }

    /// How the clock alone changes what the field reads.
    public enum Motion: Sendable {
        /// Not at all.
        case still
        /// Every second the countdown runs.
        case countdownSecond
        /// When the countdown passes a whole minute.
        case countdownMinute
        /// When the phase passes a whole percent.
        case percent
        /// Every second the player lives.
        case everySecond
    }

    public var motion: Motion {
        switch self {
        case .line, .remaining, .remainingSeconds: return .countdownSecond
        case .remainingMinutes: return .countdownMinute
        case .percent: return .percent
        case .elapsed: return .everySecond
        default: return .still
        }
    }
}
