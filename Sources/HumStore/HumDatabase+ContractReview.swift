import FoundationEssentials
import HumCore

/// Contracts in review: the proof draft, the reviews and their pay (once, key `contract:<id>`), the override, the
/// abandon, and the rules of strict mode enforced inside the ledger's transactions (docs/contracts.md).
extension HumDatabase {
    /// Replaces the proof draft of a running contract or of one in review (it stays editable until submitted).
    public func saveProof(id: String, _ proof: ContractProof) throws -> ContractRecord {
        try guarded {
            try db.immediate {
                guard let c = try loadContracts(where: "c.id = ?", [.text(id)]).first else {
                    throw ContractError("no contract \(id)", kind: .usage)
                }
                guard c.status == .running || c.status == .completed else {
                    throw ContractError(
                        "contract \(String(id.prefix(8))) is \(c.status.rawValue): its proof can no longer change",
                        kind: .refused)
                }
                if let problem = proof.validationProblem(criteria: c.doneWhen.count) {
                    throw ContractError(problem, kind: .usage)
                }
                try db.run("UPDATE contracts SET proof = ? WHERE id = ?", [.text(try Self.json(proof)), .text(id)])
                var saved = c
                saved.proof = proof
                return saved
            }
        }
    }

    /// Records a submitted review, in one transaction with what follows from it: approved, the contract is paid
    /// (key `contract:<id>`: never twice); not approved, one attempt is used, and after the last one it is rejected
    /// (an override may still pay it). `review.attempt` must be the next attempt: a review submitted meanwhile by
    /// another process wins and this one is refused, so no attempt is used twice.
    public func submitReview(id: String, review: ContractReviewRecord) throws -> ContractOutcome {
        try guarded {
            try db.immediate {
                guard var c = try loadContracts(where: "c.id = ?", [.text(id)]).first else {
                    throw ContractError("no contract \(id)", kind: .usage)
                }
                let short = String(id.prefix(8))
                guard c.status == .completed else { throw ContractError.notInReview(c) }
                guard review.attempt == c.attempts + 1, review.attempt <= ContractRules.attempts else {
                    throw ContractError(
                        "contract \(short) was reviewed meanwhile (attempt \(c.attempts) of "
                            + "\(ContractRules.attempts)); see 'hum contract show \(short)'",
                        kind: .refused)
                }
                if let problem = review.decision.validationProblem() { throw ContractError(problem) }
                let seq = try contractSeq(id)
                try insertReview(review, seq: seq)
                c.attempts = review.attempt
                c.reviews.append(review)
                c.proof = review.proof
                var grant: LedgerDecision? = nil
                if review.decision.status == .approved {
                    grant = try pay(&c, label: "proof approved")
                    c.status = .approved
                } else if c.attempts >= ContractRules.attempts {
                    c.status = .rejected
                }
                try db.run(
                    """
                    UPDATE contracts SET attempts = ?, status = ?, proof = ?, reward = ?, reward_entry_id = ? WHERE id = ?
                    """,
                    [
                        .int(Int64(c.attempts)), .text(c.status.rawValue), .text(try Self.json(c.proof)),
                        .optional(c.rewardSeconds), .optional(c.rewardEntryID), .text(id),
                    ])
                return ContractOutcome(contract: c, grant: grant)
            }
        }
    }

    /// Grants a contract's reward (the caller holds the write lock and writes the contract's row); `label` says why
    /// in the register.
    private func pay(_ c: inout ContractRecord, label: String) throws -> LedgerDecision {
        let running =
            try db.scalarInt(
                "SELECT COUNT(*) FROM rounds WHERE contract_id = ? AND status = 'running'", [.text(c.id)]) ?? 0
        guard running == 0 else {
            throw ContractError(
                "a round of contract \(String(c.id.prefix(8))) is not written yet; try again in a moment")
        }
        let decision = try recordLocked(
            .grantContract(contractID: c.id, activeSeconds: try contractActive(c.id), ratioMilli: c.ratioMilli),
            command: nil, settledBy: "owner", label: label)
        c.rewardSeconds = decision.entry.amount
        c.rewardEntryID = decision.entry.id
        return decision
    }

    /// Pays a contract the review did not approve (after its resubmission), with the user's written reason, which
    /// the history keeps. Refused while a strict contract runs.
    public func overrideContract(id: String, reason: String) throws -> ContractOutcome {
        guard ContractBounds.text(reason, required: true), reason.contains(where: { !$0.isWhitespace }) else {
            throw ContractError("an override needs a reason of 1 to \(ContractBounds.textBytes) bytes", kind: .usage)
        }
        return try guarded {
            try db.immediate {
                guard var c = try loadContracts(where: "c.id = ?", [.text(id)]).first else {
                    throw ContractError("no contract \(id)", kind: .usage)
                }
                let short = String(id.prefix(8))
                guard c.status == .rejected else {
                    let why: String
                    switch c.status {
                    case .completed:
                        why =
                            "its review has \(ContractRules.attempts - c.attempts) "
                            + "attempt\(ContractRules.attempts - c.attempts == 1 ? "" : "s") left: submit the "
                            + "proof ('hum proof \(short) … --submit'); an override comes after the resubmission"
                    case .running: why = "it is still running"
                    case .approved, .overridden: why = "it was already paid"
                    case .abandoned, .interrupted, .rejected: why = "it is \(c.status.rawValue)"
                    }
                    throw ContractError("contract \(short) cannot be overridden: \(why)", kind: .refused)
                }
                if let refusal = try strictRefusal(.override) { throw refusal }
                let grant = try pay(&c, label: "overridden: \(reason)")
                c.status = .overridden
                c.override = ContractOverride(reason: reason, at: calendar.now())
                try db.run(
                    """
                    UPDATE contracts SET status = 'overridden', reward = ?, reward_entry_id = ?, override_reason = ?,
                        override_epoch = ?, override_offset = ?
                    WHERE id = ?
                    """,
                    [
                        .optional(c.rewardSeconds), .optional(c.rewardEntryID), .text(reason),
                        .int(c.override?.at.epochSeconds ?? 0), .int(Int64(c.override?.at.offsetSeconds ?? 0)),
                        .text(id),
                    ])
                return ContractOutcome(contract: c, grant: grant)
            }
        }
    }

    /// Gives up a contract in review (or rejected): it earns nothing, and the history keeps why.
    public func abandonContract(id: String, reason: String?) throws -> ContractRecord {
        if let reason, !ContractBounds.text(reason, required: false) {
            throw ContractError("a reason to abandon is at most \(ContractBounds.textBytes) bytes", kind: .usage)
        }
        return try guarded {
            try db.immediate {
                guard var c = try loadContracts(where: "c.id = ?", [.text(id)]).first else {
                    throw ContractError("no contract \(id)", kind: .usage)
                }
                guard c.status == .completed || c.status == .rejected else {
                    throw ContractError(
                        c.status == .running
                            ? "contract \(String(id.prefix(8))) is running: stop its rounds (q) to end it"
                            : "contract \(String(id.prefix(8))) is \(c.status.rawValue) already",
                        kind: .refused)
                }
                let now = calendar.now()
                let event = ContractEvent(at: now, kind: "abandoned", detail: reason ?? "")
                try insertEvent(event, seq: try contractSeq(id))
                try db.run(
                    "UPDATE contracts SET status = 'abandoned', ended_epoch = COALESCE(ended_epoch, ?) WHERE id = ?",
                    [.int(now.epochSeconds), .text(id)])
                c.status = .abandoned
                c.events.append(event)
                return c
            }
        }
    }

    // MARK: Strict mode

    /// The refusal a running strict contract gives to `what`, or nil when none runs. The caller holds the lock.
    func strictRefusal(_ what: StrictRules.Loosening) throws -> StrictRules.Refusal? {
        var refusal: StrictRules.Refusal? = nil
        try db.query(
            "SELECT id, goal, ends_epoch, ends_offset FROM contracts WHERE status = 'running' AND strict = 1 LIMIT 1"
        ) { row in
            let until = try row.optionalInt("ends_epoch").map {
                Timestamp(epochSeconds: $0, offsetSeconds: Int32(clamping: try row.optionalInt("ends_offset") ?? 0))
            }
            refusal = StrictRules.Refusal(
                contractID: try row.text("id"), goal: try row.text("goal"), until: until, what: what)
        }
        return refusal
    }

    /// Draws on the emergency reserve and, when a strict contract runs, notes the draw in its history (how long it
    /// waited, how it was confirmed), in one transaction. Returns the decision and the contract it was noted in.
    public func recordEmergency(_ request: LedgerRequest, strictNote: String) throws -> (
        decision: LedgerDecision, contract: String?
    ) {
        try guarded {
            try db.immediate {
                let decision = try recordLocked(request, command: nil, settledBy: "owner")
                return (decision, try noteEmergencyLocked(decision, strictNote: strictNote))
            }
        }
    }

    /// Notes an emergency draw in the strict contract that runs, inside the caller's transaction; returns the
    /// contract's id, or nil when none runs (or the draw was not recorded anew).
    func noteEmergencyLocked(_ decision: LedgerDecision, strictNote: String) throws -> String? {
        guard case .record(let entry) = decision,
            let id = try db.scalarText("SELECT id FROM contracts WHERE status = 'running' AND strict = 1 LIMIT 1")
        else { return nil }
        try insertEvent(
            ContractEvent(
                at: entry.at, kind: "emergency",
                detail:
                    "\(DurationText.format(seconds: entry.reserve ?? 0)) drawn from the reserve "
                    + "(\(entry.reason ?? "")); \(strictNote); entry \(entry.id)"
            ), seq: try contractSeq(id))
        return id
    }
}
