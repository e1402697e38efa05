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
/// request gets an error reply; a client that stops reading is dropped once it has a megabyte waiting.
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

    private final class Client {
        let fd: Int32
        var token: EventLoop.Token?
        var framing = LineFraming(limit: ControlProtocol.maximumMessageBytes)
        var pending: [UInt8] = []
        var sent = 0
        var subscribed = false
        /// Close once what is pending has been written.
        var closing = false
        init(fd: Int32) { self.fd = fd }
    }

    public let path: ControlSocketPath
    private let loop: EventLoop
    private let handler: Handler
    private let listener: Int32
    private var listenerToken: EventLoop.Token?
    private var clients: [Int32: Client] = [:]
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    private var readBuffer = [UInt8](repeating: 0, count: 65536)

    /// Opens the socket (replacing a stale one a killed player left) and starts accepting on `loop`.
    public init(path: ControlSocketPath, loop: EventLoop, handler: @escaping Handler) throws(Problem) {
        self.path = path
        self.loop = loop
        self.handler = handler
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do { try path.prepare() } catch { throw .path(error) }
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
        // The socket is made 0600 by the umask at bind, so no other user can connect even for an instant.
        let oldMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let bindError = errno
        umask(oldMask)
        guard bound == 0 else {
            Glibc.close(fd)
            throw .system(call: "bind", path: socketPath, code: bindError)
        }
        guard listen(fd, 16) == 0 else {
            let code = errno
            Glibc.close(fd)
            unlink(socketPath)
            throw .system(call: "listen", path: socketPath, code: code)
        }
        listener = fd
        listenerToken = loop.watch(fd) { [unowned self] _ in self.accept() }
    }

    /// Stops accepting and removes the socket; the clients connected keep their connection, so a request that
    /// ended the player still gets its reply.
    public func stopListening() {
        guard let listenerToken else { return }
        loop.remove(listenerToken)
        self.listenerToken = nil
        Glibc.close(listener)
        unlink(path.socket)
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
        while true {
            let fd = hum_accept(listener)
            if fd < 0 { return }  // EAGAIN: all taken; other errors: try again on the next readiness
            var uid: uid_t = 0
            guard hum_peer_uid(fd, &uid) == 0, uid == getuid() else {
                Glibc.close(fd)  // another user: refused without a word
                continue
            }
            let client = Client(fd: fd)
            clients[fd] = client
            client.token = loop.watch(fd) { [unowned self] events in self.service(client, events) }
        }
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
            send(ControlReply(id: nil, error: refusal.message, kind: .usage), to: client)
            return
        } catch {
            send(ControlReply(id: nil, error: "not a request: \(Self.describe(error))", kind: .usage), to: client)
            return
        }
        if request.command == .subscribe { client.subscribed = true }
        send(handler(request), to: client)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing \(key.stringValue.quoted)"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            return "\"\(c.codingPath.map(\.stringValue).joined(separator: "."))\" has the wrong type"
        default: return "invalid JSON"
        }
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
    }
}
