import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumCLI

/// What hum gathers itself: git's files (ignored ones left out, unless watched by name), a plain folder's (hidden ones
/// left out), the changes between two looks with their counts, and only the commits made in between.
@Suite struct EvidenceGathererTests {
    func git(_ arguments: [String], in directory: String) throws {
        let pid = try spawnBinary(
            ["-C", directory] + arguments,
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": directory, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
            ], stdout: "/dev/null", stderr: "/dev/null", program: "/usr/bin/git")
        #expect(waitFor(pid) == 0, "git \(arguments)")
    }

    func write(_ text: String, _ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test func aRepositoryAndAFolderAreLookedAtAndCompared() throws {
        let box = Sandbox()
        let repo = box.root + "/repo"
        try write("one two\n", repo + "/a.md")
        try write("*.log\n", repo + "/.gitignore")
        try write("ignored\n", repo + "/debug.log")
        try git(["init", "-q"], in: repo)
        try git(["add", "."], in: repo)
        try git(["commit", "-qm", "Before the session"], in: repo)
        try write("untracked\n", repo + "/notes/b.md")
        var gatherer = EvidenceGatherer(searchPath: "/usr/bin:/bin")
        #expect(gatherer.repository(of: repo + "/notes") == repo)
        let before = gatherer.snapshot([repo, repo + "/debug.log"])
        #expect(before[0].kind == .git && before[0].heads?.count == 1)
        #expect(Set(before[0].files.map(\.path)) == [repo + "/a.md", repo + "/.gitignore", repo + "/notes/b.md"])
        #expect(before[1].files.map(\.path) == [repo + "/debug.log"], "watched by name, even though git ignores it")
        #expect(
            before[0].files.first { $0.path.hasSuffix("a.md") }.map { ($0.lines, $0.words) } ?? (nil, nil) == (1, 2))

        let folder = box.root + "/plain"
        try write("x\n", folder + "/x.txt")
        try write("hidden\n", folder + "/.hidden/y.txt")
        let plain = gatherer.snapshot([folder, box.root + "/nope"])
        #expect(plain[0].kind == .directory && plain[0].files.map(\.path) == [folder + "/x.txt"])
        #expect(plain[1].kind == .missing)

        usleep(1_100_000)  // a new modification time, and a commit time after the first look
        let start = Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970) - 1, offsetSeconds: 0)
        try write("one two\nthree four five\n", repo + "/a.md")
        try write("new\n", repo + "/c.md")
        try git(["add", "c.md", "a.md"], in: repo)
        try git(["commit", "-qm", "Add c and grow a"], in: repo)
        let calendar = LocalCalendar(clock: ManualClock(0), zone: FixedZone(offsetSeconds: 0))
        let end = Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970) + 1, offsetSeconds: 0)
        let evidence = gatherer.evidence(
            baseline: before, watch: [repo, repo + "/debug.log"], criteria: ["a.md grows", "c.md exists"],
            from: start, to: end, calendar: calendar)
        #expect(evidence.files.map(\.path) == [repo + "/a.md", repo + "/c.md"])
        #expect(evidence.files[0].lineDelta == 1 && evidence.files[0].wordDelta == 3)
        #expect(evidence.files[1].change == .added && evidence.files[1].lineDelta == 1)
        #expect(evidence.commits.map(\.subject) == ["Add c and grow a"], "not the commit before the first look")
        #expect(evidence.commits.first?.insertions == 2)
        #expect(evidence.mentions.map(\.name) == ["a.md", "c.md"] && evidence.mentions[1].found == [repo + "/c.md"])
    }

    /// Watching a repository runs nothing it configures: neither the looks at the start and the end, nor the reading
    /// of its commits (a signed one among them), in a repository armed with every trap. The same git commands a
    /// person would type (status, log -p) spring them, so the traps are armed.
    @Test func watchingARepositoryRunsNothingItConfigures() throws {
        let box = Sandbox()
        let trapped = try TrappedRepository(box)
        let repo = trapped.repo
        var gatherer = EvidenceGatherer(searchPath: "/usr/bin:/bin")
        #expect(gatherer.repository(of: repo) == repo)
        let before = gatherer.snapshot([repo, repo + "/f.md"])
        #expect(before[0].kind == .git && before[0].files.count == 4, "\(before[0])")
        let start = Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970) - 1, offsetSeconds: 0)
        try trapped.commitSigned(subject: "Signed change to f.md")
        let calendar = LocalCalendar(clock: ManualClock(0), zone: FixedZone(offsetSeconds: 0))
        let end = Timestamp(epochSeconds: Int64(Date().timeIntervalSince1970) + 1, offsetSeconds: 0)
        let evidence = gatherer.evidence(
            baseline: before, watch: [repo, repo + "/f.md"], criteria: ["f.md done"], from: start, to: end,
            calendar: calendar)
        #expect(evidence.commits.map(\.subject) == ["Signed change to f.md"], "its commits were read")
        #expect(evidence.commits.first?.insertions == 2)
        #expect(Set(evidence.files.map(\.path)) == [repo + "/a.txt", repo + "/f.md"])
        #expect(trapped.sprung == [], "git ran what the repository configures")

        try trapped.git(["status"], check: false)
        try trapped.git(["log", "-p"], stdout: box.root + "/log.txt", check: false)
        let sprung = Set(trapped.sprung)
        #expect(sprung.isSuperset(of: ["fsmonitor", "gpg", "textconv"]), "the traps are armed: \(sprung)")
    }
}

/// A scratch git repository armed with everything a repository can make git run, each writing a marker file named
/// after itself when it runs: an fsmonitor, every hook, a textconv driver and an external diff driver (through
/// .gitattributes), clean, smudge and process filters, `diff.external`, a pager, `log.showSignature` with a fake
/// `gpg.program`, an ssh command, a credential helper, an askpass, and a `git` program at its top. Nothing that only watches it may spring any.
struct TrappedRepository {
    let repo: String
    let markers: String
    let traps: String

    static let hooks = [
        "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit", "prepare-commit-msg",
        "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive", "update",
        "proc-receive", "post-receive", "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
        "post-rewrite", "sendemail-validate", "fsmonitor-watchman", "post-index-change",
    ]

    /// The repository with one commit of f.md, a.txt and .gitattributes, made before it is armed.
    init(_ box: Sandbox) throws {
        repo = box.root + "/trapped"
        markers = box.root + "/markers"
        traps = box.root + "/traps"
        for directory in [repo, markers, traps] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try "f\n".write(toFile: repo + "/f.md", atomically: true, encoding: .utf8)
        try "a\n".write(toFile: repo + "/a.txt", atomically: true, encoding: .utf8)
        try "*.txt diff=tc filter=trap\n*.md diff=tc filter=proc\n".write(
            toFile: repo + "/.gitattributes", atomically: true, encoding: .utf8)
        try git(["init", "-q", "-b", "main"])
        try git(["add", "."])
        try git(["commit", "-qm", "Before the session"])

        let config: [(String, String)] = [
            ("core.fsmonitor", try trap("fsmonitor", "exit 1")),
            ("diff.tc.textconv", try trap("textconv", "cat \"$1\"")),
            ("diff.tc.command", try trap("diff-driver", "exit 0")),
            ("filter.trap.clean", try trap("clean", "cat")), ("filter.trap.smudge", try trap("smudge", "cat")),
            ("filter.proc.process", try trap("process", "exit 1")), ("filter.proc.required", "true"),
            ("diff.external", try trap("external-diff", "exit 0")), ("core.pager", try trap("pager", "cat")),
            ("pager.log", try trap("log-pager", "cat")), ("log.showSignature", "true"),
            ("gpg.program", try trap("gpg", "exit 1")), ("core.sshCommand", try trap("ssh", "exit 1")),
            ("credential.helper", try trap("credential", "exit 1")), ("core.askPass", try trap("askpass", "exit 1")),
        ]
        for (key, value) in config { try git(["config", key, value]) }
        // A `git` of its own, at its top, for a PATH with an empty or relative entry (the folder hum runs in).
        try FileManager.default.copyItem(
            atPath: try trap("planted-git", "exec /usr/bin/git \"$@\""), toPath: repo + "/git")
        for hook in Self.hooks {
            let path = try trap("hook-" + hook, "exit 0")
            try FileManager.default.copyItem(atPath: path, toPath: repo + "/.git/hooks/" + hook)
        }
    }

    /// A script that leaves its marker, then does `then`.
    private func trap(_ name: String, _ then: String) throws -> String {
        let path = traps + "/" + name
        try "#!/bin/sh\n: > '\(markers)/\(name)'\n\(then)\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// The traps that ran.
    var sprung: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: markers)) ?? []).sorted() }

    /// `git ARGS` in the repository, output to `stdout`, expected to succeed when `check`.
    func git(_ arguments: [String], stdout: String = "/dev/null", check: Bool = true) throws {
        let pid = try spawnBinary(
            ["-C", repo] + arguments,
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": repo, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
            ], stdout: stdout, stderr: "/dev/null", program: "/usr/bin/git")
        let code = waitFor(pid)
        if check { #expect(code == 0, "git \(arguments)") }
    }

    /// Changes f.md and a.txt in the work tree, and commits them on main as a commit that carries a gpgsig header,
    /// with plumbing that runs none of the traps (objects hashed without filters, the branch written as a file).
    func commitSigned(subject: String) throws {
        try "f\nmore\n".write(toFile: repo + "/f.md", atomically: true, encoding: .utf8)
        try "a\nb\n".write(toFile: repo + "/a.txt", atomically: true, encoding: .utf8)
        let script = """
            set -e
            cd '\(repo)'
            f=$(git hash-object -w --no-filters f.md)
            a=$(git hash-object -w --no-filters a.txt)
            g=$(git hash-object -w --no-filters .gitattributes)
            tree=$(printf '100644 blob %s\\t.gitattributes\\n100644 blob %s\\ta.txt\\n100644 blob %s\\tf.md\\n' \
                "$g" "$a" "$f" | git mktree)
            parent=$(cat .git/refs/heads/main)
            now=$(date +%s)
            commit=$(printf 'tree %s\\nparent %s\\nauthor t <t@example.com> %s +0000\\ncommitter t <t@example.com> %s +0000\\ngpgsig -----BEGIN PGP SIGNATURE-----\\n \\n iQEzBAABCAAdFiEEabcdefabcdefabcdefabcdefabcdefabc=\\n =abcd\\n -----END PGP SIGNATURE-----\\n\\n%s\\n' \
                "$tree" "$parent" "$now" "$now" '\(subject)' | git hash-object -t commit -w --stdin)
            echo "$commit" > .git/refs/heads/main
            """
        let pid = try spawnBinary(
            ["-c", script], environment: ["PATH": "/usr/bin:/bin", "HOME": repo], stdout: "/dev/null",
            stderr: "/dev/null", program: "/bin/sh")
        #expect(waitFor(pid) == 0, "the signed commit is made")
    }
}
