/// A contract as the history keeps it and `hum export` writes it: its terms, where it stands, its proof, the
/// evidence of its session, every review, the override and what happened to it while it was strict.
public struct ContractRecord: Sendable, Equatable, Codable {
    public var id: String
    public var goal: String
    public var doneWhen: [String]
    public var firstStep: String?
    public var watch: [String]
    public var strict: Bool
    public var status: ContractStatus
    public var createdAt: Timestamp
    /// The planned end of its rounds (absolute; the countdown is only a view of it), while it runs.
    public var endsAt: Timestamp?
    /// When its rounds ended (or it was abandoned).
    public var endedAt: Timestamp?
    /// The ratio it earns at, in thousandths, fixed when it was written.
    public var ratioMilli: Int64
    public var rounds: Int
    public var focusSeconds: Int64
    /// Reviews used (at most `ContractRules.attempts`).
    public var attempts: Int
    /// Seconds granted on approval or override (after the daily cap); nil until then.
    public var rewardSeconds: Int64?
    /// The ledger entry of the grant (its key is `contract:<id>`).
    public var rewardEntryID: String?
    /// The device (database) that wrote it.
    public var device: String
    public var proof: ContractProof
    public var evidence: ContractEvidence?
    public var reviews: [ContractReviewRecord]
    public var override: ContractOverride?
    public var events: [ContractEvent]

    public init(
        id: String, goal: String, doneWhen: [String], firstStep: String?, watch: [String], strict: Bool,
        status: ContractStatus, createdAt: Timestamp, endsAt: Timestamp? = nil, endedAt: Timestamp? = nil,
        ratioMilli: Int64, rounds: Int, focusSeconds: Int64, attempts: Int = 0, rewardSeconds: Int64? = nil,
        rewardEntryID: String? = nil, device: String, proof: ContractProof = ContractProof(),
        evidence: ContractEvidence? = nil, reviews: [ContractReviewRecord] = [], override: ContractOverride? = nil,
        events: [ContractEvent] = []
    ) {
        self.id = id
        self.goal = goal
        self.doneWhen = doneWhen
        self.firstStep = firstStep
        self.watch = watch
        self.strict = strict
        self.status = status
        self.createdAt = createdAt
        self.endsAt = endsAt
        self.endedAt = endedAt
        self.ratioMilli = ratioMilli
        self.rounds = rounds
        self.focusSeconds = focusSeconds
        self.attempts = attempts
        self.rewardSeconds = rewardSeconds
        self.rewardEntryID = rewardEntryID
        self.device = device
        self.proof = proof
        self.evidence = evidence
        self.reviews = reviews
        self.override = override
        self.events = events
    }

    enum CodingKeys: String, CodingKey {
        case id, goal, watch, strict, status, rounds, attempts, device, proof, evidence, reviews, override, events
        case doneWhen = "done_when"
        case firstStep = "first_step"
        case createdAt = "created_at"
        case endsAt = "ends_at"
        case endedAt = "ended_at"
        case ratioMilli = "ratio_milli"
        case focusSeconds = "focus_seconds"
        case rewardSeconds = "reward_seconds"
        case rewardEntryID = "reward_entry_id"
    }

    /// Every key is written, null when it does not apply, so readers need no defaults.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(goal, forKey: .goal)
        try c.encode(doneWhen, forKey: .doneWhen)
        try c.encode(firstStep, forKey: .firstStep)
        try c.encode(watch, forKey: .watch)
        try c.encode(strict, forKey: .strict)
        try c.encode(status, forKey: .status)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(endsAt, forKey: .endsAt)
        try c.encode(endedAt, forKey: .endedAt)
        try c.encode(ratioMilli, forKey: .ratioMilli)
        try c.encode(rounds, forKey: .rounds)
        try c.encode(focusSeconds, forKey: .focusSeconds)
        try c.encode(attempts, forKey: .attempts)
        try c.encode(rewardSeconds, forKey: .rewardSeconds)
        try c.encode(rewardEntryID, forKey: .rewardEntryID)
        try c.encode(device, forKey: .device)
        try c.encode(proof, forKey: .proof)
        try c.encode(evidence, forKey: .evidence)
        try c.encode(reviews, forKey: .reviews)
        try c.encode(override, forKey: .override)
        try c.encode(events, forKey: .events)
    }

    /// Checks every text, list and number against its bounds and that the record agrees with itself (a paid
    /// contract says what it was paid; an override has its reason; no more reviews than allowed). Used on import and
    /// by `hum ledger check`. The first problem, or nil.
    public func validationProblem() -> String? {
        let start = ContractStart(
            id: id, goal: goal, doneWhen: doneWhen, firstStep: firstStep, watch: watch, strict: strict)
        if let problem = start.validationProblem() { return "contract \(id): \(problem)" }
        for (t, what) in [(createdAt, "its creation"), (endsAt, "its planned end"), (endedAt, "its end")] {
            if let t, let problem = LedgerBounds.problem(t, "contract \(id): \(what)") { return problem }
        }
        guard LedgerConfig.ratioMilli.contains(ratioMilli) else { return "contract \(id): its ratio is out of range" }
        guard (1...1000).contains(rounds), LedgerBounds.roundSeconds.contains(focusSeconds) else {
            return "contract \(id): its rounds or their length are out of range"
        }
        guard (0...ContractRules.attempts).contains(attempts), reviews.count <= ContractRules.attempts,
            device.utf8.count <= LedgerBounds.idBytes, !device.isEmpty
        else { return "contract \(id): more reviews than allowed, or a bad device" }
        if let rewardSeconds, !LedgerBounds.entryField.contains(rewardSeconds) {
            return "contract \(id): its reward is out of range"
        }
        if let problem = proof.validationProblem(criteria: doneWhen.count) { return "contract \(id): \(problem)" }
        if let problem = evidence?.validationProblem() { return "contract \(id): \(problem)" }
        for review in reviews {
            if let problem = review.decision.validationProblem() ?? review.proof.validationProblem(
                criteria: doneWhen.count) ?? LedgerBounds.problem(review.at, "its review")
            {
                return "contract \(id): review \(review.attempt): \(problem)"
            }
            guard review.reviewer.utf8.count <= 1100, review.checks.count <= ContractBounds.listCount,
                review.cannotCheck.count <= ContractEvidence.changeLimit
            else { return "contract \(id): review \(review.attempt) is too large" }
        }
        guard events.count <= ContractBounds.listCount * 4,
            events.allSatisfy({ ContractBounds.text($0.detail, required: false) && $0.kind.utf8.count <= 40 })
        else { return "contract \(id): too many or too long events" }
        for e in events { if let p = LedgerBounds.problem(e.at, "contract \(id): an event") { return p } }
        if let override {
            guard ContractBounds.text(override.reason, required: true) else {
                return "contract \(id): an override needs its reason"
            }
            if let p = LedgerBounds.problem(override.at, "contract \(id): its override") { return p }
        }
        switch status {
        case .approved:
            guard reviews.last?.decision.status == .approved else {
                return "contract \(id) is approved, but no review approved it"
            }
        case .overridden:
            guard override != nil else { return "contract \(id) is overridden, but has no override reason" }
        default:
            guard override == nil else { return "contract \(id) has an override but is \(status.rawValue)" }
        }
        if status.granted != (rewardSeconds != nil) {
            return "contract \(id) is \(status.rawValue) but \(rewardSeconds == nil ? "has no" : "has a") reward"
        }
        return nil
    }
}
