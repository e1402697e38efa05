extension StatusReport {
    /// Whole seconds from this report's moment until one of `fields` may read differently with nothing but the
    /// clock moving; nil when none will (no countdown runs, or the fields show none of it). `hum status --follow`
    /// sleeps exactly that long between changes the player announces: a template that shows minutes wakes once a
    /// minute, one that shows seconds once a second, one that shows neither never.
    public func secondsUntilChange(of fields: Set<StatusField>) -> Int64? {
        guard let player else { return nil }
        var next: Int64? = nil
        func consider(_ seconds: Int64?) {
            guard let seconds, seconds > 0 else { return }
            next = min(next ?? seconds, seconds)
        }
        let left = countdownRuns ? countdownSeconds : nil
        for field in fields {
            switch field.motion {
            case .still:
                break
            case .everySecond:
                consider(1)
            case .countdownSecond:
                if left != nil { consider(1) }
            case .countdownMinute:
                // Minutes are shown rounded up: 12:04 reads 13 until 12:00, 12:00 reads 12 until 11:00.
                if let left { consider((left - 1) % 60 + 1) }
            case .percent:
                guard let left else { break }
                let total = player.focus?.plannedSeconds ?? (player.elapsedSeconds + left)
                guard total > 0 else { break }
                let done = total - left
                let shown = Int64(percent)
                guard shown < 100 else { break }
                // The first whole second at which done * 100 / total reaches the next percent.
                let target = ((shown + 1) * total + 99) / 100
                consider(max(target - done, 1))
            }
        }
        if let left, let found = next { return min(found, left) }
        return next
    }
}
