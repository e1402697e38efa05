/// What `hum status` reports: the running player's status, or none, and the leisure time banked. Pure: the
/// command asks the player and the ledger, and every way of printing (the line, `--template`, `--waybar`,
/// `--json`) reads this one value.
public struct StatusReport: Equatable, Sendable {
    /// The player's status; nil when no player runs.
    public var player: PlayerStatus?
    /// Seconds banked; nil when the ledger could not be read.
    public var bankSeconds: Int64?

    public init(player: PlayerStatus?, bankSeconds: Int64?) {
        self.player = player
        self.bankSeconds = bankSeconds
    }

    /// The report `seconds` later, as far as the clock alone moves it.
    public func advanced(by seconds: Int64) -> StatusReport {
        StatusReport(player: player?.advanced(by: seconds), bankSeconds: bankSeconds)
    }

    /// `idle`, `playing`, `paused` or `stopping`. Paused rounds make a paused player.
    public var state: String {
        guard let player else { return "idle" }
        if player.state == .stopping { return "stopping" }
        return isPaused ? "paused" : "playing"
    }

    public var isPaused: Bool {
        guard let player else { return false }
        return player.focus?.paused ?? (player.state == .paused)
    }

    public var isWaiting: Bool { player?.focus?.waiting ?? false }

    /// The countdown shown: the focus phase's time left, or a timed play's (`--for`); nil when nothing counts down.
    public var countdownSeconds: Int64? { player?.focus?.remainingSeconds ?? player?.endsInSeconds }

    /// Whether the countdown is running (not paused, not waiting for a start).
    public var countdownRuns: Bool {
        guard let player, let left = countdownSeconds, left > 0 else { return false }
        if let focus = player.focus { return !focus.paused && !focus.waiting }
        return player.state == .playing
    }

    /// How much of the phase is done, 0–100 (of a timed play without rounds: of its time); 0 without either.
    public var percent: Int {
        guard let player else { return 0 }
        let total: Int64
        let left: Int64
        if let focus = player.focus {
            total = focus.plannedSeconds
            left = focus.remainingSeconds
        } else if let endsIn = player.endsInSeconds {
            total = player.elapsedSeconds + endsIn
            left = endsIn
        } else {
            return 0
        }
        guard total > 0 else { return 0 }
        let done = min(max(total - left, 0), total)
        return Int(done * 100 / total)
    }

    /// The bank as a status line shows it, in whole minutes: `42m`, `1h5m`, `0m`.
    public static func bankText(_ seconds: Int64) -> String {
        let minutes = max(0, seconds) / 60
        return minutes == 0 ? "0m" : DurationText.format(seconds: minutes * 60)
    }

    /// `rain 40 brown 25`, muted sounds as `rain muted`; names through `escape`.
    public func mixText(_ escape: (String) -> String) -> String {
        guard let player else { return "" }
        return player.mix.tracks.map {
            "\(escape($0.displayName)) \($0.muted ? "muted" : MixSpec.formatVolume($0.volume))"
        }.joined(separator: " ")
    }

    /// The one line of `hum status`: `focus 2/4 · 12:04 · rain 40 brown 25 · 42m banked`,
    /// `playing · rain 40 · master 80 · 42m banked`, `idle · 42m banked`. What comes from outside (names, the
    /// note) goes through `escape`.
    public func line(_ escape: (String) -> String) -> String {
        var parts: [String] = []
        if let player {
            if let focus = player.focus {
                parts.append("\(focus.phase.rawValue) \(focus.round)/\(focus.rounds)")
                var clock = DurationText.clock(seconds: focus.remainingSeconds)
                if focus.paused { clock += " paused" } else if focus.waiting { clock += " waiting" }
                parts.append(clock)
                if player.state == .stopping { parts.append("stopping") }
            } else {
                parts.append(state)
                if let left = player.endsInSeconds { parts.append("\(DurationText.clock(seconds: left)) left") }
            }
            if !player.mix.tracks.isEmpty { parts.append(mixText(escape)) }
            if player.mix.master != 100 { parts.append("master \(MixSpec.formatVolume(player.mix.master))") }
            if let note = player.note { parts.append(escape(note)) }
            if let shields = player.shields, !shields.isEmpty {
                parts.append("shields: " + shields.map(\.text).joined(separator: ", "))
            }
        } else {
            parts.append("idle")
        }
        if let bankSeconds { parts.append("\(StatusReport.bankText(bankSeconds)) banked") }
        return parts.joined(separator: " · ")
    }
}
