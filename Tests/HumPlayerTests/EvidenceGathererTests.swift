import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumPlayer

/// What hum gathers itself: git's files (ignored ones left out, unless watched by name), a plain folder's (hidden ones
/// left out), the changes between two looks with their counts, and only the commits made in between.
@Suite struct EvidenceGathererTests {
    func git(_ arguments: [String], in directory: String, date: Int64? = nil) throws {
        #expect(try HumPlayerTests.git(arguments, in: directory, date: date) == 0, "git \(arguments)")
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
        // Times are set by hand rather than waited for: the commit before the first look is older than the
        // session, the file changed and the commit made during it are newer than the first look.
        let now = Int64(Date().timeIntervalSince1970)
        try git(["commit", "-qm", "Before the session"], in: repo, date: now - 100)
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

        let start = Timestamp(epochSeconds: now - 1, offsetSeconds: 0)
        try write("one two\nthree four five\n", repo + "/a.md")
        var later = [timespec(tv_sec: Int(now + 2), tv_nsec: 0), timespec(tv_sec: Int(now + 2), tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, repo + "/a.md", &later, 0) == 0)  // a new modification time
        try write("new\n", repo + "/c.md")
        try git(["add", "c.md", "a.md"], in: repo)
        try git(["commit", "-qm", "Add c and grow a"], in: repo, date: now + 2)
        let calendar = LocalCalendar(clock: ManualClock(0), zone: FixedZone(offsetSeconds: 0))
        let end = Timestamp(epochSeconds: now + 3, offsetSeconds: 0)
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
