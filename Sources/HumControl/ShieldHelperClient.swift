import CLinux
import FoundationEssentials
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// hum's end of strong mode's helper (`hum-shieldd`, docs/shields.md): one connection per request, one JSON line
/// each way, every wait bounded. The helper attributes the request to this process's uid by itself.
public final class ShieldHelperClient: StrongShieldLink {
    /// Why the helper could not be asked.
    public enum Problem: UserFacingError, Equatable {
        /// No helper listens at the socket (not installed, or not running).
        case absent(String)
        case timeout(String)
        case garbled(String)
        case system(call: String, code: Int32)

        public var message: String {
            switch self {
            case .absent(let path):
                return
                    "no strong-mode helper answers at \(path); install it with 'sudo make install-shield' and start "
                    + "it (systemctl enable --now hum-shieldd)"
            case .timeout(let path): return "the strong-mode helper at \(path) did not answer in time; try again"
            case .garbled(let what):
                return "the strong-mode helper sent something this hum does not understand (\(what))"
            case .system(let call, let code):
                return "cannot talk to the strong-mode helper: \(call): \(String(cString: strerror(code)))"
            }
        }
    }

    public let path: String
    public let timeoutMilliseconds: Int32

    /// The helper's socket: `$HUM_SHIELDD_SOCKET` when set (tests, a second helper), else `/run/hum-shieldd.sock`.
    public static func socketPath(environment: [String: String]) -> String {
        if let path = environment["HUM_SHIELDD_SOCKET"], path.hasPrefix("/") { return path }
        return StrongShield.defaultSocket
    }

    /// `timeoutMilliseconds` bounds each of connect, send and the wait for the reply. The helper resolves new names
    /// before it answers a `set`, so its default is generous.
    public init(path: String, timeoutMilliseconds: Int32 = 15_000) {
        self.path = path
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    public func send(_ wanted: StrongShieldWanted) throws -> StrongShieldReply {
        try checked(exchange(.set(wanted)))
    }

    public func status() throws -> StrongShieldReply { try checked(exchange(.status)) }

    private func checked(_ reply: StrongShieldReply) throws -> StrongShieldReply {
        guard reply.ok else { throw StrongShieldRefusal(reply.error ?? "the helper refused without a reason") }
        return reply
    }

    /// Sends `request` and returns the reply, refusals included.
    public func exchange(_ request: StrongShieldRequest) throws(Problem) -> StrongShieldReply {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(request).map({ $0 }) else {
            throw .garbled("a request that cannot be encoded")
        }
        line.append(10)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", code: errno) }
        defer { close(fd) }
        var limit = timeval(
            tv_sec: Int(timeoutMilliseconds / 1000), tv_usec: Int(timeoutMilliseconds % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        guard ControlClient.fill(&address, path) else { throw .system(call: "connect", code: ENAMETOOLONG) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if connected != 0 {
            let code = errno
            if code == ENOENT || code == ECONNREFUSED { throw .absent(path) }
            if code == EAGAIN || code == EINPROGRESS { throw .timeout(path) }
            throw .system(call: "connect", code: code)
        }
        var offset = 0
        while offset < line.count {
            let n = line.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw errno == EAGAIN ? .timeout(path) : .system(call: "send", code: errno)
            }
            offset += n
        }
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n < 0 {
                if errno == EINTR { continue }
                throw errno == EAGAIN ? .timeout(path) : .system(call: "recv", code: errno)
            }
            if n == 0 { break }
            if let end = buffer[..<n].firstIndex(of: 10) {
                reply += buffer[..<end]
                break
            }
            reply += buffer[..<n]
            guard reply.count < 16 << 20 else { throw .garbled("a reply over 16 MB") }
        }
        guard !reply.isEmpty else { throw .garbled("an empty reply") }
        guard let decoded = try? JSONDecoder().decode(StrongShieldReply.self, from: Data(reply)) else {
            throw .garbled("a reply that is not JSON of protocol version \(StrongShield.version)")
        }
        return decoded
    }
}
