import CLinux
import FoundationEssentials
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The player's end of the control socket: it accepts this user's clients, reads their requests line by line,
/// answers each through `handler`, and sends events to the clients that subscribed. It runs entirely on the
/// player's event loop, never blocks it, and no client can harm it: an oversized line, bad JSON or an unknown
/// request gets an error reply; a client that stops reading is dropped once it has a megabyte waiting; beyond
/// `maximumClients`, or with no descriptor left, a newcomer is told so and closed at once, so a flood of
/// connections neither spins the loop nor fills the queue of connections waiting.
public final class ControlServer {
    /// Why the socket could not be opened.
    public enum Problem: UserFacingError, Equatable {
        /// Another player answers on the socket.
        case alreadyRunning(String)
        case system(call: String, path: String, code: Int32)
        case path(ControlSocketPath.Problem)

        public var message: String {
            switch self {
            case .alreadyRunning(let path): return "another hum player is running (its socket is \(path))"
            case .system(let call, let path, let code):
                return "cannot open the control socket \(path): \(call): \(String(cString: strerror(code)))"
            case .path(let p): return p.message
            }
        }
    }

    public typealias Handler = (_ request: ControlRequest) -> ControlReply

    /// Bytes waiting for a client beyond which it is taken for one that stopped reading.
    public static let maximumBacklog = 1 << 20

    /// The most clients connected at once (docs/control.md); the next one is refused with a reply saying so.
    public static let maximumClients = 64

    /// Connections taken in one turn of the loop at most: a flood of them never keeps the keys and timers waiting.
    static let acceptsPerTurn = 64

    /// What a client is told when it is refused for want of room.
    static let full =
        "the hum player already serves \(maximumClients) clients, the most it takes; close one (a 'hum status "
        + "--follow', a screen) and try again"
    static let outOfDescriptors =
        "the hum player has no file descriptors left (too many open files); close some of its clients and try again"

    private final class Client {
        let fd: Int32
        var token: LoopToken?
        var framing = LineFraming(limit: ControlProtocol.maximumMessageBytes)
        var pending: [UInt8] = []
        var sent = 0
        var subscribed = false
        /// Close once what is pending has been written.
        var closing = false
        init(fd: Int32) { self.fd = fd }
    }

    public let path: ControlSocketPath
    private let loop: any EventLoopProtocol
    private let handler: Handler
    private let listener: Int32
    private var listenerToken: LoopToken?
    /// A descriptor held in reserve: with none left (EMFILE), it is given up for a moment to take the connection
    /// waiting and close it with a word, so it leaves the queue instead of keeping the listener readable.
    private var spare: Int32 = -1
    /// Set while the listener is not watched: no descriptor could be had even with the spare's. Watched again when
    /// a client leaves, or after a second.
    private var paused = false
    private var resumer: (any LoopTimer)?
    private var refusals: [String: [UInt8]] = [:]
    private let owner = getuid()
    private var clients: [Int32: Client] = [:]
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    private var readBuffer = [UInt8](repeating: 0, count: 65536)
    private let claim: PlayerClaim

    /// Opens the socket (replacing a stale one a killed player left) and starts accepting on `loop`. `claim`: the
    /// claim to be the player, taken earlier (before the audio opened); taken here when nil. Held until the server
    /// stops listening: only its holder ever removes or binds the socket.
    public init(
        path: ControlSocketPath, loop: any EventLoopProtocol, claim: PlayerClaim? = nil, handler: @escaping Handler
    )
        throws(Problem)
    {
        self.path = path
        self.loop = loop
        self.handler = handler
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do { try path.prepare() } catch { throw .path(error) }
        if let claim {
            self.claim = claim
        } else {
            self.claim = try PlayerClaim(path)
        }
        let socketPath = path.socket
        if ControlClient.isAnswering(socketPath) { throw .alreadyRunning(socketPath) }
        // Nobody answers: a socket left by a player that was killed, or nothing at all.
        var info = stat()
        if lstat(socketPath, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw .system(call: "a file that is not a socket is in the way", path: socketPath, code: EEXIST)
            }
            unlink(socketPath)
        }
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", path: socketPath, code: errno) }
        var address = sockaddr_un()
        guard ControlClient.fill(&address, socketPath) else {
            Glibc.close(fd)
            throw .system(call: "the path is too long for a socket", path: socketPath, code: ENAMETOOLONG)
        }
        // The socket is made 0600 before it listens, so nobody can connect while it is open to more; the directory
        // is this user's alone besides. Never through the umask: it belongs to the whole process, and a folder or
        // file another thread makes meanwhile would lose its owner's bits (a ledger folder no one can enter).
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .system(call: "bind", path: socketPath, code: code)
        }
        guard chmod(socketPath, 0o600) == 0 else {
            let code = errno
            Glibc.close(fd)
            unlink(socketPath)
            throw .system(call: "chmod", path: socketPath, code: code)
        }
        guard listen(fd, 16) == 0 else {
            let code = errno
            Glibc.close(fd)
            unlink(socketPath)
            throw .system(call: "listen", path: socketPath, code: code)
        }
        listener = fd
        spare = Self.openSpare()
        do {
            resumer = try loop.makeTimer { [weak self] in self?.resumeListening() }
        } catch {
            Glibc.close(fd)
            if spare >= 0 { Glibc.close(spare) }
            unlink(socketPath)
            throw .system(call: error.call, path: socketPath, code: error.code)
        }
        listenerToken = loop.watch(fd) { [unowned self] _ in self.accept() }
    }

    private static func openSpare() -> Int32 { open("/dev/null", O_RDONLY | O_CLOEXEC) }

    /// Stops accepting and removes the socket; the clients connected keep their connection, so a request that
    /// ended the player still gets its reply.
    public func stopListening() {
        guard let listenerToken else { return }
        loop.remove(listenerToken)
        self.listenerToken = nil
        Glibc.close(listener)
        unlink(path.socket)
        resumer = nil
        if spare >= 0 { Glibc.close(spare) }
        spare = -1
        claim.release()
    }

    /// Stops accepting, closes every client and removes the socket.
    public func close() {
        stopListening()
        for client in clients.values { drop(client) }
    }

    deinit { close() }

    public var clientCount: Int { clients.count }
    public var subscriberCount: Int { clients.values.filter(\.subscribed).count }

    /// Sends an event to every subscriber.
    public func broadcast(_ event: ControlEvent) {
        guard clients.values.contains(where: \.subscribed), var bytes = try? encoder.encode(event) else { return }
        bytes.append(10)
        for client in clients.values where client.subscribed && !client.closing {
            enqueue(Array(bytes), to: client)
        }
    }

    // MARK: Connections

    private func accept() {
        for _ in 0..<Self.acceptsPerTurn {
            let fd = hum_accept(listener)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    if shed() { continue }
                    return
                default: return  // EAGAIN: all taken
                }
            }
            guard isOwners(fd) else {
                Glibc.close(fd)  // another user: refused without a word
                continue
            }
            guard clients.count < Self.maximumClients else {
                refuse(fd, Self.full, checked: true)
                continue
            }
            let client = Client(fd: fd)
            clients[fd] = client
            client.token = loop.watch(fd) { [unowned self] events in self.service(client, events) }
        }
    }

    /// No descriptor left for the connection waiting: takes it with the spare's and refuses it. Returns whether
    /// to go on accepting; when even that fails, the listener is not watched until a client leaves or a second
    /// passes (a readable listener that cannot be accepted from would spin the loop).
    private func shed() -> Bool {
        if spare >= 0 {
            Glibc.close(spare)
            spare = -1
            let fd = hum_accept(listener)
            let code = errno
            if fd >= 0 { refuse(fd, Self.outOfDescriptors) }
            spare = Self.openSpare()
            if fd < 0 && (code == EAGAIN || code == EWOULDBLOCK) { return false }  // nobody waits any more
            if fd >= 0 && spare >= 0 { return true }
        }
        pauseListening()
        return false
    }

    /// Tells a connection of this user why it is not served, and closes it (another user's, without a word). The
    /// reply is small and the socket new: it fits its buffer, and is never waited on.
    private func refuse(_ fd: Int32, _ message: String, checked: Bool = false) {
        if checked || isOwners(fd) {
            let bytes = refusals[message] ?? line(ControlReply(id: nil, error: message, kind: .failure))
            refusals[message] = bytes  // a flood is told the same few words many times: encoded once
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        }
        Glibc.close(fd)
    }

    /// Whether the process at the other end runs as this user (SO_PEERCRED).
    private func isOwners(_ fd: Int32) -> Bool {
        var uid: uid_t = 0
        return hum_peer_uid(fd, &uid) == 0 && uid == owner
    }

    private func line(_ reply: ControlReply) -> [UInt8] {
        guard let bytes = try? encoder.encode(reply) else { return [] }
        return Array(bytes) + [10]
    }

    private func pauseListening() {
        guard let listenerToken, !paused else { return }
        paused = true
        loop.update(listenerToken, events: 0)
        resumer?.arm(after: 1)
    }

    private func resumeListening() {
        guard let listenerToken, paused else { return }
        paused = false
        resumer?.disarm()
        if spare < 0 { spare = Self.openSpare() }
        loop.update(listenerToken, events: Int16(POLLIN))
    }

    private func service(_ client: Client, _ events: Int16) {
        if events & Int16(POLLOUT) != 0 { flush(client) }
        guard clients[client.fd] != nil else { return }
        if events & Int16(POLLIN) != 0 {
            let n = readBuffer.withUnsafeMutableBytes { read(client.fd, $0.baseAddress!, $0.count) }
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
                drop(client)
                return
            }
            if n > 0 {
                let pieces = readBuffer.withUnsafeBytes {
                    client.framing.add(UnsafeRawBufferPointer(rebasing: $0[0..<n]))
                }
                for piece in pieces {
                    switch piece {
                    case .line(let line): answer(line, from: client)
                    case .tooLong:
                        let reply = ControlReply(
                            id: nil, error: "message longer than \(ControlProtocol.maximumMessageBytes) bytes",
                            kind: .usage)
                        send(reply, to: client)
                        client.closing = true
                        if client.pending.count == client.sent { drop(client) }
                        return
                    }
                    if clients[client.fd] == nil { return }
                }
            }
        } else if events & Int16(POLLHUP | POLLERR) != 0 {
            drop(client)
        }
    }

    private func answer(_ line: [UInt8], from client: Client) {
        if line.allSatisfy({ $0 == 32 || $0 == 13 || $0 == 9 }) { return }
        let request: ControlRequest
        do {
            request = try decoder.decode(ControlRequest.self, from: Data(line))
        } catch let refusal as ControlRequest.Refusal {
            send(ControlReply(id: refusal.id, error: refusal.message, kind: .usage), to: client)
            return
        } catch {
            send(ControlReply(id: nil, error: ControlRequest.describe(error), kind: .usage), to: client)
            return
        }
        if request.command == .subscribe { client.subscribed = true }
        send(handler(request), to: client)
    }

    private func send(_ reply: ControlReply, to client: Client) {
        guard var bytes = try? encoder.encode(reply) else { return }
        bytes.append(10)
        enqueue(Array(bytes), to: client)
    }

    private func enqueue(_ bytes: [UInt8], to client: Client) {
        if client.pending.count - client.sent + bytes.count > Self.maximumBacklog {
            drop(client)  // it stopped reading
            return
        }
        if client.sent == client.pending.count || client.sent > 65536 {
            client.pending.removeFirst(client.sent)  // what is written is not kept
            client.sent = 0
        }
        client.pending += bytes
        flush(client)
    }

    private func flush(_ client: Client) {
        while client.sent < client.pending.count {
            let n = client.pending.withUnsafeBytes {
                Glibc.send(client.fd, $0.baseAddress! + client.sent, $0.count - client.sent, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                drop(client)
                return
            }
            client.sent += n
        }
        let waiting = client.sent < client.pending.count
        if !waiting, client.closing {
            drop(client)
            return
        }
        if let token = client.token {
            loop.update(token, events: Int16(POLLIN) | (waiting ? Int16(POLLOUT) : 0))
        }
    }

    private func drop(_ client: Client) {
        guard clients.removeValue(forKey: client.fd) != nil else { return }
        if let token = client.token { loop.remove(token) }
        Glibc.close(client.fd)
        resumeListening()  // a descriptor is free again
    }
}
