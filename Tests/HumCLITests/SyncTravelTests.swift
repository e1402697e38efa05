import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumCLI

extension SyncMachine {
    /// The recents of `hum mix list --json`, newest first, as `sound=volume` words.
    var recents: [String] {
        let listings = (json(run("mix", "list", "--json").out) as? [[String: Any]]) ?? []
        return listings.filter { $0["kind"] as? String == "recent" }.map { listing in
            let tracks = ((listing["mix"] as? [String: Any])?["tracks"] as? [[String: Any]]) ?? []
            return tracks.map { "\($0["sound"] ?? "")=\($0["volume"] ?? "")" }.joined(separator: " ")
        }
    }
}

/// What travels beyond the ledger, through two hum homes sharing a synced folder: a mix played on one machine is
/// among the recents of the other (the same ten newest on both, each mix once), and a contract reviewed on one
/// machine replaces the one the other holds, paid once.
@Suite struct SyncTravelTests {
    let e2e = ContractEndToEndTests()

    func play(_ m: SyncMachine, _ words: String...) throws {
        let played = try m.sandbox.hum(
            ["play"] + words + ["--for", "1s", "--device", "null"], environment: m.environment)
        #expect(played.status == 0, "\(played.stderr)")
    }

    @Test func aPlayOnOneMachineIsAmongTheRecentsOfTheOther() throws {
        let a = SyncMachine()
        let b = SyncMachine()
        // Played before there was any database: the file's recents move into it, and travel from there.
        try play(a, "wind=30")
        #expect(a.run("sync", "init", a.folder).code == 0)
        #expect(b.run("sync", "init", b.folder).code == 0)
        // The hybrid clock reads the wall clock in whole seconds: two machines' plays in one second are ordered by
        // their device ids (the same order everywhere, but not the order of the test). a's sync init wrote its
        // imported play just now, so b plays in a later second.
        Thread.sleep(forTimeInterval: 1.1)
        try play(b, "rain=40", "brown=25")
        try play(a, "brown=60")
        exchange([a, b])
        #expect(a.recents == ["brown=60", "rain=40 brown=25", "wind=30"], "\(a.recents)")
        #expect(b.recents == a.recents)
        // Played again on b: it moves up on both, once.
        try play(b, "wind=30")
        exchange([a, b])
        #expect(a.recents == ["wind=30", "brown=60", "rain=40 brown=25"], "\(a.recents)")
        #expect(b.recents == a.recents)
        let journal = try String(contentsOfFile: b.journalPath(b.device), encoding: .utf8)
        #expect(journal.components(separatedBy: "\"kind\":\"mix.play\"").count - 1 == 2, "one line a play")
    }

    /// A contract run on a, reviewed and paid on b: a gets the review and the grant, once, and both ledgers pass
    /// their check.
    @Test func aContractReviewedOnOneMachineIsReviewedOnTheOther() throws {
        let a = SyncMachine()
        let b = SyncMachine()
        #expect(a.run("config", "set", "earn.ratio", "0.1").code == 0)  // 3 s of focus earn 30 s
        #expect(a.run("sync", "init", a.folder).code == 0)
        #expect(b.run("sync", "init", b.folder).code == 0)
        let repo = try e2e.repository(a.sandbox, files: ["intro.md": "An intro.\n"])
        let hum = try e2e.startHum(
            a.sandbox,
            [
                "focus", "--no-sound", "--focus", "3s", "--rounds", "1", "--goal", "Draft the intro", "--done-when",
                "intro.md has three paragraphs", "--done-when", "sources cited",
            ], in: repo, environment: a.environment)
        let id = try #require(
            waitFor(within: 30) { () -> String? in
                let list = (json(a.run("contract", "list", "--json").out) as? [[String: Any]]) ?? []
                return list.first { $0["status"] as? String == "running" }?["id"] as? String
            }, "\(hum.stderr)")
        try "An intro.\n\nA second paragraph.\n\nA third, with its sources [1].\n".write(
            toFile: repo + "/intro.md", atomically: true, encoding: .utf8)
        #expect(try e2e.git(["commit", "-qam", "Cite the sources in the intro"], in: repo) == 0)
        #expect(hum.wait() == 0, "\(hum.stderr)")
        exchange([a, b])
        func contract(_ m: SyncMachine) -> [String: Any]? {
            ((json(m.run("contract", "list", "--json").out) as? [[String: Any]]) ?? []).first {
                $0["id"] as? String == id
            }
        }
        #expect(contract(b)?["status"] as? String == "completed")
        let short = String(id.prefix(8))
        #expect(
            b.run("proof", short, "--text", "Three paragraphs, sources cited", "--check", "1", "--check", "2").code == 0
        )
        let submitted = b.run("proof", short, "--submit")
        #expect(submitted.out.hasPrefix("review 1 of 2: approved"), "\(submitted.out)\(submitted.err)")
        exchange([a, b])
        #expect(contract(a)?["status"] as? String == "approved", "\(String(describing: contract(a)))")
        #expect((contract(a)?["reviews"] as? [Any])?.count == 1)
        #expect(contract(a)?["reward_seconds"] as? Int == 30)
        #expect(a.balance == 30 && b.balance == 30)
        // Paid once: not again on a, and journals crossing again change nothing.
        let again = a.run("proof", short, "--submit")
        #expect(again.code == 3 && again.err.contains("nothing left to review"), "\(again.err)")
        exchange([a, b])
        #expect(a.balance == 30 && b.balance == 30)
        #expect(a.entryIDs == b.entryIDs)
        #expect(a.run("ledger", "check").code == 0 && b.run("ledger", "check").code == 0)
    }
}
