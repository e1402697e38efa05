import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Reading and writing /etc/hosts for the hosts backend (docs/shields.md, "Where nftables is missing"). Every call is
/// checked; a failure is one line saying what failed.
enum HostsFile {
    /// The file's bytes; empty when it does not exist. Only a regular file is read.
    static func read(_ path: String) throws(StrongShieldRefusal) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return [] }
            throw failure("cannot read \(path)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot stat \(path)") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StrongShieldRefusal("\(path) is not a regular file; the helper leaves it alone")
        }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw failure("cannot read \(path)") }
            if n == 0 { return out }
            out += buffer[..<n]
            guard out.count <= 64 << 20 else { throw StrongShieldRefusal("\(path) is over 64 MiB; not touching it") }
        }
    }

    /// Writes `bytes` as the new content of `path`.
    ///
    /// A regular file is replaced atomically: a temporary file in the same directory gets the bytes, the file's mode
    /// and owner, an fsync, and is renamed over it; then the directory is fsynced. A reader sees the old file or
    /// the new one, never a mix. When `path` is a mount point (a bind mount, as containers and systemd's
    /// ReadWritePaths= make of /etc/hosts, and as the tests do) the rename fails with EBUSY, and when its
    /// directory is read-only around it the temporary file cannot be made (EROFS): the file is then rewritten in
    /// place, with one write from its start, a truncate to the new length and an fsync. That is not atomic (a
    /// reader at that instant may see a mix), which is the best a mount point allows.
    static func write(_ path: String, _ bytes: [UInt8]) throws(StrongShieldRefusal) {
        var info = stat()
        var exists = true
        if lstat(path, &info) != 0 {
            guard errno == ENOENT else { throw failure("cannot stat \(path)") }
            exists = false
        } else if info.st_mode & S_IFMT != S_IFREG {
            throw StrongShieldRefusal("\(path) is not a regular file; the helper leaves it alone")
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var template = Array("\(directory == "/" ? "" : directory)/.hosts.hum-shieldd.XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else {
            if errno == EROFS, exists { return try inPlace(path, bytes) }
            throw failure("cannot make a temporary file in \(directory)")
        }
        let temporary = String(cString: template)
        var done = false
        defer {
            if !done { unlink(temporary) }
        }
        try fill(fd, bytes, mode: exists ? info.st_mode & 0o7777 : 0o644, owner: exists ? info : nil, what: temporary)
        if rename(temporary, path) != 0 {
            let error = errno
            guard error == EBUSY || error == EXDEV, exists else {
                errno = error
                throw failure("cannot rename \(temporary) to \(path)")
            }
            unlink(temporary)
            done = true
            return try inPlace(path, bytes)
        }
        done = true
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else { throw failure("cannot open \(directory) to fsync it") }
        defer { close(directoryFD) }
        guard fsync(directoryFD) == 0 else { throw failure("cannot fsync \(directory)") }
    }

    /// Gives the temporary file its bytes, mode and owner, and fsyncs it; closes it in every case.
    private static func fill(_ fd: Int32, _ bytes: [UInt8], mode: mode_t, owner: stat?, what: String)
        throws(StrongShieldRefusal)
    {
        defer { close(fd) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        guard fchmod(fd, mode) == 0 else { throw failure("cannot set the mode of \(what)") }
        if let owner, fchown(fd, owner.st_uid, owner.st_gid) != 0 { throw failure("cannot set the owner of \(what)") }
        try writeAll(fd, bytes, at: 0, what: what)
        guard fsync(fd) == 0 else { throw failure("cannot fsync \(what)") }
    }

    /// Rewrites `path` in place: for a mount point, which cannot be renamed over.
    private static func inPlace(_ path: String, _ bytes: [UInt8]) throws(StrongShieldRefusal) {
        let fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot open \(path) to write it") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw StrongShieldRefusal("\(path) is not a regular file; the helper leaves it alone")
        }
        try writeAll(fd, bytes, at: 0, what: path)
        guard ftruncate(fd, off_t(bytes.count)) == 0 else { throw failure("cannot truncate \(path)") }
        guard fsync(fd) == 0 else { throw failure("cannot fsync \(path)") }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int, what: String)
        throws(StrongShieldRefusal)
    {
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, off_t(offset + done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { throw failure("cannot write \(what)") }
            done += n
        }
    }

    private static func failure(_ what: String) -> StrongShieldRefusal {
        StrongShieldRefusal("\(what): \(String(cString: strerror(errno)))")
    }
}
