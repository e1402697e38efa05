import Foundation
import HumControl
import HumCore
import HumSystem
import HumTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A server on its own event loop thread, answering with a status whose master is what the last `master` set.
final class TestPlayer: @unchecked Sendable {
    // @unchecked: the loop and the server are touched only on the loop's thread once it runs.
    let directory: String
    let path: ControlSocketPath
    let loop = EventLoop()
    var server: ControlServer!
    var stopper: EventLoop.Notifier!
    var master = 100.0
    let handled = Atomic<Int>(0)
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        directory = NSTemporaryDirectory() + "hum-control-" + UUID().uuidString.prefix(8)
        path = ControlSocketPath(directory: directory)
        server = try ControlServer(path: path, loop: loop) { [unowned self] request in
            self.handled.add(1, ordering: .relaxed)
            switch request.command {
            case .master(let v):
                guard (0...100).contains(v) else { return ControlReply(id: request.id, error: "no", kind: .usage) }
                self.master = v
                self.server.broadcast(ControlEvent(what: [.mix], status: self.status))
            default: break
            }
            return ControlReply(id: request.id, status: self.status)
        }
        stopper = try loop.notifier { [unowned self] in
            self.server.close()
            self.loop.stop()
        }
        let thread = Thread { [unowned self] in
            self.loop.run()
            self.done.signal()
        }
        self.thread = thread
        thread.start()
    }

    var status: PlayerStatus {
        PlayerStatus(
            pid: getpid(), session: "s", state: .playing,
            mix: Mix(tracks: [.init(sound: "rain", volume: 40)], master: master))
    }

    func stop() {
        stopper.notify()
        done.wait()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Writes `text` on a bare connection and returns what comes back within 2 s (one read).
func rawExchange(_ fd: Int32, _ text: String) -> String {
    _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
    var buffer = [UInt8](repeating: 0, count: 65536)
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&p, 1, 2000) > 0 else { return "" }
    let n = read(fd, &buffer, buffer.count)
    return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
}

/// A private directory for a socket, removed by the caller.
func privateSocketDirectory() throws -> ControlSocketPath {
    let directory = NSTemporaryDirectory() + "hum-sock-" + UUID().uuidString.prefix(8)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    chmod(directory, 0o700)
    return ControlSocketPath(directory: directory)
}

@Suite struct ControlSocketTests {
    @Test func aRequestGetsItsReplyAndSubscribersGetEveryChange() throws {
        let player = try TestPlayer()
        defer { player.stop() }
        let watcher = try #require(try ControlClient.connect(to: player.path))
        let steerer = try #require(try ControlClient.connect(to: player.path))
        #expect(try watcher.request(.subscribe).status?.mix.master == 100)
        #expect(try steerer.request(.master(volume: 30)).status?.mix.master == 30)
        guard case .event(let event) = try watcher.receive(timeoutMilliseconds: 2000) else {
            Issue.record("no event")
            return
        }
        #expect(event.what == [.mix] && event.status.mix.master == 30)
        let refused = try steerer.request(.master(volume: 300))
        #expect(!refused.ok && refused.kind == "usage")
    }

    @Test func aHundredChangesInARowLeaveTheLastOne() throws {
        let player = try TestPlayer()
        defer { player.stop() }
        let client = try #require(try ControlClient.connect(to: player.path))
        for v in 0..<100 { _ = try client.request(.master(volume: Double(v))) }
        #expect(try client.request(.status).status?.mix.master == 99)
    }

    /// Garbage, an unknown command, a wrong version and an oversized line get errors or a hang-up; the player goes
    /// on answering everyone else.
    @Test func badClientsCannotHarmThePlayer() throws {
        let player = try TestPlayer()
        defer { player.stop() }
        let fd = try rawConnect(player.path.socket)
        defer { close(fd) }
        func say(_ text: String) -> String {
            _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 2000) > 0 else { return "" }
            let n = read(fd, &buffer, buffer.count)
            return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
        }
        #expect(say("{not json\n").contains("\"ok\":false"))
        #expect(say("{\"v\":1,\"id\":3,\"cmd\":\"dance\"}\n").contains("unknown command"))
        #expect(say("{\"v\":9,\"cmd\":\"status\"}\n").contains("protocol version 9"))
        #expect(say("{\"v\":1,\"id\":4,\"cmd\":\"status\"}\n").contains("\"ok\":true"))
        let huge = String(repeating: "x", count: ControlProtocol.maximumMessageBytes + 10)
        #expect(say(huge).contains("longer than"))
        // Then the connection is closed.
        var byte: UInt8 = 0
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&p, 1, 2000)
        #expect(read(fd, &byte, 1) <= 0, "closed (or reset, with the rest of the line unread)")
        let other = try #require(try ControlClient.connect(to: player.path))
        #expect(try other.request(.status).ok)
    }

    /// Numbers out of their range are refused where the request enters (not clamped into something else), with
    /// the request's id and what is wrong; −0 comes back as 0.
    @Test func outOfRangeNumbersAreRefusedWithWhatIsWrong() throws {
        let player = try TestPlayer()
        defer { player.stop() }
        let fd = try rawConnect(player.path.socket)
        defer { close(fd) }
        func say(_ line: String) -> String { rawExchange(fd, line + "\n") }
        let extend = say(#"{"id":2,"cmd":"extend","seconds":-5}"#)
        #expect(extend.contains(#""id":2"#) && extend.contains(#""ok":false"#), "\(extend)")
        #expect(extend.contains("from 1 to 86400 (24 h); got -5"), "\(extend)")
        let huge = say(#"{"id":3,"cmd":"extend","seconds":9223372036854775807}"#)
        #expect(huge.contains(#""ok":false"#) && huge.contains("got 9223372036854775807"), "\(huge)")
        let id = say(#"{"id":1.5,"cmd":"status"}"#)
        #expect(id.contains(#"\"id\" must be an integer; got 1.5"#), "\(id)")
        let tracks = Array(repeating: #"{"sound":"rain","volume":1}"#, count: 70).joined(separator: ",")
        let play = say(#"{"id":4,"cmd":"play","mix":{"tracks":["# + tracks + "]}}")
        #expect(play.contains("has 70 sounds; a mix has at most 64") && play.contains(#""id":4"#), "\(play)")
        let zero = say(#"{"id":5,"cmd":"master","volume":-0.0}"#)
        #expect(zero.contains(#""master":0"#) && !zero.contains("-0"), "\(zero)")
        #expect(player.handled.load(ordering: .relaxed) == 1, "only the master request reached the player")
    }

    /// The player serves 64 clients at once (docs/control.md); the next is told why at once and closed, and once a
    /// client leaves a newcomer is served again.
    @Test func aPlayerServesItsMostClientsAndTellsTheNextOneWhy() throws {
        let player = try TestPlayer()
        defer { player.stop() }
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<64 {
            let fd = try rawConnect(player.path.socket)
            held.append(fd)
            let reply = rawExchange(fd, "{\"v\":1,\"id\":1,\"cmd\":\"status\"}\n")
            #expect(reply.contains(#""ok":true"#), "\(reply)")
        }
        let refused = try #require(try ControlClient.connect(to: player.path)).request(.status)
        #expect(!refused.ok && refused.kind == "failure", "\(refused)")
        #expect(refused.error?.contains("already serves 64 clients") == true, "\(refused.error ?? "")")
        close(held.removeLast())
        let served = eventually(within: 2) {
            (try? ControlClient.connect(to: player.path)?.request(.status).ok) == true
        }
        #expect(served, "a client left, and the next one is served")
    }

    /// A listener that takes no connection (its queue full) or never answers makes a client fail within its
    /// timeout instead of waiting for ever in connect.
    @Test func aClientGivesUpOnAPlayerThatTakesNoConnectionOrNeverAnswers() throws {
        let path = try privateSocketDirectory()
        defer { try? FileManager.default.removeItem(atPath: path.directory) }
        let listener = try rawListen(path.socket)  // never accepts
        var queued: [Int32] = []
        defer { for fd in queued { close(fd) } }
        // Room in the queue: the connection is made, but no answer comes.
        let waiting = try #require(try ControlClient.connect(to: path))
        #expect(throws: ControlClient.Problem.timeout) { try waiting.request(.status, timeoutMilliseconds: 300) }
        while queued.count < 1000, let fd = rawConnectNow(path.socket) { queued.append(fd) }
        #expect(errno == EAGAIN && queued.count < 1000, "the queue is full")

        final class Outcome: @unchecked Sendable {
            // @unchecked: written by the thread before it signals, read after the wait.
            var message = "connected"
            var seconds = 99.0
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Thread {
            let start = Date()
            do {
                _ = try ControlClient.connect(to: path)
            } catch {
                outcome.message = (error as? any UserFacingError)?.message ?? "\(error)"
            }
            outcome.seconds = Date().timeIntervalSince(start)
            done.signal()
        }.start()
        let finished = done.wait(timeout: .now() + 5) == .success
        close(listener)  // wakes a connect still waiting (refused now), so the thread ends either way
        if !finished { done.wait() }
        #expect(finished, "connect still waited after 5 s")
        #expect(outcome.message.contains("did not take the connection within 1000 ms"), "\(outcome.message)")
        #expect(outcome.seconds < 2, "took \(outcome.seconds) s")
    }

    @Test func aClientThatStopsReadingIsDroppedAndOthersGoOn() throws {
        let player = try TestPlayer()
        defer { player.stop() }
        let sleeper = try rawConnect(player.path.socket)
        defer { close(sleeper) }
        var size: Int32 = 4096
        setsockopt(sleeper, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let request = "{\"v\":1,\"id\":1,\"cmd\":\"subscribe\"}\n"
        _ = request.withCString { Glibc.write(sleeper, $0, strlen($0)) }
        let client = try #require(try ControlClient.connect(to: player.path))
        // Events pile up for the sleeper until it is dropped; the active client is answered throughout.
        for i in 0..<6000 { #expect(try client.request(.master(volume: Double(i % 100))).ok) }
        // The sleeper's connection was closed by the player: reading drains what was sent, then meets the end.
        var buffer = [UInt8](repeating: 0, count: 65536)
        var total = 0
        while true {
            var p = pollfd(fd: sleeper, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 2000) > 0 else { break }
            let n = read(sleeper, &buffer, buffer.count)
            if n <= 0 { break }
            total += n
        }
        #expect(total < ControlServer.maximumBacklog + 600_000, "the backlog was bounded (\(total) bytes)")
        #expect(player.handled.load(ordering: .relaxed) >= 6001)
    }

    @Test func aStaleSocketIsReplacedAndALiveOneIsNot() throws {
        let player = try TestPlayer()
        #expect(throws: ControlServer.Problem.alreadyRunning(player.path.socket)) {
            _ = try ControlServer(path: player.path, loop: EventLoop()) {
                ControlReply(id: $0.id, error: "", kind: .failure)
            }
        }
        // A socket nobody listens on, as a killed player leaves it.
        let directory = player.directory
        player.stop()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o700)
        let stale = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            Array((directory + "/control.sock").utf8).withUnsafeBytes { raw.copyMemory(from: $0) }
        }
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(stale, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        close(stale)
        #expect(try ControlClient.connect(to: ControlSocketPath(directory: directory)) == nil)
        let loop = EventLoop()
        let server = try ControlServer(path: ControlSocketPath(directory: directory), loop: loop) {
            ControlReply(id: $0.id, error: "", kind: .failure)
        }
        server.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// One claim to be the player at a time; looking at it (`isHeld`) never takes it, so a hum waiting for a player
    /// that is starting cannot make the next one fail; a server holds it until it stops listening.
    @Test func theClaimToBeThePlayerIsHeldByOneAndLookingDoesNotTakeIt() throws {
        let directory = NSTemporaryDirectory() + "hum-claim-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = ControlSocketPath(directory: directory)
        #expect(!PlayerClaim.isHeld(path))
        let claim = try PlayerClaim(path)
        #expect(PlayerClaim.isHeld(path))
        #expect(throws: ControlServer.Problem.alreadyRunning(path.socket)) { _ = try PlayerClaim(path) }
        #expect(throws: ControlServer.Problem.alreadyRunning(path.socket)) {
            _ = try ControlServer(path: path, loop: EventLoop()) { ControlReply(id: $0.id, error: "", kind: .failure) }
        }
        #expect(try ControlClient.connect(to: path) == nil, "a server that lost the claim binds nothing")
        claim.release()
        #expect(!PlayerClaim.isHeld(path))
        let server = try ControlServer(path: path, loop: EventLoop(), claim: try PlayerClaim(path)) {
            ControlReply(id: $0.id, error: "", kind: .failure)
        }
        #expect(PlayerClaim.isHeld(path) && PlayerClaim.isHeld(path))
        server.stopListening()
        #expect(!PlayerClaim.isHeld(path))
        server.close()
    }

    @Test func aDirectoryOpenToOthersIsRefused() throws {
        let directory = NSTemporaryDirectory() + "hum-open-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        chmod(directory, 0o777)
        #expect(throws: ControlServer.Problem.self) {
            _ = try ControlServer(path: ControlSocketPath(directory: directory), loop: EventLoop()) {
                ControlReply(id: $0.id, error: "", kind: .failure)
            }
        }
        #expect(throws: ControlClient.Problem.self) {
            _ = try ControlClient.connect(to: ControlSocketPath(directory: directory))
        }
    }

    /// Even when the directory and the socket are opened up by mistake, another user's connection is closed at
    /// once, without a reply (SO_PEERCRED).
    @Test(.enabled(if: getuid() == 0, "needs root to act as another user"))
    func anotherUserIsRefused() throws {
        let player = try TestPlayer()
        defer { player.stop() }
        chmod(player.directory, 0o755)
        chmod(player.path.socket, 0o666)
        let script = """
            use IO::Socket::UNIX; $SIG{PIPE} = "IGNORE"; my $s = IO::Socket::UNIX->new(Peer => $ARGV[0]) or die "connect: $!";
            print $s qq({"v":1,"id":1,"cmd":"status"}\\n); my $line = <$s>; print defined $line ? "answered" : "closed";
            """
        let out = player.directory + ".out"
        defer { unlink(out) }
        let pid = try spawn(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/perl", "-e", script,
                player.path.socket,
            ],
            stdout: out)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let said = try String(contentsOfFile: out, encoding: .utf8)
        #expect(said == "closed", "\(said)")
        // The owner is still served.
        chmod(player.directory, 0o700)
        #expect(try ControlClient.connect(to: player.path)?.request(.status).ok == true)
    }
}

func spawn(_ argv: [String], stdout: String) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let args = argv.map { strdup($0) } + [nil]
    defer { for a in args { free(a) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, argv[0], &actions, nil, args, environ)
    guard rc == 0 else { throw POSIXError(.EIO) }
    return pid
}
