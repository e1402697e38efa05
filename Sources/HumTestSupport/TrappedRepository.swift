import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A scratch git repository armed with everything a repository can make git run, each writing a marker file named
/// after itself when it runs: an fsmonitor, every hook, a textconv driver and an external diff driver (through
/// .gitattributes), clean, smudge and process filters, `diff.external`, a pager, `log.showSignature` with a fake
/// `gpg.program`, an ssh command, a credential helper, an askpass, and a `git` program at its top. Nothing that only watches it may spring any.
public struct TrappedRepository {
    public let repo: String
    public let markers: String
    public let traps: String

    public static let hooks = [
        "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit", "prepare-commit-msg",
        "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push", "pre-receive", "update",
        "proc-receive", "post-receive", "post-update", "reference-transaction", "push-to-checkout", "pre-auto-gc",
        "post-rewrite", "sendemail-validate", "fsmonitor-watchman", "post-index-change",
    ]

    /// The repository with one commit of f.md, a.txt and .gitattributes, made before it is armed.
    public init(root: String) throws {
        repo = root + "/trapped"
        markers = root + "/markers"
        traps = root + "/traps"
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
    public var sprung: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: markers)) ?? []).sorted() }

    /// `git ARGS` in the repository, output to `stdout`, expected to succeed when `check`.
    @discardableResult
    public func git(_ arguments: [String], stdout: String = "/dev/null", check: Bool = true) throws -> Int32 {
        let code = try runProgram(
            "/usr/bin/git", ["-C", repo] + arguments,
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": repo, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
            ], stdout: stdout)
        if check, code != 0 { throw Failed(what: "git \(arguments) exited \(code)") }
        return code
    }

    /// Changes f.md and a.txt in the work tree, and commits them on main as a commit that carries a gpgsig header,
    /// with plumbing that runs none of the traps (objects hashed without filters, the branch written as a file).
    public func commitSigned(subject: String) throws {
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
        let code = try runProgram("/bin/sh", ["-c", script], environment: ["PATH": "/usr/bin:/bin", "HOME": repo])
        if code != 0 { throw Failed(what: "the signed commit was not made (exit \(code))") }
    }
}

/// A fixture that could not be set up.
public struct Failed: Error, CustomStringConvertible {
    public var what: String
    public var description: String { what }
}

/// Runs a program with exactly `environment`, its stdout written to the file `stdout`, and returns its exit code.
public func runProgram(
    _ program: String, _ arguments: [String], environment: [String: String], stdout: String = "/dev/null"
) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.environment = environment
    if stdout != "/dev/null" { FileManager.default.createFile(atPath: stdout, contents: nil) }
    process.standardOutput = FileHandle(forWritingAtPath: stdout)
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
