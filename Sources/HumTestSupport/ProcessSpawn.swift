import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Starts `argv` (an absolute path first) in a process group of its own, as a shell starts a job, with no signal
/// blocked; returns its pid. The caller kills and reaps it.
///
/// A program copied a moment ago can be busy for exec (ETXTBSY) while a child that another test spawned at that
/// instant still holds the copy's descriptor; that child lets go as soon as it execs, so the spawn is retried for up
/// to 5 s.
public func spawnInOwnGroup(_ argv: [String]) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawnattr_setpgroup(&attributes, 0)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK))
    let cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { for p in cargs { free(p) } }
    var pid: pid_t = 0
    var rc: Int32 = 0
    _ = eventually(within: 5) {
        rc = posix_spawn(&pid, argv[0], nil, &attributes, cargs, environ)
        return rc != ETXTBSY
    }
    guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
    return pid
}

/// The state letter of /proc/PID/stat (`T` stopped, `S` sleeping); nil when the process is gone.
public func processState(_ pid: pid_t) -> Character? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
    let line = String(decoding: data, as: UTF8.self)
    guard let close = line.lastIndex(of: ")") else { return nil }
    return line[line.index(after: close)...].first { $0 != " " }
}
