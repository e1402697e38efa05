import Foundation
import Testing

@testable import HumCLI

/// The contract commands around the review, through the built binary and in process: `hum contract abandon` (with
/// and without a reason), the proof draft's options (`--file`, `--link`, `--uncheck`, `--clear`), the plain-text
/// `hum contract list` and `show`, a reviewer that answers "rejected" because the evidence contradicts a criterion,
/// and a proof submitted again unchanged, which is refused without using the resubmission.
@Suite(.serialized) struct ContractCommandTests {
    /// The end-to-end suite's scratch repositories, contracts and bank.
    let e2e = ContractEndToEndTests()

    /// A one-round contract of `focus` in `repo`, with `change` made while it runs; returns its id once it is in
    /// proof review.
    func completedContract(
        _ box: Sandbox, in repo: String, focus: String = "3s", goal: String, doneWhen: [String],
        change: () throws -> Void = {}
    ) throws -> String {
        let hum = try e2e.startHum(
            box,
            ["focus", "--no-sound", "--focus", focus, "--rounds", "1", "--goal", goal]
                + doneWhen.flatMap { ["--done-when", $0] }, in: repo)
        let id = try #require(e2e.waitUntilRunning(box), "\(hum.stderr)")
        try change()
        #expect(hum.wait() == 0, "\(hum.stderr)")
        #expect(e2e.contracts(box).first { $0["id"] as? String == id }?["status"] as? String == "completed")
        return id
    }

    @Test func anAbandonedContractEarnsNothingAndTakesNoProof() throws {
        let box = Sandbox()
        let repo = try e2e.repository(box, files: ["a.md": "a\n"])
        let id = try completedContract(box, in: repo, goal: "Grow a", doneWhen: ["a.md grows"]) {
            try "a\nb\n".write(toFile: repo + "/a.md", atomically: true, encoding: .utf8)
        }
        let short = String(id.prefix(8))
        // A draft that the review would approve: abandoned, it is never reviewed.
        #expect(box.run("proof", short, "--text", "a grew", "--check", "1").code == 0)

        // A reason longer than a contract's texts may be is refused where it enters (the check and an import of the
        // export would refuse it after), and nothing changes.
        let long = box.run("contract", "abandon", short, "--reason", String(repeating: "r", count: 4001))
        #expect(long.code == 2 && long.err == "hum: a reason to abandon is at most 4000 bytes\n", "\(long.err)")
        #expect(e2e.contracts(box).first?["status"] as? String == "completed")

        let abandoned = box.run("contract", "abandon", short, "--reason", "gave up")
        #expect(abandoned.code == 0, "\(abandoned.err)")
        #expect(abandoned.out == "contract \(short) abandoned; it earns nothing\n", "\(abandoned.out)")
        let contract = try #require(e2e.contracts(box).first)
        #expect(contract["status"] as? String == "abandoned")
        #expect(contract["reward_seconds"] == nil || contract["reward_seconds"] is NSNull)
        let events = (contract["events"] as? [[String: Any]]) ?? []
        #expect(events.map { "\($0["kind"] ?? "") \($0["detail"] ?? "")" } == ["abandoned gave up"])
        #expect(e2e.bank(box) == 0)

        let submit = box.run("proof", id, "--submit")
        #expect(submit.code == 3, "\(submit.out) \(submit.err)")
        #expect(submit.err == "hum: contract \(short) is abandoned: there is nothing left to review\n", "\(submit.err)")
        #expect(box.run("proof", id, "--text", "more").code == 3, "its proof can no longer change")
        #expect(box.run("contract", "abandon", id).code == 3, "abandoned already")
        #expect(box.run("contract", "override", id, "--reason", "pay it").code == 3)
        #expect(e2e.bank(box) == 0)
        let ledger = (json(box.run("ledger", "--json").out) as? [[String: Any]]) ?? []
        #expect(!ledger.contains { $0["kind"] as? String == "grant" })
        #expect(box.run("ledger", "check").code == 0)
        // The reason is kept where people read it.
        #expect(box.run("history").out.contains("\n    abandoned: gave up\n"))
        #expect(box.run("contract", "show", id).out.contains(": gave up\n"))
    }

    /// Without --reason there is nothing after the event's name: no dangling colon.
    @Test func aContractAbandonedWithoutAReasonShowsNoEmptyReason() throws {
        let box = Sandbox()
        let id = try completedContract(box, in: box.root, goal: "g", doneWhen: ["x"])
        #expect(box.run("contract", "abandon", id).code == 0)
        let history = box.run("history").out
        #expect(history.contains("\n    abandoned\n"), "\(history)")
        #expect(!history.contains("abandoned:"), "\(history)")
        let show = box.run("contract", "show", id).out
        let line = try #require(show.split(separator: "\n").first { $0.hasPrefix("  abandoned") }, "\(show)")
        #expect(!line.contains(": ") && !line.hasSuffix(":"), "\(line)")
    }

    /// The draft: --text replaces, --file and --link add, --uncheck unticks, --clear starts over; the review names
    /// the link as not checked; `contract list` and `show` read as text.
    @Test func theProofDraftTakesFilesLinksUnchecksAndClearAndTheContractReadsAsText() throws {
        let box = Sandbox()
        let repo = try e2e.repository(box, files: ["notes.md": "notes\n"])
        let notes = repo + "/notes.md"
        let link = "https://example.com/review"
        let id = try completedContract(
            box, in: repo, goal: "Notes", doneWhen: ["notes.md is longer", "sources listed"]
        ) { try "notes\nmore notes, and more\n".write(toFile: notes, atomically: true, encoding: .utf8) }
        let short = String(id.prefix(8))
        func lines(_ out: String) -> [String] { out.split(separator: "\n").map(String.init) }

        var draft = box.run(
            "proof", short, "--text", "first", "--file", notes, "--link", link, "--check", "1", "--check", "2")
        #expect(draft.code == 0, "\(draft.err)")
        var shown = lines(draft.out)
        #expect(shown.first == "contract \(short) (Notes), completed")
        #expect(shown.contains("  [x] 1. notes.md is longer") && shown.contains("  [x] 2. sources listed"))
        #expect(shown.contains("  proof        first"), "\(draft.out)")
        #expect(shown.contains("  file         \(notes)"), "\(draft.out)")
        #expect(shown.contains("  link         \(link)"), "\(draft.out)")
        #expect(shown.contains("  ticked       1, 2"), "\(draft.out)")

        draft = box.run("proof", short, "--uncheck", "1", "--text", "second")
        #expect(draft.code == 0, "\(draft.err)")
        shown = lines(draft.out)
        #expect(shown.contains("  [ ] 1. notes.md is longer") && shown.contains("  [x] 2. sources listed"))
        #expect(shown.contains("  ticked       2"), "\(draft.out)")
        #expect(shown.contains("  proof        second") && !shown.contains("  proof        first"), "\(draft.out)")
        #expect(shown.contains("  file         \(notes)") && shown.contains("  link         \(link)"), "kept")
        // The same file and link again are not added twice.
        draft = box.run("proof", short, "--file", notes, "--link", link)
        #expect(lines(draft.out).filter { $0.hasPrefix("  file ") || $0.hasPrefix("  link ") }.count == 2)

        draft = box.run("proof", short, "--clear")
        #expect(draft.code == 0, "\(draft.err)")
        shown = lines(draft.out)
        #expect(shown.contains("  proof        (empty)"), "\(draft.out)")
        #expect(!shown.contains { $0.hasPrefix("  file ") || $0.hasPrefix("  link ") || $0.hasPrefix("  ticked ") })
        #expect(shown.contains("  [ ] 1. notes.md is longer") && shown.contains("  [ ] 2. sources listed"))
        let json = try #require(json(box.run("proof", short, "--json").out) as? [String: Any])
        let proof = try #require(json["proof"] as? [String: Any])
        #expect((proof["files"] as? [String]) == [] && (proof["links"] as? [String]) == [])
        #expect((proof["checked"] as? [Int]) == [] && proof["text"] as? String == nil)

        let review = box.run(
            "proof", short, "--text", "more notes", "--file", notes, "--link", link, "--check", "1", "--submit")
        #expect(review.code == 0, "\(review.err)")
        #expect(review.out.hasPrefix("review 1 of 2: "), "\(review.out)")
        #expect(
            lines(review.out).contains(
                "  not checked: the link \(link): hum does not open links, so what it shows is not checked"),
            "\(review.out)")
        let status = try #require(e2e.contracts(box).first?["status"] as? String)

        let list = box.run("contract", "list")
        #expect(list.code == 0 && lines(list.out).count == 1, "\(list.out)")
        let row = try #require(lines(list.out).first)
        #expect(row.hasPrefix(short + "  "), "\(row)")
        #expect(row.hasSuffix("  Notes"), "\(row)")
        #expect(row.contains(status == "completed" ? "in review (1 resubmission left)" : status), "\(row)")

        let show = box.run("contract", "show", short)
        #expect(show.code == 0, "\(show.err)")
        shown = lines(show.out)
        #expect(shown.first == "contract \(id): Notes")
        #expect(shown.contains { $0.hasPrefix("  status       \(status)") }, "\(show.out)")
        #expect(shown.contains("  terms        1 round of 3s at ratio 3"), "\(show.out)")
        #expect(shown.contains("  [x] 1. notes.md is longer") && shown.contains("  [ ] 2. sources listed"))
        #expect(shown.contains("  watch        \(repo)"), "\(show.out)")
        #expect(
            shown.contains { $0.hasPrefix("  evidence     1 file changed (notes.md: modified, +1 line") },
            "\(show.out)")
        #expect(shown.contains("  proof        more notes") && shown.contains("  file         \(notes)"))
        #expect(shown.contains("  link         \(link)") && shown.contains("  ticked       1"), "\(show.out)")
        #expect(shown.contains { $0.hasPrefix("  review 1     ") && $0.contains(", local, ") }, "\(show.out)")
    }

    /// The reviewer's own "rejected": a criterion names a file that was there before and did not change. The same
    /// proof again is refused without using the resubmission; a changed one is reviewed, rejected again, and the
    /// override pays.
    @Test func aReviewerRejectsWhatTheEvidenceContradictsAndAnUnchangedProofUsesNoAttempt() throws {
        let box = Sandbox()
        let repo = try e2e.repository(box, files: ["results.md": "results\n", "notes.txt": "notes\n"])
        #expect(box.run("config", "set", "earn.ratio", "0.1").code == 0)
        let id = try completedContract(
            box, in: repo, goal: "Results", doneWhen: ["results.md has the table"]
        ) { try "notes\nmore notes\n".write(toFile: repo + "/notes.txt", atomically: true, encoding: .utf8) }
        let short = String(id.prefix(8))
        func attempts() -> Int? { e2e.contracts(box).first?["attempts"] as? Int }

        let first = box.run("proof", short, "--file", repo + "/results.md", "--check", "1", "--submit")
        #expect(first.code == 0, "\(first.err)")
        #expect(first.out.hasPrefix("review 1 of 2: rejected (confidence "), "\(first.out)")
        #expect(first.out.contains("results.md did not change during the session"), "\(first.out)")
        #expect(first.out.contains("one resubmission is left: change the proof"), "\(first.out)")
        #expect(attempts() == 1)

        // Submitted again as it was: refused before any review, with one line, and the resubmission is kept.
        let same = box.run("proof", short, "--submit")
        #expect(same.code == 3, "\(same.out) \(same.err)")
        #expect(same.out.isEmpty, "\(same.out)")
        #expect(
            same.err.hasPrefix("hum: the proof of contract \(short) is the one review 1 did not approve; change it"),
            "\(same.err)")
        #expect(same.err.hasSuffix("(no attempt was used)\n") && same.err.split(separator: "\n").count == 1)
        // Unticked and ticked again, it is still the same proof.
        #expect(box.run("proof", short, "--uncheck", "1").code == 0)
        #expect(box.run("proof", short, "--check", "1", "--submit").code == 3)
        #expect(attempts() == 1)
        #expect(e2e.contracts(box).first?["status"] as? String == "completed")
        #expect((e2e.contracts(box).first?["reviews"] as? [Any])?.count == 1)

        let second = box.run("proof", short, "--text", "the table is in results.md", "--submit")
        #expect(second.code == 0, "\(second.err)")
        #expect(second.out.hasPrefix("review 2 of 2: rejected"), "\(second.out)")
        #expect(second.out.contains("hum contract override \(short)"), "\(second.out)")
        #expect(e2e.contracts(box).first?["status"] as? String == "rejected")
        #expect(e2e.bank(box) == 0)

        let override = box.run("contract", "override", short, "--reason", "the table is on the wiki")
        #expect(override.code == 0 && override.out.contains("earned 30s"), "\(override.out) \(override.err)")
        #expect(e2e.bank(box) == 30)
        let history = try #require(json(box.run("history", "--json").out) as? [String: Any])
        let entry = try #require((history["contracts"] as? [[String: Any]])?.first)
        #expect(entry["status"] as? String == "overridden")
        #expect(
            (entry["reviews"] as? [[String: Any]])?.compactMap {
                ($0["decision"] as? [String: Any])?["status"] as? String
            } == ["rejected", "rejected"])
        #expect(box.run("ledger", "check").code == 0)
    }

    /// What hum finds of the proof counts too: a file of the proof that did not exist at the first review and
    /// exists now makes the same draft a changed proof, which is reviewed.
    @Test func aProofFileThatAppearsAfterTheReviewMakesTheSameDraftAChangedProof() throws {
        let box = Sandbox()
        let repo = try e2e.repository(box, files: ["notes.txt": "notes\n"])
        let table = repo + "/table.md"
        let id = try completedContract(box, in: repo, goal: "Table", doneWhen: ["table.md has the table"])
        let first = box.run("proof", id, "--file", table, "--check", "1", "--submit")
        #expect(first.err.contains("--file \(table) does not exist; it is kept"), "\(first.err)")
        #expect(first.code == 0 && first.out.hasPrefix("review 1 of 2: "), "\(first.out) \(first.err)")
        #expect(first.out.contains("  not checked: \(table): there is no such file"), "\(first.out)")
        #expect(box.run("proof", id, "--submit").code == 3, "the same draft, the file still missing")
        try "| a | b |\n".write(toFile: table, atomically: true, encoding: .utf8)
        let second = box.run("proof", id, "--submit")
        #expect(second.code == 0 && second.out.hasPrefix("review 2 of 2: "), "\(second.out) \(second.err)")
        #expect(!second.out.contains("there is no such file"), "\(second.out)")
    }
}
