import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// A file hum writes with `-o` (`hum export`, `hum ledger export`, `hum render`): the one way hum writes a file
/// someone named.
///
/// - A **regular file**, or a name that does not exist yet, is replaced atomically: hum writes a temporary file in
///   the same folder (`.NAME.tmp-XXXXXX`), syncs it, renames it over the name and syncs the folder, so the name
///   holds either the old content or the whole new one, never a part. An existing file keeps its permission bits,
///   and its owner and group where the system allows (root; a group the user is in); a file hum may not write is
///   refused, as the shell's `>` would, even when its folder is writable. A new file gets `newFileMode` less the
///   umask. A symbolic link to a regular file stays a link: the file it points to is replaced.
/// - **Anything else** (a device such as /dev/null, a FIFO, a terminal; a link to one) is written through, as it
///   is: never replaced, never truncated. `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` name a
///   descriptor hum already has: hum writes to that descriptor, at its offset and with its flags (an append stays
///   an append).
/// - A temporary file is removed when the command fails, and when a signal ends hum (`InterruptCleanup`).
final class OutputFile {
    /// The mode of a new export of the ledger or the history (`hum export`, `hum ledger export`), before the umask:
    /// readable by its owner only. An export holds everything the database holds (what time went to, goals, tags),
    /// and the database itself is kept 0600 in a 0700 folder; a backup should not be more open than what it backs
    /// up. A file that exists keeps its own mode, so `chmod` decides for a file one wants to share.
    static let privateData: mode_t = 0o600
    /// The mode of other new files (rendered audio), before the umask: what the shell's `>` gives.
    static let ordinary: mode_t = 0o666

    /// How the named file is written.
    enum Mode: Equatable {
        /// A temporary file renamed over `target` when complete.
        case replace(temporary: String, target: String)
        /// Straight into the file (not a regular file); `seekable` when it can be sought (a device like /dev/null,
        /// a descriptor onto a regular file), not for a pipe, a FIFO, a socket or an append-only descriptor.
        case through(seekable: Bool)
    }

    /// The name as given.
    let path: String
    let mode: Mode
    /// The descriptor to write to: the temporary file's, or the target's.
    private(set) var descriptor: Int32
    private var cleanupToken: Int?
    private var done = false

    /// Opens `path` for writing.
    /// - Parameter newFileMode: the permission bits of a file that does not exist yet, before the umask.
    /// - Parameter closed: the standard descriptors that were closed when hum started (`CommandContext`).
    init(path: String, newFileMode: mode_t, closed: Set<Int32> = []) throws(HumError) {
        self.path = path
        guard !path.isEmpty else { throw .usage("-o needs a file name") }
        let shown = path.clippedPath
        let writing = "cannot write \(shown)"

        // A descriptor hum already has.
        if let fd = OutputFile.descriptorNamed(by: path) {
            // A standard descriptor closed at start holds /dev/null now: it is still the closed one.
            if closed.contains(fd) { throw SystemCall.failure(EBADF, "fcntl", doing: writing) }
            descriptor = try SystemCall.check(fcntl(fd, F_DUPFD_CLOEXEC, 3), "fcntl", doing: writing)
            let copy = descriptor
            mode = .through(seekable: OutputFile.seekable(copy))
            return
        }

        var info = stat()
        if stat(path, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                throw .failure("cannot write \(shown): it is a folder; name a file in it")
            case S_IFREG:
                break
            default:
                // Written through; opened without O_CREAT or O_TRUNC, so nothing is made or cut.
                let fd = try SystemCall.check(open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), "open", doing: writing)
                var opened = stat()
                guard fstat(fd, &opened) == 0, (opened.st_mode & S_IFMT) != S_IFREG else {
                    close(fd)
                    throw .failure("cannot write \(shown): it changed while hum opened it; try again")
                }
                descriptor = fd
                mode = .through(seekable: OutputFile.seekable(fd))
                return
            }
            // A regular file hum may not write is not replaced behind its permissions' back.
            try SystemCall.check(faccessat(AT_FDCWD, path, W_OK, AT_EACCESS), "faccessat", doing: writing)
        } else if errno != ENOENT {
            throw SystemCall.failure(errno, "stat", doing: writing)
        }

        // A regular file, or a new one: replaced through a temporary file next to the file a link points to.
        let target = try OutputFile.resolveLinks(path)
        let (directory, base) = OutputFile.split(target)
        guard !base.isEmpty else { throw .usage("-o \(shown) names a folder; name a file") }
        // Signals are watched before the temporary file exists, so no moment leaves it behind.
        InterruptCleanup.shared.start()
        var template = Array(((directory == "." ? "" : directory + "/") + "." + base + ".tmp-XXXXXX").utf8CString)
        if directory == "/" { template = Array(("/." + base + ".tmp-XXXXXX").utf8CString) }
        let fd = try SystemCall.check(
            template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }, "mkstemp",
            doing: "cannot create a temporary file in \(directory.clippedPath) to write \(shown)")
        // No child process gets it (mkostemp is not in Glibc's Swift module). Cannot fail on a descriptor just made.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        descriptor = fd
        mode = .replace(temporary: temporary, target: target)
        cleanupToken = InterruptCleanup.shared.register(temporary)

        var existing = stat()
        let permissions: mode_t
        if stat(target, &existing) == 0, (existing.st_mode & S_IFMT) == S_IFREG {
            permissions = existing.st_mode & 0o7777
            // The owner and group, where allowed: root keeps both; a user can give the file a group they are in.
            // Failing both is no error: the file is the user's then, as one the shell's `>` creates would be.
            if fchown(fd, existing.st_uid, existing.st_gid) != 0 { _ = fchown(fd, uid_t.max, existing.st_gid) }
        } else {
            permissions = newFileMode & ~OutputFile.umask()
        }
        do throws(HumError) {
            try SystemCall.check(fchmod(fd, permissions), "fchmod", doing: writing)
        } catch {
            discard()
            throw error
        }
    }

    deinit { discard() }

    /// Writes all the bytes.
    func write(_ bytes: UnsafeRawBufferPointer) throws(HumError) {
        guard let base = bytes.baseAddress else { return }
        if let code = StandardStreams.writeAll(descriptor, base, bytes.count) {
            discard()
            throw SystemCall.failure(code, "write", doing: "cannot write \(path.visible)")
        }
    }

    func write(_ bytes: [UInt8]) throws(HumError) {
        var failure: HumError? = nil
        bytes.withUnsafeBytes { raw in
            do throws(HumError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Completes the file: for a replaced file, sync, rename over the name, sync the folder; for a file written
    /// through, sync where that means something.
    func commit() throws(HumError) {
        guard !done else { return }
        let writing = "cannot write \(path.visible)"
        switch mode {
        case .through:
            done = true
            defer { close(descriptor) }
            // Devices, FIFOs and pipes cannot be synced (EINVAL): their data is handed over already.
            if fsync(descriptor) != 0, errno != EINVAL, errno != EROFS {
                throw SystemCall.failure(errno, "fsync", doing: writing)
            }
        case .replace(let temporary, let target):
            do throws(HumError) {
                try SystemCall.check(fsync(descriptor), "fsync", doing: writing)
                let fd = descriptor
                descriptor = -1
                try SystemCall.check(close(fd), "close", doing: writing)
                let renamed: Int32
                if let token = cleanupToken {
                    renamed = InterruptCleanup.shared.unregister(token) { rename(temporary, target) }
                    cleanupToken = nil
                } else {
                    renamed = rename(temporary, target)
                }
                try SystemCall.check(renamed, "rename", doing: "cannot put the new \(path.visible) in place")
            } catch {
                discard()
                throw error
            }
            done = true
            let syncing = "cannot sync the folder of \(path.visible)"
            let folder = try SystemCall.check(
                open(OutputFile.split(target).directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC), "open", doing: syncing)
            defer { close(folder) }
            // Some file systems cannot sync a folder (EINVAL); the rename is then as durable as they make it.
            if fsync(folder) != 0, errno != EINVAL { throw SystemCall.failure(errno, "fsync", doing: syncing) }
        }
    }

    /// Gives up: a temporary file is removed and the named file is left as it was. A file written through keeps
    /// what was written (a FIFO's reader has it already).
    func discard() {
        guard !done else { return }
        done = true
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        if case .replace(let temporary, _) = mode {
            if let token = cleanupToken {
                InterruptCleanup.shared.unregister(token) { _ = unlink(temporary) }
                cleanupToken = nil
            } else {
                unlink(temporary)
            }
        }
    }

    /// Writes what `body` produces to `path`, in blocks of about a megabyte, and completes the file; on any error
    /// the file is left as it was. `body` gets a function to call with each piece.
    static func write(
        _ path: String, newFileMode: mode_t, closed: Set<Int32> = [],
        _ body: (_ write: ([UInt8]) throws -> Void) throws -> Void
    ) throws {
        let file = try OutputFile(path: path, newFileMode: newFileMode, closed: closed)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        do {
            try body { bytes in
                if buffer.isEmpty && bytes.count >= 1 << 20 {
                    try file.write(bytes)  // one large piece: written as it is, without a copy
                    return
                }
                buffer.append(contentsOf: bytes)
                if buffer.count >= 1 << 20 {
                    try file.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try file.write(buffer)
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }

    /// Writes what `body` produces to the file named by `-o` (as `write(_:newFileMode:_:)`), or to stdout when
    /// there is none, a megabyte at a time. On stdout, the first failed write stops `body` at once (it throws the
    /// `OutputFailure`), so a long export on a full disk ends early, with exit 1.
    static func write(
        to path: String?, context: CommandContext, newFileMode: mode_t,
        _ body: (_ write: ([UInt8]) throws -> Void) throws -> Void
    ) throws {
        if let path { return try write(path, newFileMode: newFileMode, closed: context.closedDescriptors, body) }
        var buffer: [UInt8] = []
        func flush() throws {
            context.stdout.write(String(decoding: buffer, as: UTF8.self))
            buffer.removeAll(keepingCapacity: true)
            try context.checkOutput()
        }
        try body { bytes in
            buffer.append(contentsOf: bytes)
            if buffer.count >= 1 << 20 { try flush() }
        }
        try flush()
    }

    // MARK: what a name names

    /// The descriptor of this process a name stands for: `/dev/stdout`, `/dev/stderr`, `/dev/stdin`, `/dev/fd/N`,
    /// `/proc/self/fd/N`, `/proc/thread-self/fd/N`, `/proc/PID/fd/N` (this process), directly or through links.
    static func descriptorNamed(by path: String) -> Int32? {
        var current = path
        for _ in 0..<40 {
            if let fd = descriptorPattern(current) { return fd }
            guard let next = readLink(current) else { return nil }
            current = next
        }
        return nil
    }

    private static func descriptorPattern(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return 0
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default: break
        }
        let prefixes = ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", "/proc/\(getpid())/fd/"]
        for prefix in prefixes where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            if !rest.isEmpty, rest.count <= 9, rest.allSatisfy({ $0.isASCII && $0.isNumber }) { return Int32(rest) }
        }
        return nil
    }

    /// The target of a symbolic link, made absolute against the link's folder; nil when `path` is not a link.
    private static func readLink(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if target.hasPrefix("/") { return target }
        guard let slash = path.lastIndex(of: "/") else { return target }
        return String(path[...slash]) + target
    }

    /// The file a chain of links ends at (the name itself when it is not a link), so that replacing it keeps the
    /// link. A loop of links is refused.
    static func resolveLinks(_ path: String) throws(HumError) -> String {
        var current = path
        for _ in 0..<40 {
            guard let next = readLink(current) else { return current }
            current = next
        }
        throw SystemCall.failure(ELOOP, "readlink", doing: "cannot write \(path.visible)")
    }

    /// The folder and the last name of a path: `("/a", "b")` for `/a/b`, `("/", "b")` for `/b`, `(".", "b")` for
    /// `b`.
    static func split(_ path: String) -> (directory: String, base: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }

    private static func seekable(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, flags & O_APPEND == 0 else { return false }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        guard type != S_IFIFO, type != S_IFSOCK else { return false }
        return lseek(fd, 0, SEEK_CUR) >= 0
    }

    /// The process's umask, read without changing it (`/proc/self/status`), else by setting it back at once.
    static func umask() -> mode_t {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            defer { close(fd) }
            var bytes = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &bytes, bytes.count)
            if n > 0 {
                let text = String(decoding: bytes[0..<n], as: UTF8.self)
                for line in text.split(separator: "\n") where line.hasPrefix("Umask:") {
                    if let value = mode_t(String(line.dropFirst(6).filter { $0 != " " && $0 != "\t" }), radix: 8) {
                        return value
                    }
                }
            }
        }
        let value = Glibc.umask(0o022)
        Glibc.umask(value)
        return value
    }
}
