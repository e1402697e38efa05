import HumCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// One `hum focus` at a time per user: an exclusive flock on `$XDG_STATE_HOME/hum/focus.lock`, which holds the
/// owner's pid and start time so a second one can name it. The kernel drops the lock when the process dies, so a
/// killed timer never blocks the next.
final class FocusLock {
    private let descriptor: Int32

    init(paths: HumPaths, startedAt: Timestamp) throws(PlayerError) {
        let path = paths.stateDirectory + "/focus.lock"
        try? FileManager.default.createDirectory(
            atPath: paths.stateDirectory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .failure(
                "cannot create \(path): \(String(cString: strerror(errno))); check that the folder is writable")
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            var buffer = [UInt8](repeating: 0, count: 256)
            let n = pread(fd, &buffer, buffer.count, 0)
            close(fd)
            let parts =
                n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self).split(whereSeparator: \.isWhitespace) : []
            let who = parts.count >= 2 ? "pid \(parts[0]), started \(parts[1])" : "see \(path)"
            throw .failure(
                "another hum focus is already running (\(who)); stop it first (q in its terminal, or kill "
                    + "\(parts.first ?? "it"))"
            )
        }
        let text = "\(getpid()) \(startedAt.rfc3339)\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        descriptor = fd
    }

    deinit {
        _ = ftruncate(descriptor, 0)
        close(descriptor)
    }
}
