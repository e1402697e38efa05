import FoundationEssentials
import HumCore
import HumStore
import HumSystem

/// Submitting a contract's proof: what hum checks of each item, the request, the reviewer (hum's own, or the command
/// the user configured, after consent), and the decision recorded with the grant when it approves.
public enum ReviewRunner {
    /// The request for the next review of a contract: its terms, its draft proof, what hum found of each item.
    public static func request(for c: ContractRecord) -> ReviewRequest {
        var checks: [ProofCheck] = c.proof.files.map { path in
            let resolved = EvidenceGatherer.realPath(path)
            return ProofCheck.file(resolved ?? path, exists: resolved != nil, watch: c.watch, evidence: c.evidence)
        }
        checks += c.proof.links.map { ProofCheck(item: $0, finding: .link) }
        return ReviewRequest(
            contract: .init(id: c.id, goal: c.goal, doneWhen: c.doneWhen, firstStep: c.firstStep, watch: c.watch),
            proof: c.proof, checks: checks, evidence: c.evidence,
            cannotCheck: ReviewRequest.cannotCheck(checks: checks, evidence: c.evidence, watch: c.watch),
            attempt: c.attempts + 1)
    }

    /// Reviews the draft of a contract in review and records the decision. An empty proof is refused before any
    /// review (no attempt is used); so is the proof a review did not approve, unchanged, and an answer the reviewer
    /// gets wrong or gives late.
    public static func submit(_ c: ContractRecord, db: HumDatabase, environment: PlayerEnvironment, consent: Bool)
        throws
        -> ContractOutcome
    {
        let short = String(c.id.prefix(8)).visible
        // Checked here before the reviewer runs, and again by the store in the transaction that records it.
        guard c.status == .completed else { throw ContractError.notInReview(c) }
        guard !c.proof.isEmpty else {
            throw ContractError(
                "the proof of contract \(short) is empty; add --text, --file, --link or --check N, then --submit (no "
                    + "attempt was used)",
                kind: .usage)
        }
        let request = request(for: c)
        // The same proof, found the same, would get the same decision: the one resubmission is kept for a changed one.
        if let last = c.reviews.last, last.proof == c.proof, last.checks == request.checks {
            throw ContractError(
                "the proof of contract \(short) is the one review \(last.attempt) did not approve; change it first "
                    + "(what it found missing, with --text, --file, --link or --check N), then --submit (no attempt "
                    + "was used)",
                kind: .refused)
        }
        let config = try db.config()
        let reviewer: any ContractReviewer
        if let command = config.reviewCommand {
            try ExternalReviewer.consent(
                command: command, request: request, db: db, environment: environment, given: consent)
            reviewer = ExternalReviewer(command: command, timeout: Double(config.reviewTimeoutSeconds))
        } else {
            reviewer = LocalReviewer()
        }
        let decision = try reviewer.review(request)
        return try db.submitReview(
            id: c.id,
            review: ContractReviewRecord(
                attempt: request.attempt, at: db.calendar.now(), reviewer: reviewer.name, proof: c.proof,
                checks: request.checks, cannotCheck: request.cannotCheck, decision: decision))
    }
}

/// A reviewer the user configured (`hum config set review.command "CMD ARGS"`): run directly (split on spaces, no
/// shell) in a process group of its own, the request as JSON on its stdin; its stdout must be the decision, one JSON
/// object, and it must exit within `review.timeout` (its answer is what it printed by then; what it leaves in its
/// group is stopped). Anything else is refused and no attempt is used.
struct ExternalReviewer: ContractReviewer {
    let command: String
    let timeout: Double

    var name: String { "command: \(command)" }

    var argv: [String] { command.split(separator: " ").map(String.init) }

    func review(_ request: ReviewRequest) throws -> ReviewDecision {
        var input = try CompactJSONEncoder().encode(request)
        input.append(10)
        let words = argv
        guard let first = words.first else { throw ContractError("review.command is empty") }
        let tail =
            "; the proof was not submitted and no attempt was used (fix the reviewer, or 'hum config set "
            + "review.command local')"
        let result: CapturedCommand.Result
        do {
            result = try CapturedCommand.run(words, input: input, timeout: timeout, limit: 1 << 20)
        } catch let error as any UserFacingError {
            throw ContractError("the reviewer \(first) could not run: \(error.message)\(tail)")
        }
        if result.timedOut {
            throw ContractError(
                "the reviewer \(first) did not answer within \(DurationText.format(seconds: Int64(timeout))) "
                    + "(review.timeout); it was stopped\(tail)"
            )
        }
        if result.tooLong { throw ContractError("the reviewer \(first) answered more than 1 MiB\(tail)") }
        guard result.exitCode == 0 else {
            throw ContractError("the reviewer \(first) failed (exit \(result.exitCode))\(tail)")
        }
        do {
            return try Self.parse(result.output)
        } catch {
            throw ContractError("the reviewer \(first) answered something hum cannot use: \(error.text)\(tail)")
        }
    }

    struct Problem: Error {
        var text: String
    }

    /// Reads an answer: exactly one JSON object of the decision's structure, within its bounds.
    static func parse(_ bytes: [UInt8]) throws(Problem) -> ReviewDecision {
        let trimmed = bytes.drop { $0 == 32 || (9...13).contains($0) }
        guard !trimmed.isEmpty else { throw Problem(text: "it printed nothing") }
        let decision: ReviewDecision
        do {
            decision = try JSONDecoder().decode(ReviewDecision.self, from: Data(trimmed))
        } catch {
            throw Problem(
                text:
                    "not the JSON object hum expects ({\"status\": \"approved\", \"needs_more\" or \"rejected\", "
                    + "\"confidence\": 0 to 1, \"reason\", \"missing\": [...], \"question\"})"
            )
        }
        if let problem = decision.validationProblem() { throw Problem(text: problem) }
        return decision
    }

    /// Before the first use of a command: shows what it would be sent, and sends it only with consent (asked on a
    /// terminal; `--consent` off one). The consent is kept for that exact command line.
    static func consent(
        command: String, request: ReviewRequest, db: HumDatabase, environment: PlayerEnvironment, given: Bool
    ) throws {
        if try db.reviewConsent() == command { return }
        let shown = (try? Self.pretty(request)) ?? "{}"
        environment.stderr.write(
            "hum: the reviewer \"\(command.visible)\" has not been used yet. On its stdin it gets this JSON (the "
                + "contract, the proof, what hum found), and must answer with the decision:\n\(shown)\n"
        )
        var agreed = given
        if !agreed, environment.stdinIsTerminal {
            environment.stderr.write("hum: send it, now and from now on, to \"\(command.visible)\"? [y/N] ")
            let answer = readLine() ?? ""
            agreed = ["y", "yes"].contains(answer.lowercased().trimmingSpaces)
        }
        guard agreed else {
            throw ContractError(
                environment.stdinIsTerminal
                    ? "nothing was sent to the reviewer, and the proof was not submitted (no attempt was used)"
                    : "the reviewer \(command.quoted) needs your consent before its first use: read what it would get "
                        + "(above), then run this again with --consent (or 'hum config set review.command local'); no "
                        + "attempt was used"
            )
        }
        try db.setReviewConsent(command)
    }

    /// The request as people read it before consenting: indented, keys sorted.
    static func pretty(_ request: ReviewRequest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(request), as: UTF8.self)
    }
}
