/// What a review says of a proof.
public enum ReviewStatus: String, Sendable, Codable, CaseIterable {
    case approved
    /// The proof may be right, but something is missing: `missing` and `question` say what.
    case needsMore = "needs_more"
    /// The evidence contradicts the proof.
    case rejected
}

/// The one structured answer every reviewer gives: the status, how sure it is (0 to 1), a short reason, the evidence
/// it misses, and one focused follow-up question when it needs more.
public struct ReviewDecision: Sendable, Equatable, Codable {
    public var status: ReviewStatus
    public var confidence: Double
    public var reason: String
    public var missing: [String]
    public var question: String?

    public init(
        status: ReviewStatus, confidence: Double, reason: String, missing: [String] = [], question: String? = nil
    ) {
        self.status = status
        self.confidence = confidence
        self.reason = reason
        self.missing = missing
        self.question = question
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encode(confidence, forKey: .confidence)
        try c.encode(reason, forKey: .reason)
        try c.encode(missing, forKey: .missing)
        try c.encode(question, forKey: .question)
    }

    enum CodingKeys: String, CodingKey { case status, confidence, reason, missing, question }

    /// The longest reason, missing item or question, in bytes.
    public static let textBytes = 1000

    /// What is wrong with an answer, or nil: a reviewer's answer is taken only when it is exactly this structure
    /// within these bounds (a needs_more always asks its question).
    public func validationProblem() -> String? {
        guard confidence.isFinite, (0...1).contains(confidence) else {
            return "confidence must be a number from 0 to 1"
        }
        guard reason.contains(where: { !$0.isWhitespace }), reason.utf8.count <= Self.textBytes else {
            return "reason must be 1 to \(Self.textBytes) bytes"
        }
        guard missing.count <= ContractBounds.listCount, missing.allSatisfy({ $0.utf8.count <= Self.textBytes }) else {
            return "missing must be at most \(ContractBounds.listCount) texts of at most \(Self.textBytes) bytes"
        }
        if let question, question.utf8.count > Self.textBytes {
            return "question must be at most \(Self.textBytes) bytes"
        }
        if status == .needsMore, !(question ?? "").contains(where: { !$0.isWhitespace }) {
            return "a needs_more answer must ask its follow-up question"
        }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decode(ReviewStatus.self, forKey: .status)
        confidence = try c.decode(Double.self, forKey: .confidence)
        reason = try c.decode(String.self, forKey: .reason)
        missing = try c.decodeIfPresent([String].self, forKey: .missing) ?? []
        question = try c.decodeIfPresent(String.self, forKey: .question)
    }
}

/// Everything a reviewer is given: the contract, the proof, what hum found of each of its items and of the session,
/// what it could not check, and which attempt this is. It is also what an external reviewer reads on its stdin.
public struct ReviewRequest: Sendable, Equatable, Codable {
    public struct Terms: Sendable, Equatable, Codable {
        public var id: String
        public var goal: String
        public var doneWhen: [String]
        public var firstStep: String?
        public var watch: [String]
        public init(id: String, goal: String, doneWhen: [String], firstStep: String?, watch: [String]) {
            self.id = id
            self.goal = goal
            self.doneWhen = doneWhen
            self.firstStep = firstStep
            self.watch = watch
        }
        enum CodingKeys: String, CodingKey {
            case id, goal, watch
            case doneWhen = "done_when"
            case firstStep = "first_step"
        }
    }

    public static let schemaName = "hum.review-request/1"
    public var schema = ReviewRequest.schemaName
    public var contract: Terms
    public var proof: ContractProof
    public var checks: [ProofCheck]
    public var evidence: ContractEvidence?
    public var cannotCheck: [String]
    public var attempt: Int
    public var attemptsAllowed: Int

    public init(
        contract: Terms, proof: ContractProof, checks: [ProofCheck], evidence: ContractEvidence?,
        cannotCheck: [String], attempt: Int, attemptsAllowed: Int = ContractRules.attempts
    ) {
        self.contract = contract
        self.proof = proof
        self.checks = checks
        self.evidence = evidence
        self.cannotCheck = cannotCheck
        self.attempt = attempt
        self.attemptsAllowed = attemptsAllowed
    }

    enum CodingKeys: String, CodingKey {
        case schema, contract, proof, checks, evidence, attempt
        case cannotCheck = "cannot_check"
        case attemptsAllowed = "attempts_allowed"
    }

    /// What hum cannot check about this proof, in plain words: its links, files outside the watch list, watched
    /// paths that do not exist, and what changes mean.
    public static func cannotCheck(checks: [ProofCheck], evidence: ContractEvidence?, watch: [String]) -> [String] {
        var out: [String] = []
        for check in checks {
            switch check.finding {
            case .link: out.append("the link \(check.item): hum does not open links, so what it shows is not checked")
            case .outsideWatch: out.append("\(check.item): outside the watch list, so hum did not read it")
            case .missing: out.append("\(check.item): there is no such file")
            default: break
            }
        }
        if watch.isEmpty {
            out.append("no path was watched (no --watch, and not started in a git repository): no file or commit")
        }
        for w in evidence?.watch ?? [] where w.kind == .missing {
            out.append("the watched path \(w.path) does not exist, so nothing could be checked there")
        }
        out += evidence?.limits ?? []
        out.append("what the changes mean: hum counts files, lines, words and commits; it does not judge their content")
        return out
    }
}

/// A reviewer: given a request, one decision. The local one is deterministic; an external one is a command the
/// user configured (HumCLI).
public protocol ContractReviewer {
    /// How the history names it: `local`, or `command: …`.
    var name: String { get }
    func review(_ request: ReviewRequest) throws -> ReviewDecision
}

/// The rules of review that do not depend on the reviewer.
public enum ContractRules {
    /// A proof may be submitted twice (one resubmission); after that, only an override (with a reason) pays.
    public static let attempts = 2
}

/// One submitted review, as the history keeps it.
public struct ContractReviewRecord: Sendable, Equatable, Codable {
    public var attempt: Int
    public var at: Timestamp
    public var reviewer: String
    public var proof: ContractProof
    public var checks: [ProofCheck]
    public var cannotCheck: [String]
    public var decision: ReviewDecision

    public init(
        attempt: Int, at: Timestamp, reviewer: String, proof: ContractProof, checks: [ProofCheck],
        cannotCheck: [String], decision: ReviewDecision
    ) {
        self.attempt = attempt
        self.at = at
        self.reviewer = reviewer
        self.proof = proof
        self.checks = checks
        self.cannotCheck = cannotCheck
        self.decision = decision
    }

    enum CodingKeys: String, CodingKey {
        case attempt, at, reviewer, proof, checks, decision
        case cannotCheck = "cannot_check"
    }
}

/// A manual override: the user disagreed with the review, in writing.
public struct ContractOverride: Sendable, Equatable, Codable {
    public var reason: String
    public var at: Timestamp
    public init(reason: String, at: Timestamp) {
        self.reason = reason
        self.at = at
    }
}

/// Something that happened to a contract that the history keeps: an emergency draw while it was strict, an
/// abandonment.
public struct ContractEvent: Sendable, Equatable, Codable {
    public var at: Timestamp
    public var kind: String
    public var detail: String
    public init(at: Timestamp, kind: String, detail: String) {
        self.at = at
        self.kind = kind
        self.detail = detail
    }
}
