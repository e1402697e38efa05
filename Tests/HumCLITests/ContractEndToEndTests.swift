import Foundation
import HumControl
import HumCore
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Focus contracts through the built binary, in scratch git repositories: a contract proved, reviewed and paid once;
/// one rejected, resubmitted and overridden, with the override in the history, the export and a restored copy;
/// strict mode's refusals; an external reviewer's consent, malformed and late answers.
@Suite(.serialized) struct ContractEndToEndTests {
    /// `git` with a fixed identity, in `directory`.
    @discardableResult
    func git(_ arguments: [String], in directory: String) throws -> Int32 {
        let pid = try spawnBinary(
            ["-C", directory] + arguments,
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": directory, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
            ], stdout: "/dev/null", stderr: "/dev/null", program: "/usr/bin/git")
        return waitFor(pid)
    }

    /// A scratch repository with one commit made before any contract.
    func repository(_ box: Sandbox, files: [String: String]) throws -> String {
        let repo = box.root + "/repo"
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: true)
        #expect(try git(["init", "-q"], in: repo) == 0)
        for (name, text) in files { try text.write(toFile: repo + "/" + name, atomically: true, encoding: .utf8) }
        #expect(try git(["add", "."], in: repo) == 0)
        #expect(try git(["commit", "-qm", "Start"], in: repo) == 0)
        return repo
    }

    /// `hum ARGS` started in `directory` (its working directory matters: the default watch is its git repository).
    func startHum(
        _ box: Sandbox, _ arguments: [String], in directory: String, environment: [String: String]? = nil
    ) throws -> Child {
        let id = UUID().uuidString
        let child = Child(stdoutPath: box.path("\(id).out"), stderrPath: box.path("\(id).err"))
        let quoted = ([humBinary] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        child.pid = try spawnBinary(
            ["-c", "cd '\(directory)' && exec \(quoted.joined(separator: " "))"],
            environment: environment ?? box.environment,
            stdout: child.stdoutPath, stderr: child.stderrPath, program: "/bin/sh")
        return child
    }

    func contracts(_ box: Sandbox) -> [[String: Any]] {
        (json(box.run("contract", "list", "--json").out) as? [[String: Any]]) ?? []
    }

    /// Waits until the contract is written and running (its first look at the watched paths is taken). Up to 30 s:
    /// beside the ledger's many-process tests, each syncing to disk, the new hum's first writes were seen to take
    /// over 10 s on this 2-core machine (its terms were printed, the contract not yet there).
    func waitUntilRunning(_ box: Sandbox, timeout: Double = 30) -> String? {
        var last = box.run("contract", "list", "--json")
        let running = waitFor(within: timeout) { () -> String? in
            last = box.run("contract", "list", "--json")
            let list = (json(last.out) as? [[String: Any]]) ?? []
            guard let c = list.last, c["status"] as? String == "running" else { return nil }
            return c["id"] as? String
        }
        if let running { return running }
        Issue.record("no contract running after \(timeout) s; 'hum contract list' said: \(last)")
        return nil
    }

    func bank(_ box: Sandbox) -> Int? {
        (json(box.run("bank", "--json").out) as? [String: Any])?["balance_seconds"] as? Int
    }

    @Test func aContractIsProvedReviewedAndPaidOnce() throws {
        let box = Sandbox()
        let repo = try repository(box, files: ["intro.md": "An intro.\n"])
        #expect(box.run("config", "set", "earn.ratio", "0.1").code == 0)  // 3 s of focus earn 30 s
        let hum = try startHum(
            box,
            [
                "focus", "--no-sound", "--focus", "3s", "--rounds", "1", "--goal", "Draft the intro", "--done-when",
                "intro.md has three paragraphs", "--done-when", "sources cited", "--first-step",
                "outline the three points",
            ], in: repo)
        let id = try #require(waitUntilRunning(box), "the contract is written before the first round ends")
        try "An intro.\n\nA second paragraph.\n\nA third, with its sources [1].\n".write(
            toFile: repo + "/intro.md", atomically: true, encoding: .utf8)
        #expect(try git(["commit", "-qam", "Cite the sources in the intro"], in: repo) == 0)
        #expect(hum.wait() == 0, "\(hum.stderr)")
        // The terms were shown before anything began; the end says what comes next.
        #expect(hum.stderr.contains("1 focus round of 3s can earn up to 30s at ratio 0.1"), "\(hum.stderr)")
        #expect(hum.stderr.contains("changes and commits under \(repo)"), "\(hum.stderr)")
        #expect(
            hum.stderr.contains("is in proof review: 1 file changed (intro.md: modified, +4 lines"), "\(hum.stderr)")
        #expect(hum.stdout.split(separator: "\n").count == 2, "stdout keeps one line per phase change")

        let contract = try #require(contracts(box).first)
        #expect(contract["status"] as? String == "completed")
        let evidence = try #require(contract["evidence"] as? [String: Any])
        let commits = try #require(evidence["commits"] as? [[String: Any]])
        #expect(commits.map { $0["subject"] as? String } == ["Cite the sources in the intro"], "not the commit before")
        #expect((evidence["files"] as? [[String: Any]])?.first?["path"] as? String == repo + "/intro.md")
        #expect(bank(box) == 0, "nothing is paid before the review")

        let draft = box.run(
            "proof", String(id.prefix(8)), "--text", "Wrote three paragraphs and cited the sources", "--check", "1",
            "--check", "2")
        #expect(draft.code == 0 && draft.out.contains("[x] 1. intro.md has three paragraphs"), "\(draft.out)")
        let submitted = box.run("proof", String(id.prefix(8)), "--submit")
        #expect(submitted.code == 0, "\(submitted.err)")
        #expect(submitted.out.hasPrefix("review 1 of 2: approved"), "\(submitted.out)")
        #expect(submitted.out.contains("earned 30s"), "\(submitted.out)")
        #expect(bank(box) == 30)
        let again = box.run("proof", id, "--submit")
        #expect(again.code == 3 && again.err.contains("nothing left to review"), "\(again.err)")
        #expect(bank(box) == 30, "paid once")

        let ledger = try #require(json(box.run("ledger", "--json").out) as? [[String: Any]])
        let grants = ledger.filter { $0["kind"] as? String == "grant" }
        #expect(grants.count == 1 && grants[0]["key"] as? String == "contract:\(id)")
        #expect(grants[0]["contract_id"] as? String == id && grants[0]["amount_seconds"] as? Int == 30)
        #expect(box.run("ledger", "check").code == 0)
        let history = try #require(json(box.run("history", "--json").out) as? [String: Any])
        let session = try #require((history["sessions"] as? [[String: Any]])?.first)
        #expect(session["contract_id"] as? String == id && session["earned_seconds"] as? Int == 0)
        let recorded = try #require((history["contracts"] as? [[String: Any]])?.first)
        #expect(recorded["status"] as? String == "approved" && recorded["reward_seconds"] as? Int == 30)
    }

    @Test func aRejectedContractIsResubmittedOverriddenAndKeptInTheHistoryAndTheExport() throws {
        let box = Sandbox()
        let repo = try repository(box, files: ["notes.txt": "notes\n"])
        #expect(box.run("config", "set", "earn.ratio", "0.1").code == 0)
        let hum = try startHum(
            box,
            [
                "focus", "--no-sound", "--focus", "3s", "--rounds", "1", "--goal", "Results", "--done-when",
                "results.md has the table",
            ], in: repo)
        let id = try #require(waitUntilRunning(box))
        try "notes\nmore notes\n".write(toFile: repo + "/notes.txt", atomically: true, encoding: .utf8)
        #expect(hum.wait() == 0, "\(hum.stderr)")

        let vague = box.run("proof", id, "--text", "worked on it", "--submit")
        #expect(vague.code == 0 && vague.out.hasPrefix("review 1 of 2: needs_more"), "\(vague.out)")
        #expect(vague.out.contains("question: "), "\(vague.out)")
        #expect(vague.out.contains("one resubmission is left"), "\(vague.out)")
        let early = box.run("contract", "override", id, "--reason", "too early")
        #expect(early.code == 3 && early.err.contains("an override comes after the resubmission"), "\(early.err)")

        let second = box.run("proof", id, "--text", "the table is in my paper notebook", "--check", "1", "--submit")
        #expect(second.code == 0 && second.out.hasPrefix("review 2 of 2: needs_more"), "\(second.out)")
        #expect(second.out.contains("hum contract override"), "\(second.out)")
        #expect(contracts(box).first?["status"] as? String == "rejected")
        #expect(bank(box) == 0)

        let override = box.run("contract", "override", String(id.prefix(8)), "--reason", "the table is on paper")
        #expect(override.code == 0 && override.out.contains("earned 30s"), "\(override.out) \(override.err)")
        #expect(box.run("contract", "override", id, "--reason", "twice").code == 3)
        #expect(bank(box) == 30)
        #expect(box.run("ledger", "check").code == 0)

        // The override in the history, as JSON and as text.
        let history = try #require(json(box.run("history", "--json").out) as? [String: Any])
        let entry = try #require((history["contracts"] as? [[String: Any]])?.first)
        #expect(entry["status"] as? String == "overridden")
        #expect((entry["override"] as? [String: Any])?["reason"] as? String == "the table is on paper")
        #expect(
            (entry["reviews"] as? [[String: Any]])?.compactMap {
                ($0["decision"] as? [String: Any])?["status"] as? String
            } == ["needs_more", "needs_more"])
        #expect(box.run("history").out.contains("override: the table is on paper"))
        #expect(box.run("ledger").out.contains("contract \(id.prefix(8)), overridden: the"))
        let grant = (json(box.run("ledger", "--json").out) as? [[String: Any]])?.first {
            $0["kind"] as? String == "grant"
        }
        #expect(grant?["label"] as? String == "overridden: the table is on paper")

        // The export carries it (schema 2 and later), and a fresh database restored from it has it, checked.
        let file = box.root + "/backup.json"
        #expect(box.run("export", "-o", file).code == 0)
        let document = try #require(
            json(String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)) as? [String: Any])
        #expect(document["schema"] as? String == "hum.export/3")
        let exported = try #require((document["contracts"] as? [[String: Any]])?.first)
        #expect((exported["override"] as? [String: Any])?["reason"] as? String == "the table is on paper")
        #expect((exported["evidence"] as? [String: Any])?["files"] != nil)
        try expectMatchesSchema(exported, definition: "contract")
        let lines = box.run("export", "--format", "jsonl").out.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("{\"type\":\"contract\"") && $0.contains("the table is on paper") })

        let restored = Sandbox()
        let imported = restored.run("ledger", "import", file)
        #expect(
            imported.code == 0 && imported.out.contains("1 contract (0 already here)"),
            "\(imported.out) \(imported.err)")
        #expect(restored.run("ledger", "check").code == 0)
        let shown = try #require(json(restored.run("contract", "show", id, "--json").out) as? [String: Any])
        #expect(shown["status"] as? String == "overridden" && shown["reward_seconds"] as? Int == 30)
        #expect(bank(restored) == 30)
        #expect(restored.run("ledger", "import", file).out.contains("0 contracts (1 already here)"))
    }

    /// Checks an object against a definition of docs/export.schema.json: required keys, no unknown keys, enums.
    func expectMatchesSchema(_ object: [String: Any], definition: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let schema = try #require(
            json(
                String(
                    decoding: try Data(contentsOf: root.appendingPathComponent("docs/export.schema.json")),
                    as: UTF8.self)) as? [String: Any])
        let defs = try #require(schema["$defs"] as? [String: Any])
        let def = try #require(defs[definition] as? [String: Any])
        let properties = try #require(def["properties"] as? [String: Any])
        for key in def["required"] as? [String] ?? [] { #expect(object[key] != nil, "\(definition) lacks \(key)") }
        for (key, value) in object {
            let property = try #require(properties[key] as? [String: Any], "\(definition) has unknown key \(key)")
            if let allowed = property["enum"] as? [String] { #expect(allowed.contains(value as? String ?? "")) }
            if let ref = property["$ref"] as? String, let nested = value as? [String: Any] {
                try expectMatchesSchema(nested, definition: String(ref.split(separator: "/").last ?? ""))
            }
        }
    }

    @Test func aStrictContractRefusesLooseningWhileItRunsAndAllowsItAfter() throws {
        let box = Sandbox()
        #expect(box.run("config", "set", "strict.emergency-wait", "1s").code == 0)
        let hum = try startHum(
            box,
            [
                "focus", "--no-sound", "--focus", "6s", "--rounds", "1", "--goal", "Essay", "--done-when",
                "essay.md is drafted", "--strict",
            ], in: box.root)
        _ = try #require(waitUntilRunning(box))
        let ratio = try runBinary(["config", "set", "earn.ratio", "1"], environment: box.environment)
        #expect(ratio.code == 3, "\(ratio.err)")
        #expect(ratio.err.hasPrefix("hum: a strict contract is running") && ratio.err.contains("opens again after"))
        #expect(ratio.err.split(separator: "\n").count == 1)
        let adjust = try runBinary(["ledger", "adjust", "+1h", "--reason", "more"], environment: box.environment)
        #expect(adjust.code == 3 && adjust.err.contains("adding time by hand is refused"), "\(adjust.err)")
        let second = try runBinary(
            ["focus", "--no-sound", "--goal", "other", "--done-when", "x"], environment: box.environment)
        #expect(second.code == 3 && second.err.contains("a second contract cannot replace it"), "\(second.err)")
        // Tightening stays open, and so does the emergency reserve: after the wait, off a terminal, noted.
        #expect(try runBinary(["config", "set", "earn.ratio", "4"], environment: box.environment).code == 0)
        let started = Date()
        let emergency = try runBinary(["emergency", "1m", "--reason", "a call"], environment: box.environment)
        #expect(emergency.code == 0 && Date().timeIntervalSince(started) >= 1, "\(emergency.err)")
        #expect(emergency.err.contains("not on a terminal"), "\(emergency.err)")
        let events = (contracts(box).first?["events"] as? [[String: Any]]) ?? []
        #expect(events.first?["kind"] as? String == "emergency")
        #expect((events.first?["detail"] as? String)?.contains("off a terminal") == true)

        #expect(hum.wait() == 0)
        #expect(try runBinary(["config", "set", "earn.ratio", "1"], environment: box.environment).code == 0)
        #expect(try runBinary(["ledger", "adjust", "+1h", "--reason", "more"], environment: box.environment).code == 0)
        #expect(box.run("ledger", "check").code == 0)
    }

    /// A contract's options without --done-when, or without a goal, are usage errors before anything starts.
    @Test func contractOptionsNeedACriterionAndAGoal() {
        let box = Sandbox()
        let strict = box.run("focus", "--no-sound", "--strict")
        #expect(strict.code == 2 && strict.err.contains("--strict belongs to a contract"), "\(strict.err)")
        let goal = box.run("focus", "--no-sound", "--done-when", "x")
        #expect(goal.code == 2 && goal.err.contains("needs its goal"), "\(goal.err)")
        #expect(box.run("proof", "nope").code == 2)
        #expect(box.run("contract", "show", "nope").code == 2)
    }

    @Test func anExternalReviewerIsAskedOnlyWithConsentAndItsBadAnswersUseNoAttempt() throws {
        let box = Sandbox()
        let mode = box.path("mode")
        let received = box.path("received.json")
        let reviewer = box.path("reviewer.sh")
        try """
        #!/bin/sh
        cat > '\(received)'
        case "$(cat '\(mode)')" in
          bad) echo "looks fine to me" ;;
          late) echo $$ > '\(box.path("late.pid"))'; sleep 30 ;;
          fail) exit 7 ;;
          *) echo '{"status":"approved","confidence":0.7,"reason":"the reviewer read it","missing":[],"question":null}' ;;
        esac
        """.write(toFile: reviewer, atomically: true, encoding: .utf8)
        chmod(reviewer, 0o755)
        let hum = try startHum(
            box, ["focus", "--no-sound", "--focus", "1s", "--rounds", "1", "--goal", "g", "--done-when", "done"],
            in: box.root)
        #expect(hum.wait() == 0, "\(hum.stderr)")
        let id = try #require(contracts(box).first?["id"] as? String)
        #expect(box.run("config", "set", "review.command", reviewer).code == 0)
        #expect(box.run("config", "set", "review.timeout", "2s").code == 0)
        #expect(box.run("proof", id, "--text", "done it", "--check", "1").code == 0)
        func attempts() -> Int? { contracts(box).first?["attempts"] as? Int }

        // No consent yet, off a terminal: what would be sent is shown, nothing is sent.
        let asked = try runBinary(["proof", id, "--submit"], environment: box.environment)
        #expect(asked.code == 1 && asked.err.contains("\"schema\" : \"hum.review-request/1\""), "\(asked.err)")
        #expect(asked.err.contains("--consent"))
        #expect(!FileManager.default.fileExists(atPath: received) && attempts() == 0)

        for (word, message) in [
            ("bad", "answered something hum cannot use"), ("fail", "failed (exit 7)"),
            ("late", "did not answer within 2s"),
        ] {
            try word.write(toFile: mode, atomically: true, encoding: .utf8)
            let r = try runBinary(["proof", id, "--submit", "--consent"], environment: box.environment)
            #expect(
                r.code == 1 && r.err.contains(message) && r.err.contains("no attempt was used"), "\(word): \(r.err)")
            #expect(attempts() == 0, "\(word)")
        }
        // The late reviewer was stopped with its process group.
        let late =
            Int32(
                (try? String(contentsOfFile: box.path("late.pid"), encoding: .utf8))?.trimmingCharacters(
                    in: .whitespacesAndNewlines) ?? "") ?? 0
        #expect(late > 0 && kill(late, 0) != 0, "the late reviewer's shell is gone")

        try "good".write(toFile: mode, atomically: true, encoding: .utf8)
        // Consent was given, for this command line.
        let good = try runBinary(["proof", id, "--submit"], environment: box.environment)
        #expect(
            good.code == 0 && good.out.hasPrefix("review 1 of 2: approved (confidence 0.7, command: "), "\(good.out)")
        let sent = try #require(json(try String(contentsOfFile: received, encoding: .utf8)) as? [String: Any])
        #expect((sent["contract"] as? [String: Any])?["goal"] as? String == "g")
        #expect((sent["proof"] as? [String: Any])?["text"] as? String == "done it")
        #expect(sent["cannot_check"] is [String])
        #expect(box.run("ledger", "check").code == 0)
    }

    /// A reviewer that prints its verdict and exits, leaving a process in the background that holds its stdout: the
    /// verdict counts when the reviewer exits (not when its stdout closes, which would be a timeout), and what it
    /// left is stopped with its process group.
    @Test func aReviewersVerdictCountsAtItsExitAndWhatItLeftBehindIsStopped() throws {
        let box = Sandbox()
        let pidFile = box.path("background.pid")
        let reviewer = box.path("reviewer.sh")
        try """
        #!/bin/sh
        cat > /dev/null
        sleep 100 &
        echo $! > '\(pidFile)'
        echo '{"status":"approved","confidence":0.7,"reason":"read it","missing":[],"question":null}'
        """.write(toFile: reviewer, atomically: true, encoding: .utf8)
        chmod(reviewer, 0o755)
        let hum = try startHum(
            box, ["focus", "--no-sound", "--focus", "1s", "--rounds", "1", "--goal", "g", "--done-when", "done"],
            in: box.root)
        #expect(hum.wait() == 0, "\(hum.stderr)")
        let id = try #require(contracts(box).first?["id"] as? String)
        #expect(box.run("config", "set", "review.command", reviewer).code == 0)
        #expect(box.run("config", "set", "review.timeout", "30s").code == 0)
        #expect(box.run("proof", id, "--text", "done it", "--check", "1").code == 0)
        let started = Date()
        let r = try runBinary(["proof", id, "--submit", "--consent"], environment: box.environment)
        #expect(r.code == 0 && r.out.hasPrefix("review 1 of 2: approved"), "\(r.out) \(r.err)")
        #expect(Date().timeIntervalSince(started) < 15, "counted at the reviewer's exit, not at the timeout")
        let pid = try #require(
            Int32(
                (try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(
                    in: .whitespacesAndNewlines) ?? ""))
        #expect(processIsGone(pid), "the reviewer's background process was stopped")
    }

    /// On a terminal, hum asks for the proof when the rounds end, and submits it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux"))
    func onATerminalTheProofIsAskedThereAndThen() throws {
        let box = Sandbox()
        let notes = box.path("notes.md")
        try "notes\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let tmux = try TerminalEndToEndTests.Tmux(
            command:
                "sh -c 'cd \(box.root)/work && exec \(humBinary) focus --no-sound --focus 3s --rounds 1 --goal Notes "
                + "--done-when \"notes.md updated\" --watch notes.md'; echo exit=$?",
            environment: box.environment)
        #expect(waitUntilRunning(box) != nil)
        try "notes\nmore notes, and more\n".write(toFile: notes, atomically: true, encoding: .utf8)
        var screen = try tmux.waitUntil(shows: "What did you do?")
        #expect(screen.contains("hum found: 1 file changed (notes.md: modified, +1 line, +4 words)"), "\(screen)")
        try tmux.keys("updated the notes", "Enter")
        screen = try tmux.waitUntil(shows: "done? [y/N]")
        try tmux.keys("y", "Enter")
        screen = try tmux.waitUntil(shows: "A file or a link")
        try tmux.keys("Enter")
        screen = try tmux.waitUntil(shows: "Submit it")
        try tmux.keys("Enter")
        screen = try tmux.waitUntil(shows: "exit=")
        #expect(screen.contains("review 1 of 2: approved"), "\(screen)")
        #expect(screen.contains("exit=0"), "\(screen)")
        #expect(contracts(box).first?["status"] as? String == "approved")
    }

    /// While a strict contract runs, an emergency draw on a terminal waits, then asks: "no" draws nothing, "yes" draws.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "needs tmux"))
    func onATerminalAnEmergencyDuringAStrictContractWaitsAndAsks() throws {
        let box = Sandbox()
        #expect(box.run("config", "set", "strict.emergency-wait", "1s").code == 0)
        let hum = try startHum(
            box,
            ["focus", "--no-sound", "--focus", "20s", "--rounds", "1", "--goal", "g", "--done-when", "x", "--strict"],
            in: box.root)
        defer {
            hum.signal(SIGTERM)
            hum.wait()
        }
        _ = try #require(waitUntilRunning(box))
        for answer in ["no", "yes"] {
            let tmux = try TerminalEndToEndTests.Tmux(
                command: "\(humBinary) emergency 2m --reason 'a call'; echo exit=$?", environment: box.environment)
            var screen = try tmux.waitUntil(shows: "Type yes:")
            #expect(screen.contains("hum waits 1s, then asks you to confirm"), "\(screen)")
            try tmux.keys(answer, "Enter")
            screen = try tmux.waitUntil(shows: "exit=")
            if answer == "no" {
                #expect(screen.contains("nothing was drawn") && screen.contains("exit=1"), "\(screen)")
            } else {
                #expect(screen.contains("2m drawn (a call)") && screen.contains("exit=0"), "\(screen)")
            }
        }
        let events = (contracts(box).first?["events"] as? [[String: Any]]) ?? []
        #expect(
            events.count == 1 && (events.first?["detail"] as? String)?.contains("confirmed on the terminal") == true)
        let bank = try #require(json(box.run("bank", "--json").out) as? [String: Any])
        #expect(bank["emergency_left_seconds"] as? Int == 480)
    }

    /// A contract in a repository armed with everything a repository can make git run (see `TrappedRepository`),
    /// with a signed commit made during its rounds: hum's looks at the start and the end, and its reading of the
    /// commits, run none of it; nor the `git` at its top, with the current folder (`.`) first in PATH.
    @Test func aContractInAnArmedRepositoryRunsNothingItConfigures() throws {
        let box = Sandbox()
        let trapped = try TrappedRepository(box)
        var environment = box.environment
        environment["PATH"] = ".:" + (environment["PATH"] ?? "/usr/bin:/bin")
        let hum = try startHum(
            box, ["focus", "--no-sound", "--goal", "g", "--done-when", "f.md done", "--focus", "3s", "--rounds", "1"],
            in: trapped.repo, environment: environment)
        _ = try #require(waitUntilRunning(box))
        try trapped.commitSigned(subject: "Signed change to f.md")
        #expect(hum.wait() == 0, "\(hum.stderr)")
        #expect(hum.stderr.contains("changes and commits under \(trapped.repo)"), "the repository is watched")
        let contract = try #require(contracts(box).first)
        let evidence = try #require(contract["evidence"] as? [String: Any])
        let commits = (evidence["commits"] as? [[String: Any]]) ?? []
        #expect(commits.map { $0["subject"] as? String } == ["Signed change to f.md"], "\(evidence)")
        #expect(trapped.sprung == [], "hum ran what the repository configures")
    }

    /// Mutated exports holding contracts (their evidence, reviews, an override): every import exits 0, 1 or 3 with
    /// one line, an accepted one leaves the check passing, a refused one changes nothing.
    @Test func mutatedExportsWithContractsNeverTrapNorBreakTheCheck() throws {
        let box = Sandbox()
        let repo = try repository(box, files: ["a.md": "a\n"])
        let hum = try startHum(
            box,
            ["focus", "--no-sound", "--focus", "3s", "--rounds", "1", "--goal", "g", "--done-when", "b.md is written"],
            in: repo)
        #expect(try #require(waitUntilRunning(box)).count > 8)
        try "a\nb\n".write(toFile: repo + "/a.md", atomically: true, encoding: .utf8)
        #expect(hum.wait() == 0)
        let id = try #require(contracts(box).first?["id"] as? String)
        _ = box.run("proof", id, "--text", "nothing", "--submit")
        _ = box.run("proof", id, "--text", "nothing at all", "--link", "https://example.com", "--submit")
        #expect(box.run("contract", "override", id, "--reason", "because").code == 0)
        _ = box.run("history", "record", "--active", "25m", "--start", "2025-03-30T09:00:00+02:00")
        #expect(box.run("ledger", "check").code == 0)
        try LedgerFuzzTests().fuzzImport(format: "jsonl", seed: 11, count: 300, source: box)
        try LedgerFuzzTests().fuzzImport(format: "json", seed: 12, count: 200, source: box)
    }

    /// The contract travels with the focus request to a player that already runs, which writes it, watches, and
    /// moves it into review when the rounds end; the mix plays on.
    @Test func aContractOnARunningPlayer() throws {
        let box = Sandbox()
        let repo = try repository(box, files: ["a.md": "a\n"])
        let tone = try box.writeSound("tone.wav", sine(frequency: 220, frames: 48000))
        let player = try box.startHum(["play", "\(tone)=40", "--device", "null"])
        defer {
            player.signal(SIGKILL)
            player.wait()
        }
        let socket = ControlSocketPath(environment: box.audioEnvironment)
        eventually { (try? ControlClient.connect(to: socket)) != nil }
        let focus = try box.hum([
            "focus", "--focus", "3s", "--rounds", "1", "--goal", "grow a", "--done-when", "a.md grows", "--watch", repo,
        ])
        #expect(focus.status == 0, "\(focus.stderr)")
        #expect(focus.stderr.contains("hum: contract "), "the terms are shown by the command that asks")
        _ = try #require(waitUntilRunning(box))
        try "a\nb\n".write(toFile: repo + "/a.md", atomically: true, encoding: .utf8)
        eventually(within: 10) { contracts(box).first?["status"] as? String != "running" }
        let contract = try #require(contracts(box).first)
        #expect(contract["status"] as? String == "completed")
        let files = (contract["evidence"] as? [String: Any])?["files"] as? [[String: Any]]
        #expect(files?.first?["path"] as? String == repo + "/a.md", "\(String(describing: contract["evidence"]))")
        #expect(kill(player.pid, 0) == 0, "the player plays on")
    }

    /// Stopped rounds interrupt their contract (it earns nothing); a killed process does too, at the next command,
    /// which ends strict mode with it.
    @Test func stoppedOrKilledRoundsInterruptTheContractAndEndStrictMode() throws {
        let box = Sandbox()
        let stopped = try startHum(
            box, ["focus", "--no-sound", "--focus", "1m", "--goal", "g", "--done-when", "x", "--strict"], in: box.root)
        _ = try #require(waitUntilRunning(box))
        stopped.signal(SIGTERM)
        #expect(stopped.wait() == 0)
        #expect(
            stopped.stderr.contains("is interrupted: its rounds stopped early, so it earns nothing"),
            "\(stopped.stderr)")
        #expect(contracts(box).last?["status"] as? String == "interrupted")

        let killed = try startHum(
            box, ["focus", "--no-sound", "--focus", "1m", "--goal", "h", "--done-when", "y", "--strict"], in: box.root)
        _ = try #require(waitUntilRunning(box))
        killed.signal(SIGKILL)
        killed.wait()
        let r = try runBinary(["config", "set", "earn.ratio", "1"], environment: box.environment)
        #expect(r.code == 0, "\(r.err)")
        #expect(r.err.contains("(h) is interrupted: its rounds' process died"), "\(r.err)")
        #expect(contracts(box).map { $0["status"] as? String } == ["interrupted", "interrupted"])
        #expect(box.run("ledger", "check").code == 0)
    }
}
