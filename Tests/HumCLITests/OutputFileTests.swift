import Foundation
import HumCore
import Testing

@testable import HumCLI

/// Runs a shell script with `$HUM` set to the built binary, with no signal blocked (the test runner blocks some,
/// and children would inherit that); returns the exit status (128 + signal when killed), stdout and stderr.
func shell(_ script: String, environment: [String: String]) throws -> (code: Int32, out: String, err: String) {
    let base = NSTemporaryDirectory() + "hum-sh-" + UUID().uuidString
    defer {
        unlink(base + ".out")
        unlink(base + ".err")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, base + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, base + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let words: [String] = ["/bin/sh", "-c", script]
    let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] =
        environment.merging(["HUM": humBinary]) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for p in argv + envp { free(p) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
    guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
    let code = waitFor(pid)
    return (code, contents(base + ".out"), contents(base + ".err"))
}

func fileInfo(_ path: String, follow: Bool = true) -> stat? {
    var info = stat()
    return (follow ? stat(path, &info) : lstat(path, &info)) == 0 ? info : nil
}

func contents(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

/// `-o FILE`: a regular file is replaced atomically and keeps its mode and owner; anything else is written
/// through, never replaced; new files follow the umask.
@Suite struct OutputFileTests {
    func seeded() throws -> Sandbox {
        let s = Sandbox()
        #expect(try runBinary(["ledger", "adjust", "+1h", "--reason", "seed"], environment: s.environment).code == 0)
        try FileManager.default.createDirectory(atPath: s.root + "/out", withIntermediateDirectories: true)
        return s
    }

    func leftovers(_ s: Sandbox) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: s.root + "/out")) ?? []).filter { $0.contains(".tmp-") }
    }

    @Test func newExportsAreOwnerOnlyAndNewAudioFollowsTheUmask() throws {
        let s = try seeded()
        let dir = s.root + "/out"
        for (umask, export, audio) in [("022", 0o600, 0o644), ("077", 0o600, 0o600), ("027", 0o600, 0o640)] {
            let r = try shell(
                """
                umask \(umask)
                "$HUM" export -o '\(dir)/e\(umask).json' && "$HUM" ledger export -o '\(dir)/l\(umask).jsonl' \
                && "$HUM" render rain --duration 0.2s -o '\(dir)/a\(umask).wav'
                """, environment: s.environment)
            #expect(r.code == 0, "\(r.err)")
            #expect(fileInfo("\(dir)/e\(umask).json").map { Int($0.st_mode & 0o7777) } == export, "umask \(umask)")
            #expect(fileInfo("\(dir)/l\(umask).jsonl").map { Int($0.st_mode & 0o7777) } == export, "umask \(umask)")
            #expect(fileInfo("\(dir)/a\(umask).wav").map { Int($0.st_mode & 0o7777) } == audio, "umask \(umask)")
        }
        #expect(leftovers(s).isEmpty)
    }

    @Test func aRegularFileIsReplacedAtomicallyKeepingItsModeAndOwner() throws {
        let s = try seeded()
        let file = s.root + "/out/backup.json"
        try "old".write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o640)
        let root = getuid() == 0
        if root { chown(file, 1234, 4321) }
        for words in [
            ["export", "-o", file], ["ledger", "export", "-o", file],
            ["render", "rain", "--duration", "0.2s", "-o", file + ".wav"],
        ] {
            if words[0] == "render" {
                try "old".write(toFile: file + ".wav", atomically: false, encoding: .utf8)
                chmod(file + ".wav", 0o640)
                if root { chown(file + ".wav", 1234, 4321) }
            }
            let target = words[0] == "render" ? file + ".wav" : file
            let before = try #require(fileInfo(target))
            let r = try runBinary(words, environment: s.environment)
            #expect(r.code == 0, "\(words): \(r.err)")
            let after = try #require(fileInfo(target))
            #expect(after.st_mode & 0o7777 == 0o640, "\(words)")
            #expect(after.st_ino != before.st_ino, "\(words): replaced, not rewritten in place")
            if root { #expect(after.st_uid == 1234 && after.st_gid == 4321, "\(words)") }
            #expect(contents(target) != "old")
        }
        #expect(contents(file).contains("\"adjustment\""))
        #expect(leftovers(s).isEmpty)
    }

    @Test func aLinkToARegularFileStaysALink() throws {
        let s = try seeded()
        let file = s.root + "/out/real.json"
        let link = s.root + "/out/link.json"
        try "old".write(toFile: file, atomically: false, encoding: .utf8)
        symlink("real.json", link)
        #expect(try runBinary(["export", "-o", link], environment: s.environment).code == 0)
        #expect(fileInfo(link, follow: false).map { $0.st_mode & S_IFMT } == S_IFLNK)
        #expect(contents(file).hasPrefix("{\"schema\""))
        // A link to nothing yet: the file it names is created.
        symlink("new.json", s.root + "/out/dangling.json")
        #expect(
            try runBinary(["ledger", "export", "-o", s.root + "/out/dangling.json"], environment: s.environment).code
                == 0)
        #expect(contents(s.root + "/out/new.json").contains("\"seed\""))
        #expect(leftovers(s).isEmpty)
    }

    @Test func aFIFOIsWrittenThroughNotReplaced() throws {
        let s = try seeded()
        let fifo = s.root + "/out/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        for words in [
            ["export", "-o", fifo], ["ledger", "export", "-o", fifo],
            ["render", "rain", "--duration", "0.2s", "-o", fifo + ".ogg"],
        ] {
            let path = words[0] == "render" ? fifo + ".ogg" : fifo
            if words[0] == "render" { #expect(mkfifo(path, 0o600) == 0) }
            let reader = try shell(
                "timeout 60 cat '\(path)' > '\(path).read' &\ntimeout 60 \"$HUM\" "
                    + "\(words.map { "'\($0)'" }.joined(separator: " "))\nwait",
                environment: s.environment)
            #expect(reader.code == 0, "\(words): \(reader.err)")
            #expect(fileInfo(path, follow: false).map { $0.st_mode & S_IFMT } == S_IFIFO, "\(words)")
            let read = try #require(FileManager.default.contents(atPath: path + ".read"))
            #expect(read.count > 20, "\(words)")
        }
        #expect(leftovers(s).isEmpty)
    }

    @Test func aDeviceIsWrittenThroughNotReplaced() throws {
        let s = try seeded()
        let link = s.root + "/out/null"
        symlink("/dev/null", link)
        for words in [
            ["export", "-o", link], ["ledger", "export", "-o", link],
            ["render", "rain", "--duration", "0.2s", "-o", link + ".wav"],
        ] {
            if words[0] == "render" { symlink("/dev/null", link + ".wav") }
            let r = try runBinary(words, environment: s.environment)
            #expect(r.code == 0, "\(words): \(r.err)")
        }
        #expect(fileInfo(link, follow: false).map { $0.st_mode & S_IFMT } == S_IFLNK)
        #expect(fileInfo(link + ".wav", follow: false).map { $0.st_mode & S_IFMT } == S_IFLNK)
        #expect(fileInfo("/dev/null").map { $0.st_mode & S_IFMT } == S_IFCHR)
        // A device node of the sandbox's own (root only: mknod), so nothing shared is at stake.
        let node = s.root + "/out/zero"
        if try shell("mknod '\(node)' c 1 5", environment: s.environment).code == 0 {
            #expect(try runBinary(["export", "-o", node], environment: s.environment).code == 0)
            #expect(fileInfo(node).map { $0.st_mode & S_IFMT } == S_IFCHR)
        }
        #expect(try runBinary(["export", "-o", "/dev/full"], environment: s.environment).code == 1)
        #expect(leftovers(s).isEmpty)
    }

    @Test func devStdoutIsTheDescriptorHumWasGiven() throws {
        let s = try seeded()
        let file = s.root + "/out/stdout.json"
        let plain = try runBinary(["export", "-o", "/dev/stdout"], environment: s.environment)
        #expect(plain.code == 0 && plain.out.hasPrefix("{\"schema\""), "\(plain.err)")
        // An append stays an append; a pipe gets the data; a closed stdout is an error.
        try "first\n".write(toFile: file, atomically: false, encoding: .utf8)
        let r = try shell(
            """
            "$HUM" ledger export -o /dev/stdout >> '\(file)' && "$HUM" ledger export -o /dev/fd/1 | wc -l
            """, environment: s.environment)
        #expect(r.code == 0 && r.out.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(r.err)")
        #expect(contents(file).hasPrefix("first\n{\"id\""))
        let closed = try shell("\"$HUM\" export -o /dev/stdout >&-", environment: s.environment)
        #expect(
            closed.code == 1 && closed.err.hasPrefix("hum: cannot write /dev/stdout: Bad file descriptor"),
            "\(closed.err)")
        #expect(fileInfo("/dev/stdout", follow: false).map { $0.st_mode & S_IFMT } == S_IFLNK)
    }

    @Test func badTargetsFailWithOneLine() throws {
        let s = try seeded()
        let folder = try runBinary(["export", "-o", s.root + "/out"], environment: s.environment)
        #expect(folder.code == 1 && folder.err.contains("it is a folder"))
        let missing = try runBinary(["export", "-o", s.root + "/nowhere/x.json"], environment: s.environment)
        #expect(missing.code == 1 && missing.err.contains("cannot create a temporary file in"), "\(missing.err)")
        if getuid() != 0 {
            let file = s.root + "/out/readonly.json"
            try "old".write(toFile: file, atomically: false, encoding: .utf8)
            chmod(file, 0o444)
            let r = try runBinary(["export", "-o", file], environment: s.environment)
            #expect(r.code == 1 && contents(file) == "old", "\(r.err)")
        }
    }

    /// A write that fails half-way (here: the file size limit) leaves the old file whole and no temporary file.
    @Test func aFailedWriteLeavesTheOldFile() throws {
        let s = try seeded()
        for i in 0..<40 {
            _ = try runBinary(
                [
                    "history", "record", "--active", "25m", "--goal", String(repeating: "g", count: 100), "--id",
                    "r\(i)",
                ], environment: s.environment)
        }
        let file = s.root + "/out/backup.json"
        try "old".write(toFile: file, atomically: false, encoding: .utf8)
        let r = try shell("ulimit -f 4; exec \"$HUM\" export --format jsonl -o '\(file)'", environment: s.environment)
        #expect(r.code != 0)
        #expect(contents(file) == "old")
        #expect(leftovers(s).isEmpty)
    }
}
