/// The rules every entry answers to, whatever device wrote it: an entry is what its own request makes of it. One
/// definition, used by `hum ledger check` and, through the check run inside its transaction, by `hum ledger import`.
extension LedgerAudit {
    /// What hum's rules could never have written in this one entry; nil when it is such an entry.
    ///
    /// - Its key and its text (`payload`) are those of the request its fields describe: an adjustment that says 60 s
    ///   carries 60 s, a hold says its pass, its length and its label, and so on.
    /// - A grant records a daily cap a setting can hold (0 to 24 h) and takes no more than it; a round's grant asks
    ///   what some ratio gives for the active time it names, a contract's exactly what its ratio gives.
    /// - Every amount, draw and hold is within what the rules accept (366 days), an emergency within its allowance.
    ///
    /// The sums over many entries (a day's grants against its cap) and the grant's agreement with its round or its
    /// contract are checked by `failures`.
    public static func ruleProblem(_ e: LedgerEntry) -> String? {
        let most = LedgerRules.maxSeconds
        let name = "\(e.kind.rawValue) \(e.id)"
        func textProblem(_ request: LedgerRequest) -> String? {
            if e.payload != request.payload {
                return
                    "\(name) is not what its request writes: its text says \"\(clip(e.payload))\", its fields say "
                    + "\"\(clip(request.payload))\""
            }
            if let key = request.key, e.key != key {
                return "\(name) is keyed \"\(clip(e.key ?? ""))\"; hum keys it \"\(clip(key))\""
            }
            return nil
        }
        switch e.kind {
        case .grant:
            guard let cap = e.cap else { return "\(name) records no daily cap" }
            guard LedgerConfig.dailyCapRange.contains(cap) else {
                return "\(name) records a daily cap of \(cap)s; a cap is 0 to 24 hours (86400s)"
            }
            guard e.amount <= cap else { return "\(name) grants \(e.amount)s, more than its daily cap of \(cap)s" }
            let requested = e.requested ?? 0
            if let round = e.roundID {
                guard let active = grantedActive(e), (0...most).contains(active) else {
                    return "\(name) does not say the active time it was granted for (\"grant round=… active=N\")"
                }
                if let problem = textProblem(.grant(roundID: round, activeSeconds: active)) { return problem }
                var slowest = LedgerConfig()
                slowest.earnRatioMilli = LedgerConfig.ratioMilli.upperBound
                let range = slowest.earned(activeSeconds: active)...LedgerConfig.mostEarned(activeSeconds: active)
                guard range.contains(requested) else {
                    return
                        "\(name) asks \(requested)s for \(active)s of focus, which no ratio gives "
                        + "(\(range.lowerBound)s to \(range.upperBound)s)"
                }
            } else if let contract = e.contractID {
                guard let (ratio, active) = contractTerms(e), LedgerConfig.ratioMilli.contains(ratio),
                    (0...most).contains(active)
                else {
                    return
                        "\(name) does not say the ratio and active time it was granted for (\"grant contract=… "
                        + "ratio=R active=N\")"
                }
                if let problem = textProblem(
                    .grantContract(contractID: contract, activeSeconds: active, ratioMilli: ratio))
                {
                    return problem
                }
                let due = ContractReward.earned(activeSeconds: active, ratioMilli: ratio)
                guard requested == due else {
                    return "\(name) asks \(requested)s; \(active)s of focus at its ratio earns \(due)s"
                }
            }
        case .spend:
            guard e.amount.negatedSaturating <= most, let label = e.label else {
                return "\(name) of \(e.amount)s is beyond 366 days, or says not what it was spent on"
            }
            return textProblem(.spend(seconds: e.amount.negatedSaturating, label: label, key: nil))
        case .adjustment:
            guard e.amount.magnitude <= most.magnitude, let reason = e.reason else {
                return "\(name) of \(e.amount)s is beyond 366 days either way"
            }
            return textProblem(.adjust(seconds: e.amount, reason: reason, key: nil))
        case .emergency:
            guard let reserve = e.reserve, reserve <= most, let allowance = e.allowance,
                LedgerConfig.emergencyWeeklyRange.contains(allowance), reserve <= allowance, let reason = e.reason
            else {
                return
                    "\(name) draws \(e.reserve ?? 0)s on a weekly reserve of \(e.allowance.map { "\($0)s" } ?? "none"); "
                    + "a draw is at most the reserve, a reserve 0 to 168 hours"
            }
            return textProblem(.emergency(seconds: reserve, reason: reason, key: nil))
        case .hold:
            guard let pass = e.passID, e.amount.negatedSaturating <= most else {
                return "\(name) of \(e.amount)s is beyond 366 days"
            }
            return textProblem(
                .openPass(
                    passID: pass, seconds: e.amount.negatedSaturating, label: e.label, forfeit: e.forfeit ?? false))
        case .settle:
            guard let pass = e.passID, let used = e.used, used <= most else {
                return "\(name) posts more than 366 days"
            }
            return textProblem(.settlePass(passID: pass, usedSeconds: used))
        }
        return nil
    }

    /// The ratio and the active seconds a contract's grant was asked for, from its text
    /// (`grant contract=… ratio=R active=N`).
    static func contractTerms(_ grant: LedgerEntry) -> (ratio: Int64, active: Int64)? {
        let words = grant.payload.split(separator: " ")
        guard words.count >= 3, let ratio = words[words.count - 2].split(separator: "=", maxSplits: 1).last,
            words[words.count - 2].hasPrefix("ratio="), let r = Int64(ratio), let active = grantedActive(grant)
        else { return nil }
        return (r, active)
    }

    /// Text from an entry, cut for a message.
    static func clip(_ text: String) -> String {
        text.count <= 80 ? text : String(text.prefix(79)) + "…"
    }
}
