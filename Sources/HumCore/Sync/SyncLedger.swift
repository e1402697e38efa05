/// How a device may spend once its ledger is shared with others.
public enum SyncSpending: String, Sendable, CaseIterable {
    /// Against the merged balance this device knows (hum's rule without sync). Two devices spending offline at the
    /// same time can overdraw; see `SyncLedger` for the bound.
    case lenient
    /// Only what this device's own entries hold (what it earned less what it spent, `sync.strict`), and never more
    /// than the merged balance. When every device is strict the merged balance never goes below zero, at the price
    /// of minutes earned on one machine not being spendable on another.
    case strict
}

/// The ledger seen across devices.
///
/// **The overdraft bound (lenient spending).** Every entry that takes time (a spend, a hold, a negative adjustment)
/// was accepted by `LedgerRules` against the balance of the entries its device knew then, its view V, which holds
/// all of that device's own earlier entries: balance(V) ≥ the amount taken. Every other entry adds zero or more.
/// So, for the merged set M and any device d that took time, with e its last such entry and V its view then:
///
///     balance(M) ≥ − (the time taken by entries of other devices that are in M but were not in V)
///
/// that is, **the debt after a merge is at most what the other devices spent that this device had not seen when it
/// last spent** (for whichever device that is least), and in any case at most what was spent offline. Earnings
/// never count against it. The debt is shown (`BankStatus.debt`) and blocks spending until earnings repay it; no
/// entry is dropped. With `SyncSpending.strict` on every device the merged balance never goes below zero.
///
/// **The daily cap across devices.** A grant decided after a merge sees every device's grants of the day
/// (`LedgerRules.decide` with `snapshot(…)`), so the cap holds across devices for everything decided on merged
/// knowledge. Two devices earning offline on the same day each stay under the cap, and together can pass it by at
/// most what the others earned that day unseen: `capOverflow` reports it per day; grants are never taken back.
public enum SyncLedger {
    /// The bank as the sum over devices, per device (what each device's own entries add up to).
    public static func perDevice(_ entries: [LedgerEntry]) -> [String: Int64] {
        var out: [String: Int64] = [:]
        for e in entries { out[e.device, default: 0] = out[e.device, default: 0].adding(saturating: e.amount) }
        return out
    }

    /// The merged balance: the sum of every device's entries.
    public static func balance(_ entries: [LedgerEntry]) -> Int64 {
        entries.reduce(Int64(0)) { $0.adding(saturating: $1.amount) }
    }

    /// What the rules need to decide `request` on this device, from the merged entries: the balance, the day's
    /// grants and the week's draws of every device (so the cap and the reserve hold across devices), the key
    /// already used and the hold of a settle. The open pass is the caller's (a pass is local to its machine).
    public static func snapshot(_ entries: [LedgerEntry], for request: LedgerRequest, now: Timestamp) -> LedgerSnapshot
    {
        LedgerSnapshot(entries: entries, for: request, now: now)
    }

    /// The time a request takes from the balance (0 for one that takes nothing).
    public static func takes(_ request: LedgerRequest) -> Int64 {
        switch request {
        case .spend(let s, _, _), .openPass(_, let s, _, _): return max(0, s)
        case .adjust(let s, _, _): return s < 0 ? s.negatedSaturating : 0
        case .grant, .grantContract, .emergency, .settlePass: return 0
        }
    }

    /// Strict spending's own check, made before `LedgerRules.decide` in the same transaction: refuses a request
    /// that takes more than this device's own entries hold. Lenient spending checks nothing here.
    public static func checkSpending(
        _ request: LedgerRequest, entries: [LedgerEntry], device: String, mode: SyncSpending
    ) throws(LedgerRefusal) {
        let amount = takes(request)
        guard mode == .strict, amount > 0 else { return }
        if let key = request.key, entries.contains(where: { $0.key == key }) { return }  // a replay: the rules answer
        let own = perDevice(entries)[device] ?? 0
        if own < amount { throw .notEnough(balance: own, asked: amount) }
    }

    /// Per local day, how far the grants of every device together pass the largest cap in force among them.
    public static func capOverflow(_ entries: [LedgerEntry]) -> [CivilDate: Int64] {
        var sum: [CivilDate: Int64] = [:]
        var cap: [CivilDate: Int64] = [:]
        for e in entries where e.kind == .grant {
            sum[e.localDay, default: 0] = sum[e.localDay, default: 0].adding(saturating: e.amount)
            cap[e.localDay] = max(cap[e.localDay] ?? 0, e.cap ?? 0)
        }
        var out: [CivilDate: Int64] = [:]
        for (day, s) in sum where s > (cap[day] ?? 0) { out[day] = s - (cap[day] ?? 0) }
        return out
    }
}
