import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// How many living processes of the machine have an argument equal to `argument` (read from /proc; nothing is
/// signalled). Zombies do not count.
public func commandsRunning(containing argument: String) -> Int {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    var count = 0
    for pid in entries where Int32(pid) != nil {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { continue }
        let args = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        if args.contains(argument), !isZombie(statText(pid)) { count += 1 }
    }
    return count
}

/// A number for a test's `sleep` that no other test run on the machine uses (the tests find their commands' processes
/// by it among every process of the machine): `base` followed by this test process's pid.
public func uniqueSleep(_ base: String) -> String { base + "0" + String(getpid()) }

/// True when process `pid` no longer runs: gone (ESRCH), or dead and not yet reaped (a zombie).
public func processIsGone(_ pid: pid_t) -> Bool {
    if kill(pid, 0) != 0 { return errno == ESRCH }
    return statText(String(pid)).map(isZombie) ?? true
}

private func statText(_ pid: String) -> String? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
    return String(decoding: data, as: UTF8.self)
}

/// The state field of /proc/PID/stat (after the command name's closing parenthesis) says Z or X.
private func isZombie(_ stat: String?) -> Bool {
    guard let stat, let close = stat.lastIndex(of: ")") else { return false }
    let state = stat[stat.index(after: close)...].split(separator: " ").first
    return state == "Z" || state == "X"
}
