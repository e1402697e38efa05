import Foundation
import HumCore
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `hum shield-host` through the built binary, fed the browsers' length-prefixed frames on stdin; `--site`
/// targets; `hum shield install-browser` and `hum shield status`. docs/shields.md, "Sites".
@Suite(.serialized) struct ShieldHostTests {
    /// A running `hum shield-host` with pipes on its stdin and stdout, as a browser starts it.
    final class Host {
        let pid: pid_t
        let input: Int32
        let output: Int32
        var reader = NativeFrames.Reader()
        var pending: [NativeFrames.Event] = []

        init(_ box: Sandbox, caller: [String] = ["chrome-extension://icijkclhbacomgclikafmoifhoeogkme/"]) throws {
            var toHost: [Int32] = [0, 0]
            var fromHost: [Int32] = [0, 0]
            guard pipe(&toHost) == 0, pipe(&fromHost) == 0 else { throw POSIXError(.EMFILE) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, toHost[0], 0)
            posix_spawn_file_actions_adddup2(&actions, fromHost[1], 1)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            for fd in toHost + fromHost { posix_spawn_file_actions_addclose(&actions, fd) }
            let argv: [UnsafeMutablePointer<CChar>?] =
                ([humBinary, "shield-host"] + caller).map { strdup($0) } + [nil]
            let envp: [UnsafeMutablePointer<CChar>?] = box.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for p in argv + envp { free(p) } }
            var pid: pid_t = 0
            let rc = posix_spawn(&pid, humBinary, &actions, nil, argv, envp)
            guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
            self.pid = pid
            close(toHost[0])
            close(fromHost[1])
            input = toHost[1]
            output = fromHost[0]
        }

        deinit {
            close(input)
            close(output)
            kill(pid, SIGKILL)
            waitFor(pid)
        }

        func send(_ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
                guard n > 0 else { return }
                offset += n
            }
        }

        func send(_ json: String) { send(NativeFrames.encode(Array(json.utf8))!) }

        /// The next frame within `seconds`, as a JSON object (nil on timeout or end).
        func next(within seconds: Double = 10) -> [String: Any]? {
            let end = Date().addingTimeInterval(seconds)
            while true {
                if !pending.isEmpty {
                    let event = pending.removeFirst()
                    guard case .message(let payload) = event else { return ["oversized": true] }
                    return (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
                }
                let left = end.timeIntervalSinceNow
                guard left > 0 else { return nil }
                var fds = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
                guard poll(&fds, 1, Int32(left * 1000)) > 0 else { return nil }
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let n = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
                guard n > 0 else { return nil }
                pending += reader.feed(buffer[0..<n])
            }
        }

        /// The next frame of `type`, skipping others.
        func next(_ type: String, within seconds: Double = 10, where check: ([String: Any]) -> Bool = { _ in true })
            -> [String: Any]?
        {
            let end = Date().addingTimeInterval(seconds)
            while end.timeIntervalSinceNow > 0 {
                guard let frame = next(within: end.timeIntervalSinceNow) else { return nil }
                if frame["type"] as? String == type && check(frame) { return frame }
            }
            return nil
        }

        /// Closes stdin, as the browser does, and returns the host's exit code.
        func finish() -> Int32 {
            close(input)
            return waitFor(pid)
        }
    }

    static func leases(_ state: [String: Any]?) -> [[String: Any]] { state?["leases"] as? [[String: Any]] ?? [] }

    @Test func sitesAreTargetsListedShownAndInJSON() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        var run = try runBinary(
            ["shield", "add", "video", "--site", "https://YouTube.com", "--site", "reddit.com/r/*"],
            environment: box.environment)
        #expect(run.code == 0, "\(run.err)")
        #expect(run.out.contains("--site youtube.com, --site reddit.com/r/*"))
        run = try runBinary(["shield", "list"], environment: box.environment)
        #expect(run.out.contains("video") && run.out.contains("--site reddit.com/r/*"))
        run = try runBinary(["shield", "show", "video", "--json"], environment: box.environment)
        let targets = (json(run.out) as? [String: Any])?["targets"] as? [[String: String]]
        #expect(targets == [["kind": "site", "value": "youtube.com"], ["kind": "site", "value": "reddit.com/r/*"]])
        // Added beside programs, removed alone.
        run = try runBinary(["shield", "add", "video", "--app", "mpv"], environment: box.environment)
        run = try runBinary(["shield", "rm", "video", "--site", "youtube.com"], environment: box.environment)
        #expect(run.code == 0, "\(run.err)")
        run = try runBinary(["shield", "show", "video"], environment: box.environment)
        #expect(run.out.contains("--site reddit.com/r/*") && run.out.contains("--app mpv"))
        #expect(!run.out.contains("youtube.com"))
        // Refused where they enter, with what to write instead.
        run = try runBinary(["shield", "add", "video", "--site", "*.youtube.com"], environment: box.environment)
        #expect(run.code == 2 && run.err.hasPrefix("hum: --site \"*.youtube.com\": no * in the domain"))
        run = try runBinary(["shield", "add", "video", "--site", "youtube.com/?v=1"], environment: box.environment)
        #expect(run.code == 2 && run.err.contains("query"))
    }

    @Test func stateGarbageOversizedAndUnknownFramesAreAnsweredAndNeverCrashIt() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        _ = try runBinary(
            ["shield", "add", "video", "--site", "video.test", "--site", "reddit.com/r/*"],
            environment: box.environment)
        _ = try runBinary(["shield", "add", "games", "--app", "fakegame-x"], environment: box.environment)
        _ = try runBinary(["ledger", "adjust", "+30m", "--reason", "test"], environment: box.environment)
        let host = try Host(box)
        host.send("{\"type\":\"state\"}")
        let state = try #require(host.next("state"))
        let shields = state["shields"] as? [[String: Any]]
        // Only the shields that name sites; each site with the regular expression the extension uses.
        #expect(shields?.count == 1)
        #expect(shields?.first?["name"] as? String == "video")
        #expect(shields?.first?["sites"] as? [String] == ["video.test", "reddit.com/r/*"])
        #expect((shields?.first?["regexes"] as? [String])?.first == (try SitePattern.checked("video.test")).regexSource)
        #expect(Self.leases(state).isEmpty)
        #expect((state["bank"] as? [String: Any])?["seconds"] as? Int == 1800)
        #expect((state["bank"] as? [String: Any])?["text"] as? String == "30m")

        host.send("not json")
        #expect(host.next()?["type"] as? String == "error")
        host.send("[1,2]")
        #expect(host.next()?["type"] as? String == "error")
        host.send("{\"type\":\"dance\"}")
        #expect((host.next()?["error"] as? String)?.contains("unknown message type") == true)
        host.send("")  // an empty frame
        #expect(host.next()?["type"] as? String == "error")
        // 2 MB announced and sent: refused once, skipped, and the next frame is answered.
        let big = 2 * 1024 * 1024
        host.send(withUnsafeBytes(of: UInt32(big)) { Array($0) } + [UInt8](repeating: 0x41, count: big))
        let error = try #require(host.next())
        #expect(error["type"] as? String == "error")
        #expect((error["error"] as? String)?.contains("over the 1 MB limit") == true)
        host.send("{\"type\":\"state\"}")
        #expect(host.next()?["type"] as? String == "state")
        host.send("{\"type\":\"lift\",\"shield\":\"video\"}")
        #expect((host.next()?["error"] as? String)?.contains("minutes") == true)
        host.send("{\"type\":\"lift\",\"shield\":\"Video!\",\"minutes\":5}")
        #expect((host.next()?["error"] as? String)?.contains("shield") == true)
        host.send("{\"type\":\"usage\",\"shield\":\"video\",\"site\":\"video.test\",\"seconds\":12.5}")
        let usage = try #require(host.next())
        #expect(usage["type"] as? String == "usage" && usage["ok"] as? Bool == true)
        #expect(usage["recorded"] as? Bool == true, "\(usage)")
        host.send("{\"type\":\"usage\",\"shield\":\"nosuch\",\"site\":\"video.test\",\"seconds\":5}")
        #expect(host.next()?["recorded"] as? Bool == false)
        // Text where a frame should be (a person typing): its "length" is over the limit; the host says so and
        // leaves cleanly when stdin closes mid-frame.
        host.send(Array("hello\n".utf8))
        #expect((host.next()?["error"] as? String)?.contains("over the 1 MB limit") == true)
        #expect(host.finish() == 0)
        // The site's time is the shield's distracting time of today, as the guard's is.
        let report = try runBinary(["report", "--json"], environment: box.environment)
        let days = ((json(report.out) as? [String: Any])?["distracting"] as? [[String: Any]]) ?? []
        #expect(days.map { $0["shield"] as? String } == ["video"], "\(report.out)")
        #expect(days.first?["measured_seconds"] as? Int == 12, "\(report.out)")
    }

    @Test func liftDoesWhatPassAndEmergencyDoWithTheSameRefusals() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        _ = try runBinary(["shield", "add", "video", "--site", "video.test"], environment: box.environment)
        let host = try Host(box)
        // Nothing banked: refused as 'hum pass' refuses it (exit 3), and nothing is held.
        host.send("{\"type\":\"lift\",\"shield\":\"video\",\"minutes\":15,\"emergency\":false}")
        var lift = try #require(host.next("lift"))
        #expect(lift["ok"] as? Bool == false && lift["exit"] as? Int == 3)
        #expect((lift["message"] as? String)?.isEmpty == false)
        #expect(Self.leases(host.next("state")).isEmpty)
        // An unknown shield: the same message 'hum pass 1m --on nope' gives.
        host.send("{\"type\":\"lift\",\"shield\":\"nope\",\"minutes\":1}")
        lift = try #require(host.next("lift"))
        let cli = try runBinary(["pass", "1m", "--on", "nope"], environment: box.environment)
        #expect(lift["exit"] as? Int == Int(cli.code))
        #expect(
            lift["message"] as? String
                == cli.err.replacingOccurrences(of: "hum: ", with: "").trimmingCharacters(in: .newlines))

        _ = try runBinary(["ledger", "adjust", "+30m", "--reason", "test"], environment: box.environment)
        host.send("{\"type\":\"lift\",\"shield\":\"video\",\"minutes\":15,\"emergency\":false}")
        lift = try #require(host.next("lift"))
        #expect(lift["ok"] as? Bool == true, "\(lift)")
        let state = try #require(host.next("state"))
        let lease = try #require(Self.leases(state).first)
        #expect(lease["shield"] as? String == "video" && lease["kind"] as? String == "lifted")
        let endMs = try #require(lease["endMs"] as? Int)
        let now = Int(Date().timeIntervalSince1970 * 1000)
        #expect(abs(endMs - now - 15 * 60_000) <= 2000)
        #expect((lease["end"] as? String)?.contains("T") == true)
        // The same ledger path as 'hum pass': a hold of 15 minutes.
        let ledger = try runBinary(["ledger", "--json"], environment: box.environment)
        #expect(ledger.out.contains("\"hold\""))
        // A second lift while one runs: refused as the CLI refuses it.
        host.send("{\"type\":\"lift\",\"shield\":\"video\",\"minutes\":5,\"emergency\":true}")
        lift = try #require(host.next("lift"))
        #expect(lift["ok"] as? Bool == false && lift["exit"] as? Int == 3)
        // Ended from the terminal: the host sees the ledger change and sends the state by itself.
        _ = try runBinary(["pass", "end"], environment: box.environment)
        #expect(host.next("state", where: { Self.leases($0).isEmpty }) != nil)
        // The emergency reserve, from the browser, with its reason.
        host.send("{\"type\":\"lift\",\"shield\":\"video\",\"minutes\":5,\"emergency\":true,\"reason\":\"the form\"}")
        lift = try #require(host.next("lift"))
        #expect(lift["ok"] as? Bool == true, "\(lift)")
        let entries = try runBinary(["ledger", "--json"], environment: box.environment)
        #expect(entries.out.contains("the form"))
        #expect(host.finish() == 0)
    }

    @Test func aPassFromTheTerminalIsPushedAndItsEndToo() throws {
        let box = Sandbox()
        defer { stopShieldPlayer(box) }
        _ = try runBinary(["shield", "add", "video", "--site", "video.test"], environment: box.environment)
        _ = try runBinary(["ledger", "adjust", "+30m", "--reason", "test"], environment: box.environment)
        let host = try Host(box)
        host.send("{\"type\":\"state\"}")
        #expect(Self.leases(host.next("state")).isEmpty)
        let run = try runBinary(["pass", "2s", "--on", "video"], environment: box.environment)
        #expect(run.code == 0, "\(run.err)")
        let asked = Date()
        let opened = host.next("state", within: 3) { !Self.leases($0).isEmpty }
        #expect(opened != nil)
        #expect(Date().timeIntervalSince(asked) < 1)
        let closed = host.next("state", within: 5) { Self.leases($0).isEmpty }
        #expect(closed != nil)
        let after = Date().timeIntervalSince(asked)
        #expect(after > 1.9 && after < 3.1, "the lease's end was pushed \(after) s after the pass")
        #expect(host.finish() == 0)
    }

    @Test func installBrowserWritesTheManifestsAndStatusSaysWhenABrowserIsInTouch() throws {
        let box = Sandbox()
        var run = try runBinary(["shield", "status"], environment: box.environment)
        #expect(run.code == 0 && run.out.contains("no browser with the extension has been in touch"))
        run = try runBinary(["shield", "install-browser"], environment: box.environment)
        #expect(run.code == 0, "\(run.err)")
        let wrapper = box.root + "/data/hum/hum-shield-host"
        let script = try String(contentsOfFile: wrapper, encoding: .utf8)
        let real = URL(fileURLWithPath: humBinary).resolvingSymlinksInPath().path
        #expect(script.contains("exec '\(real)' shield-host \"$@\""), "\(script)")
        #expect(access(wrapper, X_OK) == 0)
        for (path, key) in [
            (box.root + "/.mozilla/native-messaging-hosts/hum.shield.json", "allowed_extensions"),
            (box.root + "/config/chromium/NativeMessagingHosts/hum.shield.json", "allowed_origins"),
            (box.root + "/config/google-chrome/NativeMessagingHosts/hum.shield.json", "allowed_origins"),
        ] {
            let manifest = try #require(
                json(try String(contentsOfFile: path, encoding: .utf8)) as? [String: Any], "\(path)")
            #expect(manifest["name"] as? String == "hum.shield" && manifest["type"] as? String == "stdio")
            #expect(manifest["path"] as? String == wrapper)
            #expect(manifest[key] != nil)
        }
        // The id in the Chromium manifests is the one the extension's key gives.
        let chromium = try String(
            contentsOfFile: box.root + "/config/chromium/NativeMessagingHosts/hum.shield.json", encoding: .utf8)
        let id = try Self.extensionID()
        #expect(id == "icijkclhbacomgclikafmoifhoeogkme")
        #expect(chromium.contains("chrome-extension://\(id)/"))
        // The wrapper starts the host, which notes its contact: status says a browser is connected now.
        let host = try Host(box)
        host.send("{\"type\":\"state\"}")
        _ = host.next("state")
        run = try runBinary(["shield", "status"], environment: box.environment)
        #expect(run.out.contains("the extension is connected now (chrome-extension://"), "\(run.out)")
        #expect(host.finish() == 0)
        run = try runBinary(["shield", "status"], environment: box.environment)
        #expect(run.out.contains("was last in touch at"), "\(run.out)")
        #expect(run.out.contains("cover nothing"))
    }

    /// The Chromium id of contrib/browser/manifest.json's key: SHA-256 of the key, its first 32 hex digits
    /// written with a–p.
    static func extensionID() throws -> String {
        let manifest = try String(contentsOfFile: repositoryRoot + "/contrib/browser/manifest.json", encoding: .utf8)
        let key = try #require((json(manifest) as? [String: Any])?["key"] as? String)
        let der = try #require(Data(base64Encoded: key))
        let hex = SHA256.hex(Array(der)).prefix(32)
        return String(hex.map { Character(UnicodeScalar(UInt8(Int(String($0), radix: 16)!) + 97)) })
    }
}

/// The repository's folder (contrib/ is read from it).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path
