#if canImport(Glibc)
    import Glibc
#endif

/// A bare connection to a Unix socket, for tests of clients that break the control protocol (garbage, oversized
/// lines, a reader that never reads) where `ControlClient` would keep to it.
public func rawConnect(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard withAddress(path, { connect(fd, $0, $1) }) == 0 else {
        close(fd)
        throw RawSocketError(path: path)
    }
    return fd
}

/// A connection that does not wait: the descriptor, or nil with errno set (EAGAIN when the listener's queue of
/// connections waiting is full). For tests that fill that queue.
public func rawConnectNow(_ path: String) -> Int32? {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { return nil }
    guard withAddress(path, { connect(fd, $0, $1) }) == 0 else {
        let code = errno
        close(fd)
        errno = code
        return nil
    }
    return fd
}

/// A bare listening Unix socket at `path`, for tests that play the player's part with scripted bytes (messages in
/// an order or a grouping a real player produces only by chance). The caller accepts and closes.
public func rawListen(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard withAddress(path, { bind(fd, $0, $1) }) == 0, listen(fd, 1) == 0 else {
        close(fd)
        throw RawSocketError(path: path)
    }
    return fd
}

private func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        Array(path.utf8.prefix(raw.count - 1)).withUnsafeBytes { raw.copyMemory(from: $0) }
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}

public struct RawSocketError: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "cannot connect to \(path)" }
}
