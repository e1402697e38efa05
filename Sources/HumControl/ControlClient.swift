import CLinux
import FoundationEssentials
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// What the player sends a client.
public enum ServerMessage: Equatable, Sendable {
    case reply(ControlReply)
    case event(ControlEvent)
}

/// A client's end of the control socket: `hum status`, `hum ctl`, a second `hum play`, an attached screen. Every
/// blocking call takes a timeout, connecting included (a player whose queue of connections is full would otherwise
/// keep `connect` waiting for ever); an event loop can instead watch `fd` and call `readAvailable()`.
public final class ControlClient {
    public enum Problem: UserFacingError, Equatable {
        /// The player closed the connection.
        case closed
        /// No answer in time.
        case timeout
        /// The connection was not taken in time: the player's queue of connections waiting is full.
        case notAccepted(milliseconds: Int32)
        /// The player sent something that is not a message of the protocol.
        case garbled(String)
        case system(call: String, code: Int32)
        case path(ControlSocketPath.Problem)

        public var message: String {
            switch self {
            case .closed: return "the hum player closed the connection"
            case .timeout: return "the hum player did not answer in time; try again"
            case .notAccepted(let ms):
                return
                    "the hum player did not take the connection within \(ms) ms (too many clients connecting at "
                    + "once?); try again"
            case .garbled(let what): return "the hum player sent something this hum does not understand (\(what))"
            case .system(let call, let code):
                return "cannot talk to the hum player: \(call): \(String(cString: strerror(code)))"
            case .path(let p): return p.message
            }
        }
    }

    public let fd: Int32
    private var framing = LineFraming(limit: 4 * ControlProtocol.maximumMessageBytes)
    /// Messages read but not yet handed out.
    private var inbox: [ServerMessage] = []
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    private var nextID: Int64 = 1

    private init(fd: Int32) {
        self.fd = fd
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    deinit { close(fd) }

    static func fill(_ address: inout sockaddr_un, _ path: String) -> Bool {
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return true
    }

    /// How long `connect` waits for the player to take the connection, unless told otherwise.
    public static let connectTimeoutMilliseconds: Int32 = 1000

    /// Connects within `timeoutMilliseconds`. On a Unix socket a non-blocking connect cannot be waited for with
    /// poll (it fails at once with EAGAIN while the player's queue is full), so the connect blocks, bounded by
    /// SO_SNDTIMEO, which the kernel applies to that wait; it fails with EAGAIN when the time is up.
    private static func open(_ path: String, timeoutMilliseconds: Int32) -> (fd: Int32, error: Int32) {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return (-1, errno) }
        var address = sockaddr_un()
        guard fill(&address, path) else {
            close(fd)
            return (-1, ENAMETOOLONG)
        }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let end = Int64(deadline.tv_sec) * 1000 + Int64(deadline.tv_nsec) / 1_000_000 + Int64(timeoutMilliseconds)
        while true {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = max(1, end - (Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000))
            var limit = timeval(tv_sec: Int(left / 1000), tv_usec: Int(left % 1000) * 1000)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if rc == 0 { break }
            let code = errno
            if code == EINTR, left > 1 { continue }
            close(fd)
            return (-1, code == EINTR || code == EINPROGRESS ? EAGAIN : code)
        }
        var none = timeval()
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
        return (fd, 0)
    }

    /// Whether a player answers at `path` (a socket nobody listens on, left by a killed player, does not; one
    /// whose queue is full does: it is alive, only busy).
    static func isAnswering(_ path: String) -> Bool {
        let (fd, code) = open(path, timeoutMilliseconds: connectTimeoutMilliseconds)
        if fd >= 0 { close(fd) }
        return fd >= 0 || code == EAGAIN
    }

    /// Connects to this user's player within `timeoutMilliseconds`; nil when none runs (no socket, or a stale
    /// one).
    public static func connect(
        to path: ControlSocketPath, timeoutMilliseconds: Int32 = connectTimeoutMilliseconds
    ) throws(Problem) -> ControlClient? {
        var info = stat()
        if lstat(path.directory, &info) != 0 { return nil }
        do { try path.check() } catch { throw .path(error) }
        let (fd, code) = open(path.socket, timeoutMilliseconds: timeoutMilliseconds)
        if fd < 0 {
            if code == ENOENT || code == ECONNREFUSED { return nil }
            if code == EAGAIN { throw .notAccepted(milliseconds: timeoutMilliseconds) }
            throw .system(call: "connect", code: code)
        }
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
        return ControlClient(fd: fd)
    }

    /// Sends a request, waiting up to `timeoutMilliseconds` for room to write it; returns its id.
    @discardableResult
    public func send(_ command: PlayerCommand, timeoutMilliseconds: Int32 = 2000) throws(Problem) -> Int64 {
        let id = nextID
        nextID += 1
        guard var bytes = try? encoder.encode(ControlRequest(id: id, command: command)) else {
            throw .garbled("a request that cannot be encoded")
        }
        bytes.append(10)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    if poll(&p, 1, timeoutMilliseconds) <= 0 { throw .timeout }
                    continue
                }
                guard errno == EPIPE || errno == ECONNRESET else { throw .system(call: "send", code: errno) }
                // A player that refused the connection (it serves as many clients as it takes) said why before it
                // closed: that reply answers this request.
                do { try fill() } catch {}
                if inbox.contains(where: { if case .reply(let r) = $0 { r.id == nil } else { false } }) { return id }
                throw .closed
            }
            offset += n
        }
        return id
    }

    /// Reads what has arrived without waiting (and what an earlier call kept). Throws `.closed` when the player
    /// went away.
    public func readAvailable() throws(Problem) -> [ServerMessage] {
        try fill()
        defer { inbox.removeAll() }
        return inbox
    }

    private func fill() throws(Problem) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n == 0 { throw .closed }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { return }
                throw errno == ECONNRESET ? .closed : .system(call: "read", code: errno)
            }
            let pieces = buffer.withUnsafeBytes { framing.add(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            for piece in pieces {
                guard case .line(let line) = piece else { throw .garbled("a message over the size limit") }
                inbox.append(try decode(line))
            }
            if n < buffer.count { return }
        }
    }

    private func decode(_ line: [UInt8]) throws(Problem) -> ServerMessage {
        if let event = try? decoder.decode(ControlEvent.self, from: Data(line)) { return .event(event) }
        if let reply = try? decoder.decode(ControlReply.self, from: Data(line)) { return .reply(reply) }
        throw .garbled(String(decoding: line.prefix(80), as: UTF8.self))
    }

    /// Waits up to `timeoutMilliseconds` (-1: for ever) for the next message.
    public func receive(timeoutMilliseconds: Int32) throws(Problem) -> ServerMessage {
        while inbox.isEmpty {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, timeoutMilliseconds)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { throw .timeout }
            try fill()
        }
        return inbox.removeFirst()
    }

    /// Sends a request and waits for its reply (events that arrive first are kept for later).
    public func request(_ command: PlayerCommand, timeoutMilliseconds: Int32 = 5000) throws(Problem) -> ControlReply {
        let (earlier, reply) = try exchange(command, timeoutMilliseconds: timeoutMilliseconds)
        inbox = earlier + inbox
        return reply
    }

    /// Sends a request and waits for its reply; returns it with the messages that arrived before it, which are
    /// older than the reply. What arrived after it, which is newer, stays for `readAvailable()`: a screen shows the
    /// reply's status and then those, never the other way round.
    public func exchange(_ command: PlayerCommand, timeoutMilliseconds: Int32 = 5000) throws(Problem) -> (
        earlier: [ServerMessage], reply: ControlReply
    ) {
        let id = try send(command, timeoutMilliseconds: timeoutMilliseconds)
        var held: [ServerMessage] = []
        while true {
            let message: ServerMessage
            do {
                message = try receive(timeoutMilliseconds: timeoutMilliseconds)
            } catch {
                inbox = held + inbox
                throw error
            }
            if case .reply(let reply) = message, reply.id == id || reply.id == nil { return (held, reply) }
            held.append(message)
        }
    }
}
