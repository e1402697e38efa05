#if canImport(Glibc)
    import Glibc
#endif

/// A bare connection to a Unix socket, for tests of clients that break the control protocol (garbage, oversized
/// lines, a reader that never reads) where `ControlClient` would keep to it.
public func rawConnect(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        Array(path.utf8.prefix(raw.count - 1)).withUnsafeBytes { raw.copyMemory(from: $0) }
    }
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard rc == 0 else {
        close(fd)
        throw RawSocketError(path: path)
    }
    return fd
}

public struct RawSocketError: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "cannot connect to \(path)" }
}
