/// Every invariant of the ledger, checked over its entries in the order they were written (`hum ledger check`).
public enum LedgerAudit {
    /// What the audit needs to know of a round.
    public struct RoundFacts: Sendable, Equatable {
        public var id: String
        public var kind: RoundKind
        public var status: RoundStatus
        public var earned: Int64
        public init(id: String, kind: RoundKind, status: RoundStatus, earned: Int64) {
            self.id = id
            self.kind = kind
            self.status = status
            self.earned = earned
        }
    }

    /// Returns one line per failure; empty when every invariant holds.
    ///
    /// - entries: in the order written (the store's sequence).
    /// - device: this database's device id; the local rules (no overspend, cap, reserve) are checked for its own
    ///   entries only, since merged entries were decided elsewhere.
    /// - openPassIDs: the passes the store holds open.
    /// - cachedBalance: the balance the store keeps next to the entries, if it keeps one.
    /// - rounds: the rounds of the history, if the store keeps them.
    public static func audit(
        entries: [LedgerEntry], device: String, openPassIDs: [String], cachedBalance: Int64?,
        rounds: [RoundFacts]? = nil
    ) -> [String] {
        var failures: [String] = []
        func fail(_ s: String) { if failures.count < 100 { failures.append(s) } }
        var ids = Set<String>()
        var keys = Set<String>()
        var grantByRound: [String: LedgerEntry] = [:]
        var holds: [String: LedgerEntry] = [:]
        var settled = Set<String>()
        var earnedPerDay: [String: Int64] = [:]
        var reservePerWeek: [String: Int64] = [:]
        var balance: Int64 = 0
        for e in entries {
            if !ids.insert(e.id).inserted { fail("entry id \(e.id) appears twice") }
            if let key = e.key, !keys.insert(key).inserted { fail("key \"\(key)\" is used by two entries") }
            if let problem = e.validationProblem() { fail(problem) }
            let local = e.device == device
            switch e.kind {
            case .grant:
                if let round = e.roundID {
                    if grantByRound[round] != nil { fail("round \(round) was granted twice") }
                    grantByRound[round] = e
                }
                if local {
                    let dayKey = e.localDay.description
                    let sum = earnedPerDay[dayKey, default: 0] + e.amount
                    earnedPerDay[dayKey] = sum
                    if let cap = e.cap, sum > cap {
                        fail("grant \(e.id) takes \(dayKey) past its daily cap (\(sum)s > \(cap)s)")
                    }
                }
            case .spend, .hold:
                if local, balance < -e.amount {
                    fail("\(e.kind.rawValue) \(e.id) of \(-e.amount)s was taken with only \(balance)s in the bank")
                }
                if e.kind == .hold, let pass = e.passID {
                    if holds[pass] != nil { fail("pass \(pass) was held twice") }
                    holds[pass] = e
                }
            case .settle:
                guard let pass = e.passID else { break }
                if !settled.insert(pass).inserted { fail("pass \(pass) was settled twice") }
                if let hold = holds[pass] {
                    let held = -hold.amount
                    let used = e.used ?? 0
                    if used > held { fail("pass \(pass) posted \(used)s, more than the \(held)s it held") }
                    let expected = (hold.forfeit ?? false) ? 0 : held - used
                    if e.amount != expected { fail("pass \(pass) released \(e.amount)s; \(expected)s was due") }
                } else if local {
                    fail("settle \(e.id) has no earlier hold for pass \(pass)")
                }
            case .emergency:
                if local {
                    let weekKey = e.isoWeek.description
                    let sum = reservePerWeek[weekKey, default: 0] + (e.reserve ?? 0)
                    reservePerWeek[weekKey] = sum
                    if let allowance = e.allowance, sum > allowance {
                        fail("emergency \(e.id) takes \(weekKey) past its reserve (\(sum)s > \(allowance)s)")
                    }
                }
            case .adjustment:
                if local, e.amount < 0, balance < -e.amount {
                    fail("adjustment \(e.id) of \(e.amount)s was made with only \(balance)s in the bank")
                }
            }
            balance += e.amount
        }
        if let cachedBalance, cachedBalance != balance {
            fail("the stored balance \(cachedBalance)s differs from the sum of the entries, \(balance)s")
        }
        if openPassIDs.count > 1 { fail("\(openPassIDs.count) passes are open at once") }
        for id in openPassIDs {
            if holds[id] == nil { fail("open pass \(id) has no hold") }
            if settled.contains(id) { fail("pass \(id) is open but already settled") }
        }
        let open = Set(openPassIDs)
        for (id, hold) in holds where hold.device == device && !settled.contains(id) && !open.contains(id) {
            fail("pass \(id) is neither open nor settled")
        }
        if let rounds {
            for round in rounds {
                let grant = grantByRound[round.id]
                if round.kind == .focus, round.status == .completed {
                    if let grant {
                        if grant.amount != round.earned {
                            fail("round \(round.id) says it earned \(round.earned)s; its grant is \(grant.amount)s")
                        }
                    } else {
                        fail("completed round \(round.id) has no grant")
                    }
                } else {
                    if grant != nil { fail("round \(round.id) is \(round.status.rawValue) but was granted") }
                    if round.earned != 0 {
                        fail("round \(round.id) is \(round.status.rawValue) but says it earned \(round.earned)s")
                    }
                }
            }
        }
        return failures
    }
}
