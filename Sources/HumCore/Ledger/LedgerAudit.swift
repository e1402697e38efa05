/// Every invariant of the ledger, checked over its entries in the order they were written (`hum ledger check`).
public enum LedgerAudit {
    /// What the audit needs to know of a round.
    public struct RoundFacts: Sendable, Equatable {
        public var id: String
        public var kind: RoundKind
        public var status: RoundStatus
        public var earned: Int64
        /// Its active seconds, when known: compared with what its grant was asked for.
        public var active: Int64?
        /// What is wrong with its stored numbers (`RoundRecord.validationProblem`), if anything.
        public var problem: String?
        /// The contract it was a round of: such a round earns nothing itself (its contract is paid, on approval).
        public var contractID: String?
        public init(
            id: String, kind: RoundKind, status: RoundStatus, earned: Int64, active: Int64? = nil,
            problem: String? = nil, contractID: String? = nil
        ) {
            self.id = id
            self.kind = kind
            self.status = status
            self.earned = earned
            self.active = active
            self.problem = problem
            self.contractID = contractID
        }
    }

    /// What the audit needs to know of a contract.
    public struct ContractFacts: Sendable, Equatable {
        public var id: String
        public var status: ContractStatus
        public var rewardSeconds: Int64?
        /// The active seconds of its completed focus rounds in the history; nil when none of its rounds is here (a
        /// contract merged from another machine without its sessions).
        public var roundsActive: Int64?
        /// What is wrong with the record itself (`ContractRecord.validationProblem`), if anything.
        public var problem: String?
        /// The ratio it earns at, in thousandths, when known: its grant must be asked at that ratio.
        public var ratioMilli: Int64?
        /// The entry that paid it, as its record says, when it says.
        public var rewardEntryID: String?
        public init(
            id: String, status: ContractStatus, rewardSeconds: Int64?, roundsActive: Int64?, problem: String? = nil,
            ratioMilli: Int64? = nil, rewardEntryID: String? = nil
        ) {
            self.id = id
            self.status = status
            self.rewardSeconds = rewardSeconds
            self.roundsActive = roundsActive
            self.problem = problem
            self.ratioMilli = ratioMilli
            self.rewardEntryID = rewardEntryID
        }
    }

    /// A broken invariant, with what it is about: an import that would add one is refused, naming its line.
    public struct Failure: Sendable, Equatable, CustomStringConvertible {
        public enum Subject: Sendable, Hashable {
            case entry(String)
            case round(String)
            case contract(String)
            case pass(String)
            case day(String)
            case week(String)
            /// The ledger as a whole (the stored balance, the open passes).
            case ledger
        }
        public var subject: Subject
        public var message: String
        public var description: String { message }
        public init(_ subject: Subject, _ message: String) {
            self.subject = subject
            self.message = message
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
        rounds: [RoundFacts]? = nil, contracts: [ContractFacts]? = nil, dayBoundary: DayBoundary = .midnight
    ) -> [String] {
        failures(
            entries: entries, device: device, openPassIDs: openPassIDs, cachedBalance: cachedBalance, rounds: rounds,
            contracts: contracts, dayBoundary: dayBoundary
        ).map(\.message)
    }

    /// Every broken invariant, with its subject. Never traps, whatever the entries hold: sums saturate.
    ///
    /// - dayBoundary: `day.starts-at`, the day the daily cap counts by. A grant breaks the cap only when its day
    ///   passes it counted both by calendar days and by the boundary's days: grants written before the setting
    ///   changed were capped by the other.
    public static func failures(
        entries: [LedgerEntry], device: String, openPassIDs: [String], cachedBalance: Int64?,
        rounds: [RoundFacts]? = nil, contracts: [ContractFacts]? = nil, dayBoundary: DayBoundary = .midnight
    ) -> [Failure] {
        var failures: [Failure] = []
        func fail(_ subject: Failure.Subject, _ s: String) {
            if failures.count < 100 { failures.append(Failure(subject, s)) }
        }
        var ids = Set<String>()
        var keys = Set<String>()
        var grantByRound: [String: LedgerEntry] = [:]
        var grantByContract: [String: LedgerEntry] = [:]
        var holds: [String: LedgerEntry] = [:]
        // Holds first: a settle is checked against its hold wherever the two stand in the order written (a merge can
        // bring a settle before its hold).
        for e in entries where e.kind == .hold {
            if let pass = e.passID {
                if holds[pass] != nil { fail(.pass(pass), "pass \(pass) was held twice") }
                holds[pass] = e
            }
        }
        var settled = Set<String>()
        // Per device and local day: what its grants earned, and the largest cap in force among those that earned.
        var earnedPerDay: [String: (sum: Int64, cap: Int64)] = [:]
        var earnedPerBoundaryDay: [String: (sum: Int64, cap: Int64)] = [:]
        var reservePerWeek: [String: Int64] = [:]
        var balance: Int64 = 0
        for e in entries {
            if !ids.insert(e.id).inserted { fail(.entry(e.id), "entry id \(e.id) appears twice") }
            if let key = e.key, !keys.insert(key).inserted {
                fail(.entry(e.id), "key \(key.quoted) is used by two entries")
            }
            if let problem = e.validationProblem() ?? ruleProblem(e) { fail(.entry(e.id), problem) }
            let local = e.device == device
            switch e.kind {
            case .grant:
                if let round = e.roundID {
                    if grantByRound[round] != nil { fail(.entry(e.id), "round \(round) was granted twice") }
                    grantByRound[round] = e
                }
                if let contract = e.contractID {
                    if grantByContract[contract] != nil { fail(.entry(e.id), "contract \(contract) was granted twice") }
                    grantByContract[contract] = e
                }
                // A device grants no more on a day than the cap it had in force: when it wrote the last of the
                // day's grants that earned, all of them together fitted under that grant's cap. So, in any order the
                // entries arrive in, the day's grants so far never pass the largest cap among them.
                if e.amount > 0 {
                    let dayKey = e.localDay.description
                    let slot = e.device + "\u{0}" + dayKey
                    var day = earnedPerDay[slot, default: (0, 0)]
                    day.sum = day.sum.adding(saturating: e.amount)
                    day.cap = max(day.cap, e.cap ?? 0)
                    earnedPerDay[slot] = day
                    let boundarySlot = e.device + "\u{0}" + dayBoundary.day(of: e.at).description
                    var boundaryDay = earnedPerBoundaryDay[boundarySlot, default: (0, 0)]
                    boundaryDay.sum = boundaryDay.sum.adding(saturating: e.amount)
                    boundaryDay.cap = max(boundaryDay.cap, e.cap ?? 0)
                    earnedPerBoundaryDay[boundarySlot] = boundaryDay
                    if day.sum > day.cap, boundaryDay.sum > boundaryDay.cap {
                        fail(
                            .entry(e.id),
                            "grant \(e.id) takes \(dayKey) past its daily cap: device \(e.device) earned \(day.sum)s that "
                                + "day, its cap was \(day.cap)s")
                    }
                }
            case .spend, .hold:
                if local, balance < e.amount.negatedSaturating {
                    fail(
                        .entry(e.id),
                        "\(e.kind.rawValue) \(e.id) of \(e.amount.negatedSaturating)s was taken with only \(balance)s "
                            + "in the bank"
                    )
                }
            case .settle:
                guard let pass = e.passID else { break }
                if !settled.insert(pass).inserted { fail(.pass(pass), "pass \(pass) was settled twice") }
                if let hold = holds[pass] {
                    let held = hold.amount.negatedSaturating
                    let used = e.used ?? 0
                    if used > held { fail(.pass(pass), "pass \(pass) posted \(used)s, more than the \(held)s it held") }
                    let expected = (hold.forfeit ?? false) ? 0 : max(0, held.subtracting(saturating: used))
                    if e.amount != expected {
                        fail(.pass(pass), "pass \(pass) released \(e.amount)s; \(expected)s was due")
                    }
                } else {
                    fail(.pass(pass), "settle \(e.id) returns \(e.amount)s for pass \(pass), which has no hold")
                }
            case .emergency:
                if local {
                    let weekKey = e.isoWeek.description
                    let sum = reservePerWeek[weekKey, default: 0].adding(saturating: e.reserve ?? 0)
                    reservePerWeek[weekKey] = sum
                    if let allowance = e.allowance, sum > allowance {
                        fail(
                            .week(weekKey),
                            "emergency \(e.id) takes \(weekKey) past its reserve (\(sum)s > \(allowance)s)")
                    }
                }
            case .adjustment:
                if local, e.amount < 0, balance < e.amount.negatedSaturating {
                    fail(.entry(e.id), "adjustment \(e.id) of \(e.amount)s was made with only \(balance)s in the bank")
                }
            }
            balance = balance.adding(saturating: e.amount)
        }
        if let cachedBalance, cachedBalance != balance {
            fail(.ledger, "the stored balance \(cachedBalance)s differs from the sum of the entries, \(balance)s")
        }
        if openPassIDs.count > 1 { fail(.ledger, "\(openPassIDs.count) passes are open at once") }
        for id in openPassIDs {
            if holds[id] == nil { fail(.pass(id), "open pass \(id) has no hold") }
            if settled.contains(id) { fail(.pass(id), "pass \(id) is open but already settled") }
        }
        let open = Set(openPassIDs)
        for (id, hold) in holds where hold.device == device && !settled.contains(id) && !open.contains(id) {
            fail(.pass(id), "pass \(id) is neither open nor settled")
        }
        if let rounds {
            var known = Set<String>()
            for round in rounds {
                known.insert(round.id)
                if let problem = round.problem { fail(.round(round.id), problem) }
                let grant = grantByRound[round.id]
                if let contract = round.contractID {
                    // A contract's round earns nothing itself: its contract is paid, once, on approval.
                    if grant != nil {
                        fail(.round(round.id), "round \(round.id) of contract \(contract) was granted on its own")
                    }
                    if round.earned != 0 {
                        fail(
                            .round(round.id),
                            "round \(round.id) of contract \(contract) says it earned \(round.earned)s on its own")
                    }
                } else if round.kind == .focus, round.status == .completed {
                    if let grant {
                        if grant.amount != round.earned {
                            fail(
                                .round(round.id),
                                "round \(round.id) says it earned \(round.earned)s; its grant is \(grant.amount)s")
                        }
                        if let active = round.active, let asked = grantedActive(grant), asked != active {
                            fail(
                                .round(round.id), "round \(round.id) was active \(active)s; its grant was for \(asked)s"
                            )
                        }
                        if let active = round.active, let requested = grant.requested,
                            requested > LedgerConfig.mostEarned(activeSeconds: active)
                        {
                            fail(
                                .round(round.id),
                                "round \(round.id) was granted \(requested)s for \(active)s active, more than any "
                                    + "ratio gives"
                            )
                        }
                    } else {
                        fail(.round(round.id), "completed round \(round.id) has no grant")
                    }
                } else {
                    if grant != nil {
                        fail(.round(round.id), "round \(round.id) is \(round.status.rawValue) but was granted")
                    }
                    if round.earned != 0 {
                        fail(
                            .round(round.id),
                            "round \(round.id) is \(round.status.rawValue) but says it earned \(round.earned)s")
                    }
                }
            }
            // hum writes a grant in the same transaction as its round: a grant of this device without its round
            // minted time from nothing. (Merged grants may come without their rounds, which stay on their device.)
            for (round, grant) in grantByRound where grant.device == device && !known.contains(round) {
                fail(.entry(grant.id), "grant \(grant.id) of \(grant.amount)s has no round \(round) in the history")
            }
        }
        if let contracts {
            failures += contractFailures(contracts, grants: grantByContract, device: device)
        }
        return Array(failures.prefix(100))
    }

    /// A contract is paid only after approval or an override, once, what its record says, for the active time of its
    /// rounds at the ratio it was made with; and every grant for a contract has its contract.
    static func contractFailures(_ contracts: [ContractFacts], grants: [String: LedgerEntry], device: String)
        -> [Failure]
    {
        var failures: [Failure] = []
        var known = Set<String>()
        for contract in contracts {
            known.insert(contract.id)
            let subject = Failure.Subject.contract(contract.id)
            if let problem = contract.problem { failures.append(Failure(subject, problem)) }
            let grant = grants[contract.id]
            guard contract.status.granted else {
                if let grant {
                    failures.append(
                        Failure(
                            subject,
                            "contract \(contract.id) is \(contract.status.rawValue), yet grant \(grant.id) paid it: a "
                                + "contract is paid only on approval or override"
                        ))
                }
                continue
            }
            guard let grant else {
                failures.append(
                    Failure(subject, "contract \(contract.id) is \(contract.status.rawValue) but was never granted"))
                continue
            }
            if let paidBy = contract.rewardEntryID, paidBy != grant.id {
                failures.append(
                    Failure(subject, "contract \(contract.id) says entry \(paidBy) paid it; grant \(grant.id) did"))
            }
            if let ratio = contract.ratioMilli, let asked = contractTerms(grant)?.ratio, asked != ratio {
                failures.append(
                    Failure(
                        .entry(grant.id),
                        "grant \(grant.id) pays contract \(contract.id) at ratio \(LedgerConfig.ratioText(asked)); the "
                            + "contract was made at \(LedgerConfig.ratioText(ratio))"))
            }
            if let reward = contract.rewardSeconds, reward != grant.amount {
                failures.append(
                    Failure(subject, "contract \(contract.id) says it earned \(reward)s; its grant is \(grant.amount)s")
                )
            }
            if let active = contract.roundsActive, let asked = grantedActive(grant), asked != active {
                failures.append(
                    Failure(
                        subject, "contract \(contract.id)'s rounds were active \(active)s; its grant was for \(asked)s")
                )
            }
            if let requested = grant.requested,
                requested > LedgerConfig.mostEarned(activeSeconds: grantedActive(grant) ?? 0)
            {
                failures.append(
                    Failure(
                        subject,
                        "contract \(contract.id) was granted \(requested)s, more than any ratio gives for its "
                            + "active time"
                    ))
            }
        }
        // A contract is paid where it is kept: a grant for a contract that is not here (whatever device wrote it) is
        // time no contract can account for. An import brings the contracts its grants pay (`hum ledger export` and
        // `hum export` write them).
        for (contract, grant) in grants where !known.contains(contract) {
            failures.append(
                Failure(.entry(grant.id), "grant \(grant.id) of \(grant.amount)s has no contract \(contract) here"))
        }
        return failures
    }

    /// The active seconds a grant was asked for, from its payload (`grant round=… active=N`).
    static func grantedActive(_ grant: LedgerEntry) -> Int64? {
        guard let last = grant.payload.split(separator: " ").last, last.hasPrefix("active=") else { return nil }
        return Int64(last.dropFirst("active=".count))
    }
}
