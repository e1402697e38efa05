import FoundationEssentials
import HumCore

/// Why a contract cannot do what was asked (one line; usage, failure or refusal).
public struct ContractError: UserFacingError, Equatable {
    public var message: String
    public var kind: FailureKind
    public init(_ message: String, kind: FailureKind = .failure) {
        self.message = message
        self.kind = kind
    }

    /// The refusal of a review for a contract that is not waiting for one (running still, or ended otherwise).
    public static func notInReview(_ c: ContractRecord) -> ContractError {
        let short = String(c.id.prefix(8))
        return ContractError(
            c.status == .running
                ? "contract \(short) is still running: its proof is reviewed when its rounds end"
                : "contract \(short) is \(c.status.rawValue): there is nothing left to review",
            kind: .refused)
    }
}

/// A review or an override, as it was written: the contract after it, and its grant when it paid.
public struct ContractOutcome: Sendable, Equatable {
    public var contract: ContractRecord
    public var grant: LedgerDecision?
}

/// Focus contracts: written before their first round, finished with the evidence of their session, reviewed, and
/// paid once (key `contract:<id>`) on approval or override, in the same transaction (docs/contracts.md).
extension HumDatabase {
    /// The ids of the contracts a date-bounded export writes (four range parameters): those made in the range, and
    /// those paid in it.
    static let exportedContracts = """
        SELECT id FROM contracts WHERE (created_epoch >= ? AND created_epoch < ?) OR id IN (SELECT contract_id
        FROM entries WHERE kind = 'grant' AND contract_id IS NOT NULL AND at_epoch >= ? AND at_epoch < ?)
        """

    static let encoder = CompactJSONEncoder()

    static func json<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String?) -> T? {
        guard let text else { return nil }
        return try? JSONDecoder().decode(type, from: Data(text.utf8))
    }

    // MARK: Writing a contract and running it

    /// Writes a contract as its first round is about to start: running, owned by this process, at the ratio in force
    /// (fixed for it), with the first look at its watched paths. Idempotent by id. Refused while a strict contract
    /// runs: a second contract cannot replace it.
    public func createContract(
        _ start: ContractStart, rounds: Int, focusSeconds: Int64, endsAt: Timestamp?, baseline: [WatchSnapshot]
    ) throws -> ContractRecord {
        if let problem = start.validationProblem() { throw ContractError(problem, kind: .usage) }
        let baselineText = try Self.json(baseline)
        return try guarded {
            try db.immediate {
                if let existing = try loadContracts(where: "c.id = ?", [.text(start.id)]).first { return existing }
                if let refusal = try strictRefusal(.secondContract) { throw refusal }
                let record = ContractRecord(
                    id: start.id, goal: start.goal, doneWhen: start.doneWhen, firstStep: start.firstStep,
                    watch: start.watch, strict: start.strict, status: .running, createdAt: calendar.now(),
                    endsAt: endsAt, ratioMilli: try loadConfig().earnRatioMilli,
                    rounds: min(max(rounds, 1), 1000), focusSeconds: LedgerBounds.clampRound(focusSeconds),
                    device: device)
                try insertContract(record, owner: probe.current(), baseline: baselineText)
                return record
            }
        }
    }

    /// The one place a contract row is inserted, with its criteria, watched paths, reviews and events.
    func insertContract(_ c: ContractRecord, owner: ProcessOwner?, baseline: String?) throws {
        try db.run(
            """
            INSERT INTO contracts(id, goal, first_step, strict, status, created_at, created_epoch, created_offset,
                ends_epoch, ends_offset, ended_epoch, ended_offset, ratio_milli, rounds, focus_seconds, attempts, reward,
                reward_entry_id, override_reason, override_epoch, override_offset, device, owner_pid, owner_start,
                owner_boot, baseline, evidence, proof)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(c.id), .text(c.goal), .optional(c.firstStep), .int(c.strict ? 1 : 0), .text(c.status.rawValue),
                .text(c.createdAt.rfc3339), .int(c.createdAt.epochSeconds), .int(Int64(c.createdAt.offsetSeconds)),
                .optional(c.endsAt?.epochSeconds), .optional(c.endsAt.map { Int64($0.offsetSeconds) }),
                .optional(c.endedAt?.epochSeconds), .optional(c.endedAt.map { Int64($0.offsetSeconds) }),
                .int(c.ratioMilli), .int(Int64(c.rounds)), .int(c.focusSeconds), .int(Int64(c.attempts)),
                .optional(c.rewardSeconds), .optional(c.rewardEntryID), .optional(c.override?.reason),
                .optional(c.override?.at.epochSeconds), .optional(c.override.map { Int64($0.at.offsetSeconds) }),
                .text(c.device), .optional(owner.map { Int64($0.pid) }), .optional(owner?.startTicks),
                .optional(owner?.bootID), .optional(baseline), .optional(try c.evidence.map(Self.json)),
                .text(try Self.json(c.proof)),
            ])
        let seq = try contractSeq(c.id)
        try insertContractRows(c, seq: seq)
    }

    /// A contract's own rows (its criteria, watched paths, reviews and events), under its `seq`.
    func insertContractRows(_ c: ContractRecord, seq: Int64) throws {
        for (i, text) in c.doneWhen.enumerated() {
            try db.run(
                "INSERT INTO contract_criteria(contract_seq, position, text) VALUES (?, ?, ?)",
                [.int(seq), .int(Int64(i)), .text(text)])
        }
        for (i, path) in c.watch.enumerated() {
            try db.run(
                "INSERT INTO contract_watch(contract_seq, position, path) VALUES (?, ?, ?)",
                [.int(seq), .int(Int64(i)), .text(path)])
        }
        for review in c.reviews { try insertReview(review, seq: seq) }
        for event in c.events { try insertEvent(event, seq: seq) }
    }

    func contractSeq(_ id: String) throws -> Int64 {
        guard let seq = try db.scalarInt("SELECT seq FROM contracts WHERE id = ?", [.text(id)]) else {
            throw ContractError("no contract \(id)", kind: .usage)
        }
        return seq
    }

    func insertReview(_ r: ContractReviewRecord, seq: Int64) throws {
        try db.run(
            """
            INSERT INTO contract_reviews(contract_seq, attempt, at_epoch, at_offset, reviewer, proof, checks,
                cannot_check, status, confidence, reason, missing, question)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .int(seq), .int(Int64(r.attempt)), .int(r.at.epochSeconds), .int(Int64(r.at.offsetSeconds)),
                .text(r.reviewer), .text(try Self.json(r.proof)), .text(try Self.json(r.checks)),
                .text(try Self.json(r.cannotCheck)), .text(r.decision.status.rawValue),
                .double(r.decision.confidence.isFinite ? r.decision.confidence : 0), .text(r.decision.reason),
                .text(try Self.json(r.decision.missing)), .optional(r.decision.question),
            ])
    }

    func insertEvent(_ e: ContractEvent, seq: Int64) throws {
        let position =
            try db.scalarInt(
                "SELECT COALESCE(MAX(position) + 1, 0) FROM contract_events WHERE contract_seq = ?", [.int(seq)]) ?? 0
        try db.run(
            """
            INSERT INTO contract_events(contract_seq, position, at_epoch, at_offset, kind, detail)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [
                .int(seq), .int(position), .int(e.at.epochSeconds), .int(Int64(e.at.offsetSeconds)), .text(e.kind),
                .text(e.detail),
            ])
    }

    /// The planned end of a running contract's rounds, as it moves (a pause, an extension, a wait).
    public func updateContractEnd(id: String, endsAt: Timestamp?) throws {
        try guarded {
            try db.run(
                "UPDATE contracts SET ends_epoch = ?, ends_offset = ? WHERE id = ? AND status = 'running'",
                [.optional(endsAt?.epochSeconds), .optional(endsAt.map { Int64($0.offsetSeconds) }), .text(id)])
        }
    }

    /// The first look at a running contract's watched paths.
    public func contractBaseline(id: String) throws -> [WatchSnapshot] {
        try guarded {
            Self.decode(
                [WatchSnapshot].self, try db.scalarText("SELECT baseline FROM contracts WHERE id = ?", [.text(id)]))
                ?? []
        }
    }

    /// The rounds of a running contract ended: it moves into proof review (`completed`) with the evidence of its
    /// session, or, stopped early, it is `interrupted` and earns nothing. Only a running contract changes; returns it
    /// as it is now.
    @discardableResult
    public func finishContract(id: String, completed: Bool, evidence: ContractEvidence?) throws -> ContractRecord? {
        let evidenceText = try evidence.map(Self.json)
        return try guarded {
            try db.immediate {
                let now = calendar.now()
                try db.run(
                    """
                    UPDATE contracts SET status = ?, ended_epoch = ?, ended_offset = ?, ends_epoch = NULL,
                        ends_offset = NULL, evidence = ?, baseline = NULL
                    WHERE id = ? AND status = 'running'
                    """,
                    [
                        .text(completed ? "completed" : "interrupted"), .int(now.epochSeconds),
                        .int(Int64(now.offsetSeconds)), .optional(evidenceText), .text(id),
                    ])
                return try loadContracts(where: "c.id = ?", [.text(id)]).first
            }
        }
    }

    // MARK: Reading

    /// The contract of this id, or of the only id starting with `prefix` (at least 4 characters).
    public func contract(matching prefix: String) throws -> ContractRecord {
        try guarded {
            try db.reading {
                if let exact = try loadContracts(where: "c.id = ?", [.text(prefix)]).first { return exact }
                guard prefix.count >= 4 else {
                    throw ContractError(
                        "no contract \(prefix.quoted); give its id or the first 4 characters or more (see 'hum "
                            + "contract list')",
                        kind: .usage)
                }
                var ids: [String] = []
                try db.query(
                    "SELECT id FROM contracts WHERE substr(id, 1, ?) = ? LIMIT 3",
                    [.int(Int64(prefix.count)), .text(prefix)]
                ) { ids.append(try $0.text("id")) }
                guard ids.count == 1 else {
                    throw ContractError(
                        ids.isEmpty
                            ? "no contract \(prefix.quoted) (see 'hum contract list')"
                            : "\(prefix.quoted) is the start of several contracts (\(ids.joined(separator: ", "))); give "
                                + "more of its id",
                        kind: .usage)
                }
                guard let found = try loadContracts(where: "c.id = ?", [.text(ids[0])]).first else {
                    throw ContractError("no contract \(prefix.quoted)", kind: .usage)
                }
                return found
            }
        }
    }

    /// Contracts made in [from, to) (epoch seconds; nil is open), oldest first.
    public func contracts(from: Int64? = nil, to: Int64? = nil) throws -> [ContractRecord] {
        try guarded {
            try db.reading {
                try loadContracts(
                    where: "c.created_epoch >= ? AND c.created_epoch < ?",
                    [.int(from ?? Int64.min), .int(to ?? Int64.max)])
            }
        }
    }

    /// What a date-bounded `hum export` writes: the contracts made in the range, and those paid in it.
    public func exportContracts(from: Int64? = nil, to: Int64? = nil) throws -> [ContractRecord] {
        let range: [SQLValue] = [.int(from ?? Int64.min), .int(to ?? Int64.max)]
        return try guarded {
            try db.reading { try loadContracts(where: "c.id IN (\(Self.exportedContracts))", range + range) }
        }
    }

    /// The strict contract that runs now, if one does.
    public func runningStrictContract() throws -> ContractRecord? {
        try guarded { try loadContracts(where: "c.status = 'running' AND c.strict = 1", []).first }
    }

    /// The active seconds of a contract's completed focus rounds: what it earns on.
    func contractActive(_ id: String) throws -> Int64 {
        try db.scalarTotal(
            "SELECT TOTAL(active) FROM rounds WHERE contract_id = ? AND kind = 'focus' AND status = 'completed'",
            [.text(id)])
    }

    /// Reads contracts with everything they hold, oldest first.
    func loadContracts(where clause: String, _ arguments: [SQLValue]) throws -> [ContractRecord] {
        var records: [ContractRecord] = []
        var seqs: [Int64] = []
        try db.query(
            """
            SELECT c.seq, c.id, c.goal, c.first_step, c.strict, c.status, c.created_epoch, c.created_offset,
                c.ends_epoch, c.ends_offset, c.ended_epoch, c.ended_offset, c.ratio_milli, c.rounds, c.focus_seconds,
                c.attempts, c.reward, c.reward_entry_id, c.override_reason, c.override_epoch, c.override_offset,
                c.device, c.evidence, c.proof
            FROM contracts c WHERE \(clause) ORDER BY c.created_epoch, c.seq
            """, arguments
        ) { row in
            func stamp(_ epoch: String, _ offset: String) throws -> Timestamp? {
                guard let e = try row.optionalInt(epoch) else { return nil }
                return Timestamp(epochSeconds: e, offsetSeconds: Int32(clamping: try row.optionalInt(offset) ?? 0))
            }
            seqs.append(try row.int("seq"))
            let override = try row.optionalText("override_reason").map { reason in
                ContractOverride(
                    reason: reason,
                    at: try stamp("override_epoch", "override_offset") ?? Timestamp(epochSeconds: 0, offsetSeconds: 0))
            }
            records.append(
                ContractRecord(
                    id: try row.text("id"), goal: try row.text("goal"), doneWhen: [],
                    firstStep: try row.optionalText("first_step"), watch: [], strict: try row.int("strict") != 0,
                    status: ContractStatus(rawValue: try row.text("status")) ?? .interrupted,
                    createdAt: try stamp("created_epoch", "created_offset")
                        ?? Timestamp(epochSeconds: 0, offsetSeconds: 0),
                    endsAt: try stamp("ends_epoch", "ends_offset"), endedAt: try stamp("ended_epoch", "ended_offset"),
                    ratioMilli: try row.int("ratio_milli"), rounds: Int(clamping: try row.int("rounds")),
                    focusSeconds: try row.int("focus_seconds"), attempts: Int(clamping: try row.int("attempts")),
                    rewardSeconds: try row.optionalInt("reward"),
                    rewardEntryID: try row.optionalText("reward_entry_id"),
                    device: try row.text("device"),
                    proof: Self.decode(ContractProof.self, try row.text("proof")) ?? ContractProof(),
                    evidence: Self.decode(ContractEvidence.self, try row.optionalText("evidence")),
                    override: override))
        }
        guard !seqs.isEmpty else { return records }
        var index: [Int64: Int] = [:]
        for (i, seq) in seqs.enumerated() { index[seq] = i }
        let low = seqs.min() ?? 0
        let high = seqs.max() ?? 0
        try db.query(
            """
            SELECT contract_seq, text FROM contract_criteria WHERE contract_seq BETWEEN ? AND ?
            ORDER BY contract_seq, position
            """, [.int(low), .int(high)]
        ) { row in if let i = index[try row.int("contract_seq")] { records[i].doneWhen.append(try row.text("text")) } }
        try db.query(
            """
            SELECT contract_seq, path FROM contract_watch WHERE contract_seq BETWEEN ? AND ?
            ORDER BY contract_seq, position
            """, [.int(low), .int(high)]
        ) { row in if let i = index[try row.int("contract_seq")] { records[i].watch.append(try row.text("path")) } }
        try db.query(
            """
            SELECT contract_seq, attempt, at_epoch, at_offset, reviewer, proof, checks, cannot_check, status, confidence,
                reason, missing, question
            FROM contract_reviews WHERE contract_seq BETWEEN ? AND ? ORDER BY contract_seq, attempt
            """, [.int(low), .int(high)]
        ) { row in
            guard let i = index[try row.int("contract_seq")] else { return }
            records[i].reviews.append(
                ContractReviewRecord(
                    attempt: Int(clamping: try row.int("attempt")),
                    at: Timestamp(
                        epochSeconds: try row.int("at_epoch"), offsetSeconds: Int32(clamping: try row.int("at_offset"))),
                    reviewer: try row.text("reviewer"),
                    proof: Self.decode(ContractProof.self, try row.text("proof")) ?? ContractProof(),
                    checks: Self.decode([ProofCheck].self, try row.text("checks")) ?? [],
                    cannotCheck: Self.decode([String].self, try row.text("cannot_check")) ?? [],
                    decision: ReviewDecision(
                        status: ReviewStatus(rawValue: try row.text("status")) ?? .needsMore,
                        confidence: try row.double("confidence"), reason: try row.text("reason"),
                        missing: Self.decode([String].self, try row.text("missing")) ?? [],
                        question: try row.optionalText("question"))))
        }
        try db.query(
            """
            SELECT contract_seq, at_epoch, at_offset, kind, detail FROM contract_events
            WHERE contract_seq BETWEEN ? AND ? ORDER BY contract_seq, position
            """, [.int(low), .int(high)]
        ) { row in
            guard let i = index[try row.int("contract_seq")] else { return }
            records[i].events.append(
                ContractEvent(
                    at: Timestamp(
                        epochSeconds: try row.int("at_epoch"), offsetSeconds: Int32(clamping: try row.int("at_offset"))),
                    kind: try row.text("kind"), detail: try row.text("detail")))
        }
        return records
    }
}
