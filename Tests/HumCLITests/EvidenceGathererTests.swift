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
}
