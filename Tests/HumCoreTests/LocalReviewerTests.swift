import HumCore
import Testing

/// The default reviewer on the table of cases of issue 14 (and docs/contracts.md): each case is a contract, a proof,
/// the evidence hum gathered, and the decision the reviewer must give.
@Suite struct LocalReviewerTests {
    static let repo = "/work/repo"
    static let t0 = Timestamp(epochSeconds: 1_743_300_000, offsetSeconds: 7200)
    static let t1 = Timestamp(epochSeconds: 1_743_301_500, offsetSeconds: 7200)
    static let criteria = ["intro.md has three paragraphs", "sources cited"]

    static func evidence(
        files: [FileChange] = [], commits: [CommitRecord] = [], mentions: [FileMention] = [],
        watch: [ContractEvidence.Watched] = [.init(path: repo, kind: .git, files: 3, truncated: false)]
    ) -> ContractEvidence {
        ContractEvidence(from: t0, to: t1, watch: watch, files: files, commits: commits, mentions: mentions)
    }

    static let introChanged = FileChange(
        path: repo + "/intro.md", change: .modified, bytesBefore: 10, bytesAfter: 400, linesBefore: 1, linesAfter: 5,
        wordsBefore: 2, wordsAfter: 80)
    static let citeCommit = CommitRecord(
        repository: repo, hash: "0123456789abcdef0123456789abcdef01234567", at: t1, subject: "Cite the sources",
        files: [repo + "/refs.bib"], insertions: 12, deletions: 0)
    static let introFound = FileMention(criterion: 1, name: "intro.md", found: [repo + "/intro.md"])
    static let introNotFound = FileMention(criterion: 1, name: "intro.md", found: [])

    static func request(
        _ proof: ContractProof, checks: [ProofCheck] = [], evidence: ContractEvidence?, watch: [String] = [repo],
        criteria: [String] = criteria
    ) -> ReviewRequest {
        ReviewRequest(
            contract: .init(id: "c1", goal: "Draft the intro", doneWhen: criteria, firstStep: nil, watch: watch),
            proof: proof, checks: checks, evidence: evidence,
            cannotCheck: ReviewRequest.cannotCheck(checks: checks, evidence: evidence, watch: watch), attempt: 1)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var request: ReviewRequest
        var status: ReviewStatus
        /// Words the reason must hold.
        var reason: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "clear success with matching files and commits",
            request: request(
                ContractProof(text: "Wrote the three paragraphs of the intro and cited the sources", checked: [1, 2]),
                evidence: evidence(files: [introChanged], commits: [citeCommit], mentions: [introFound])),
            status: .approved, reason: ["every criterion", "intro.md", "Cite the sources"]),
        Case(
            name: "vague text",
            request: request(
                ContractProof(text: "did some stuff"),
                evidence: evidence(mentions: [introNotFound])),
            status: .needsMore, reason: ["too vague", "intro.md has three paragraphs"]),
        Case(
            name: "evidence that contradicts a criterion",
            request: request(
                ContractProof(text: "wrote the three paragraphs of the intro, cited the sources", checked: [1, 2]),
                evidence: evidence(commits: [citeCommit], mentions: [introFound])),
            status: .rejected, reason: ["contradicts", "intro.md did not change"]),
        Case(
            name: "empty proof",
            request: request(
                ContractProof(text: "   "), evidence: evidence(files: [introChanged], mentions: [introFound])),
            status: .needsMore, reason: ["empty"]),
        Case(
            name: "only a link",
            request: request(
                ContractProof(links: ["https://docs.example.com/intro"]),
                checks: [ProofCheck(item: "https://docs.example.com/intro", finding: .link)],
                evidence: evidence(mentions: [introNotFound])),
            status: .needsMore, reason: ["cannot check", "https://docs.example.com/intro", "does not open links"]),
        Case(
            name: "a watch path that does not exist",
            request: request(
                ContractProof(text: "wrote three paragraphs in intro.md, all sources cited", checked: [1, 2]),
                evidence: evidence(
                    mentions: [introNotFound], watch: [.init(path: "/nope", kind: .missing, files: 0, truncated: false)]
                ), watch: ["/nope"]),
            status: .needsMore, reason: ["your word alone", "/nope does not exist"]),
        Case(
            name: "a criterion met by a file outside the watch list",
            request: request(
                ContractProof(
                    text: "three paragraphs, sources cited", files: ["/elsewhere/intro.md"], checked: [1, 2]),
                checks: [ProofCheck(item: "/elsewhere/intro.md", finding: .outsideWatch)],
                evidence: evidence(commits: [citeCommit], mentions: [introNotFound])),
            status: .needsMore, reason: ["/elsewhere/intro.md", "outside the watch list"]),
    ]

    @Test(arguments: cases)
    func decidesTheTableOfCases(_ c: Case) {
        let decision = LocalReviewer().review(c.request)
        #expect(decision.status == c.status, "\(decision)")
        for word in c.reason { #expect(decision.reason.contains(word), "\(word) not in: \(decision.reason)") }
        #expect(decision.validationProblem() == nil, "\(decision)")
        if decision.status != .approved {
            #expect(decision.question?.isEmpty == false, "one follow-up question")
            #expect(!decision.missing.isEmpty)
        }
        // Deterministic: the same request, the same decision.
        #expect(LocalReviewer().review(c.request) == decision)
    }

    /// Said plainly what cannot be checked: a link, a file outside the watch list, a watched path that is missing,
    /// and what changes mean.
    @Test func theRequestSaysWhatCannotBeChecked() {
        let checks = [
            ProofCheck(item: "https://x.example", finding: .link),
            ProofCheck(item: "/elsewhere/a.md", finding: .outsideWatch),
        ]
        let e = Self.evidence(watch: [.init(path: "/nope", kind: .missing, files: 0, truncated: false)])
        let notes = ReviewRequest.cannotCheck(checks: checks, evidence: e, watch: ["/nope"])
        #expect(notes.contains { $0.contains("https://x.example") && $0.contains("does not open links") })
        #expect(notes.contains { $0.contains("/elsewhere/a.md") && $0.contains("did not read it") })
        #expect(notes.contains { $0.contains("/nope does not exist") })
        #expect(notes.last?.contains("does not judge their content") == true)
        #expect(
            ReviewRequest.cannotCheck(checks: [], evidence: nil, watch: []).first?.contains("no path was watched")
                == true)
    }

    /// Some criteria backed by checked changes, the rest by the user's word: approved, less sure.
    @Test func partlyCheckedIsApprovedWithLessConfidence() {
        let r = Self.request(
            ContractProof(text: "intro done", checked: [1, 2]),
            evidence: Self.evidence(files: [Self.introChanged], mentions: [Self.introFound]))
        let d = LocalReviewer().review(r)
        #expect(d.status == .approved && d.confidence < 0.9 && d.reason.contains("by your word"), "\(d)")
    }

    /// Changes that cannot be tied to any criterion are not enough.
    @Test func unrelatedChangesNeedMore() {
        let other = FileChange(path: Self.repo + "/todo.txt", change: .modified, linesBefore: 1, linesAfter: 2)
        let r = Self.request(
            ContractProof(text: "all done", checked: [1, 2]),
            evidence: Self.evidence(files: [other], mentions: [Self.introNotFound]))
        let d = LocalReviewer().review(r)
        #expect(d.status == .needsMore && d.reason.contains("none it could tie"), "\(d)")
    }

    @Test func aDeletedFileContradicts() {
        let gone = FileChange(path: Self.repo + "/intro.md", change: .deleted, linesBefore: 4)
        let r = Self.request(
            ContractProof(text: "done", checked: [1]),
            evidence: Self.evidence(files: [gone], mentions: [Self.introNotFound]),
            criteria: ["intro.md has three paragraphs"])
        #expect(LocalReviewer().review(r).status == .rejected)
    }
}

@Suite struct ContractModelTests {
    @Test func reviewWordsStemAndFindFileNames() {
        #expect(ReviewWords.stems("Sources cited") == ReviewWords.stems("cite the source"))
        #expect(ReviewWords.stems("did some work").isEmpty)
        #expect(ReviewWords.fileNames("intro.md has three paragraphs.") == ["intro.md"])
        #expect(ReviewWords.fileNames("see src/main.swift, e.g. https://a.example/x.html") == ["src/main.swift"])
        #expect(ReviewWords.fileNames("version 1.2 and e.g. and i.e. and .hidden") == [])
        #expect(ReviewWords.fileNames("a.md and x.cc") == ["a.md", "x.cc"])
        #expect(
            ReviewWords.path("/r/docs/intro.md", is: "intro.md") && !ReviewWords.path("/r/preintro.md", is: "intro.md"))
    }

    @Test func textCountMatchesWc() {
        #expect(TextCount.count(Array("".utf8))! == (0, 0))
        #expect(TextCount.count(Array("one two\nthree".utf8))! == (2, 3))
        #expect(TextCount.count(Array("a\n\n  b  \n".utf8))! == (3, 2))
        #expect(TextCount.count([0x61, 0x00, 0x62]) == nil)
    }

    @Test func changesBetweenTwoLooks() {
        func file(_ p: String, _ size: Int64, _ t: Int64, _ lines: Int64?) -> WatchedFile {
            WatchedFile(path: p, size: size, modified: t, lines: lines, words: lines.map { $0 * 3 })
        }
        let before = [
            WatchSnapshot(
                path: "/r", kind: .directory,
                files: [file("/r/a", 10, 1, 2), file("/r/b", 5, 1, 1), file("/r/c", 5, 1, 1)])
        ]
        let after = [
            WatchSnapshot(
                path: "/r", kind: .directory,
                files: [file("/r/a", 30, 2, 6), file("/r/c", 5, 1, 1), file("/r/d", 9, 3, nil)])
        ]
        let changes = ContractEvidence.changes(before: before, after: after)
        #expect(changes.map(\.path) == ["/r/a", "/r/b", "/r/d"])
        #expect(changes[0].change == .modified && changes[0].lineDelta == 4 && changes[0].wordDelta == 12)
        #expect(changes[1].change == .deleted && changes[1].lineDelta == -1)
        #expect(
            changes[2].change == .added && changes[2].lineDelta == nil && changes[2].summary.contains("not counted"))
    }

    @Test func strictLooseningIsOneWay() {
        let old = LedgerConfig()
        func set(_ key: String, _ value: String) -> LedgerConfig {
            var c = old
            try! c.set(key, to: value)
            return c
        }
        #expect(StrictRules.loosens("earn.ratio", from: old, to: set("earn.ratio", "1")))
        #expect(!StrictRules.loosens("earn.ratio", from: old, to: set("earn.ratio", "4")))
        #expect(StrictRules.loosens("earn.daily-cap", from: old, to: set("earn.daily-cap", "4h")))
        #expect(!StrictRules.loosens("earn.daily-cap", from: old, to: set("earn.daily-cap", "1h")))
        #expect(StrictRules.loosens("emergency.weekly", from: old, to: set("emergency.weekly", "1h")))
        #expect(StrictRules.loosens("review.command", from: old, to: set("review.command", "approve-all")))
        #expect(StrictRules.loosens("strict.emergency-wait", from: old, to: set("strict.emergency-wait", "0s")))
        #expect(!StrictRules.loosens("review.timeout", from: old, to: set("review.timeout", "5s")))
        let refusal = StrictRules.Refusal(
            contractID: "0123456789", goal: "essay", until: Timestamp(epochSeconds: 1_743_300_000, offsetSeconds: 0),
            what: .addTime)
        #expect(
            refusal.kind == .refused && refusal.message.contains("01234567") && refusal.message.contains("after 02:00"))
    }

    @Test func decisionsAreValidatedAsAnExternalAnswerMustBe() {
        #expect(ReviewDecision(status: .approved, confidence: 0.5, reason: "ok").validationProblem() == nil)
        #expect(ReviewDecision(status: .approved, confidence: 1.5, reason: "ok").validationProblem() != nil)
        #expect(ReviewDecision(status: .approved, confidence: .nan, reason: "ok").validationProblem() != nil)
        #expect(ReviewDecision(status: .approved, confidence: 0.5, reason: " ").validationProblem() != nil)
        #expect(ReviewDecision(status: .needsMore, confidence: 0.5, reason: "x").validationProblem() != nil)
        #expect(
            ReviewDecision(status: .needsMore, confidence: 0.5, reason: "x", question: "which?").validationProblem()
                == nil)
    }

    @Test func aContractGrantIsKeyedByTheContractAndCapped() throws {
        var config = LedgerConfig()
        config.dailyCapSeconds = 600
        let now = Timestamp(epochSeconds: 1_743_300_000, offsetSeconds: 0)
        var snapshot = LedgerSnapshot()
        snapshot.earnedToday = 300
        let request = LedgerRequest.grantContract(contractID: "c1", activeSeconds: 3000, ratioMilli: 2000)
        #expect(request.key == "contract:c1")
        let d = try LedgerRules.decide(request, snapshot: snapshot, config: config, now: now, newID: "e1", device: "d")
        #expect(d.entry.contractID == "c1" && d.entry.roundID == nil)
        #expect(d.entry.requested == 1500 && d.entry.amount == 300 && d.entry.cut == 1200)
        #expect(d.entry.validationProblem() == nil)
        var both = d.entry
        both.roundID = "r1"
        #expect(both.validationProblem() != nil, "a grant pays a round or a contract, not both")
    }
}
