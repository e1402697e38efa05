import HumCore

/// Where the person was during a focus round (docs/rules.md, "Away"): what the session's presence said, and what
/// the round did about it by the setting `focus.when-away`.
struct AwayTracking {
    /// The policy read when the rounds began.
    var policy: AwayPolicy = .pause
    /// Monotonic seconds when the session went away, while it is.
    var since: Double?
    /// Whether the round was paused because of it (resumed on return, unless the user resumed it meanwhile).
    var pausedByAway = false
    /// Away seconds of the round under way, before `since`.
    var roundSeconds: Double = 0
}

extension FocusRun {
    /// The session went away or came back (logind, on the player's loop). Only a running focus round minds: it
    /// pauses (the mix fades out) and resumes on return, runs on, or stops, by `focus.when-away`; the away time
    /// is recorded on the round either way.
    func sessionChanged(_ hints: SessionHints) {
        let now = player.loop.monotonicSeconds
        if hints.away {
            guard away.since == nil, machine.currentPhase?.kind == .focus, case .running = machine.state else {
                return
            }
            away.since = now
            switch away.policy {
            case .pause:
                away.pausedByAway = true
                try? input(.pause)
                player.environment.stderr.write("hum: away (\(hints.text)): the round is paused until you are back\n")
            case .keep:
                player.environment.stderr.write("hum: away (\(hints.text)): the round runs on (focus.when-away keep)\n")
            case .stop:
                player.environment.stderr.write("hum: away (\(hints.text)): the rounds stop (focus.when-away stop)\n")
                try? input(.stop)
            }
            return
        }
        guard let since = away.since else { return }
        let seconds = max(0, now - since)
        away.since = nil
        away.roundSeconds += seconds
        let resume = away.pausedByAway && isPaused
        away.pausedByAway = false
        if resume { try? input(.resume) }
        let text = DurationText.format(seconds: Int64(seconds.rounded()))
        player.environment.stderr.write(
            "hum: back after \(text) away" + (resume ? "; the round resumes\n" : "\n"))
        player.notifyDesktop(
            FocusNotification(
                summary: "Back after \(text) away",
                body: resume ? "The focus round resumes; the time away does not count as focus." : "", actions: []))
    }

    /// The away seconds of the round that ends now (one away still under way counts up to now and goes on for the
    /// next round).
    func takeRoundAway() -> Int64 {
        let now = player.loop.monotonicSeconds
        var seconds = away.roundSeconds
        if let since = away.since {
            seconds += max(0, now - since)
            away.since = now
        }
        away.roundSeconds = 0
        return Int64(seconds.rounded())
    }
}
