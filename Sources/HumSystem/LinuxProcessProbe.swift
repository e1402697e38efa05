import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Tells whether a process is alive from /proc: same boot, the pid exists, started at the same time, not a zombie.
public struct LinuxProcessProbe: ProcessProbe {
    public init() {}

    public func current() -> ProcessOwner {
        let pid = getpid()
        return ProcessOwner(
            pid: pid, startTicks: LinuxProcessProbe.stat(pid)?.start ?? 0, bootID: LinuxProcessProbe.bootID())
    }

    public func owner(of pid: Int32) -> ProcessOwner? {
        guard let stat = LinuxProcessProbe.stat(pid) else { return nil }
        return ProcessOwner(pid: pid, startTicks: stat.start, bootID: LinuxProcessProbe.bootID())
    }

    public func isAlive(_ owner: ProcessOwner) -> Bool {
        guard owner.pid > 0, owner.bootID == LinuxProcessProbe.bootID() else { return false }
        guard let stat = LinuxProcessProbe.stat(owner.pid) else { return false }
        return stat.start == owner.startTicks && stat.state != "Z" && stat.state != "X"
    }

    static func bootID() -> String {
        (readSmallFile("/proc/sys/kernel/random/boot_id") ?? "").trimmingCharacters()
    }

    /// Fields 3 (state) and 22 (start time) of /proc/PID/stat.
    static func stat(_ pid: Int32) -> (state: Character, start: Int64)? {
        ProcStat.read(pid).map { ($0.state, $0.start) }
    }

    static func readSmallFile(_ path: String, limit: Int = 4096) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: limit)
        var total = 0
        while total < buffer.count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, $0.count - total) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { break }
            total += n
        }
        return String(decoding: buffer[0..<total], as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
