import CLinux
import HumCore
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The second process of a pass or an emergency with a command: hum started again (`/proc/self/exe`, the same
/// command line, `HUM_WATCHDOG` in its environment) in a session of its own, so neither the keyboard, a hang-up
/// nor a signal to hum's process group reaches it. It holds the reading end of a pipe whose only writer is the hum
/// that runs the pass, and sleeps in poll on it.
///
/// - That hum ends normally: it writes `done` (settled) and the watchdog exits.
/// - It could not write the settlement (a full disk): it writes `used N`, and the watchdog retries settling N
///   seconds for ten minutes; after that the next hum command settles the pass by the safe rule.
/// - It dies (kill -9, a crash): the pipe closes, the watchdog wakes at once, stops the command's processes
///   (SIGTERM, SIGKILL 5 s later) and settles the time used up to that moment.
/// - It stops answering (SIGSTOP): 10 s after the deadline and the grace period the watchdog stops the command
///   and settles the whole time.
///
/// Both killed at once: the next hum command settles the pass from its row (see `HumDatabase.usedByDeadPass`) and
/// stops the processes that carry the pass's id; for an emergency, it stops the command its row records.
public final class Watchdog {
    public static let environmentKey = "HUM_WATCHDOG"
    /// The tag of a lift's watchdog (`HUM_SHIELD_LIFT=<shield>`): no command to stop, a shield to relock.
    public static let liftKey = "HUM_SHIELD_LIFT"
    /// How long after the deadline and the grace period the watchdog stops a command whose hum stopped answering.
    static let backstop = 10.0
    /// How long the watchdog retries a settlement that cannot be written.
    public static let retryFor = 600.0

    /// What the watchdog is told when it starts.
    struct Spec: Equatable {
        /// The pass to settle; nil for an emergency (nothing to settle).
        var passID: String?
        /// The environment entry the command's processes carry.
        var tag: String
        /// Monotonic seconds: the pass's zero, the same clock in both processes.
        var start: Double
        var limit: Double
        var grace: Double

        var encoded: String { "v1 \(passID ?? "-") \(tag) \(start) \(limit) \(grace)" }

        /// The entry id of the emergency draw whose command this is (its tag is `HUM_EMERGENCY_ID=<id>`), if any.
        var emergencyID: String? {
            let prefix = EmergencyRun.environmentKey + "="
            guard passID == nil, tag.hasPrefix(prefix), tag.count > prefix.count else { return nil }
            return String(tag.dropFirst(prefix.count))
        }

        /// The shield a lift's watchdog relocks (its tag is `HUM_SHIELD_LIFT=<shield>/<lift id>`), if any.
        var liftedShield: String? {
            let prefix = Watchdog.liftKey + "="
            guard tag.hasPrefix(prefix), tag.count > prefix.count else { return nil }
            return tag.dropFirst(prefix.count).split(separator: "/", maxSplits: 1).first.map(String.init)
        }

        /// The lift a lift's watchdog ends on the record before it relocks (its deadline there is rounded up).
        var liftID: String? {
            let prefix = Watchdog.liftKey + "="
            guard tag.hasPrefix(prefix) else { return nil }
            let parts = tag.dropFirst(prefix.count).split(separator: "/", maxSplits: 1)
            return parts.count == 2 ? String(parts[1]) : nil
        }

        init(passID: String?, tag: String, start: Double, limit: Double, grace: Double) {
            self.passID = passID
            self.tag = tag
            self.start = start
            self.limit = limit
            self.grace = grace
        }

        init?(_ text: String) {
            let words = text.split(separator: " ").map(String.init)
            guard words.count == 6, words[0] == "v1", words[2].contains("="), let start = Double(words[3]),
                let limit = Double(words[4]), let grace = Double(words[5]), start.isFinite, limit.isFinite,
                limit >= 0, grace.isFinite, grace >= 0
            else { return nil }
            self.init(passID: words[1] == "-" ? nil : words[1], tag: words[2], start: start, limit: limit, grace: grace)
        }
    }

    let process: ChildProcess
    private var writer: Int32

    /// Starts the watchdog; nil (after a warning) when it cannot be: the pass then runs watched by hum alone.
    static func start(words: [String], spec: Spec, environment: PlayerEnvironment) -> Watchdog? {
        var ends: [Int32] = [0, 0]
        guard hum_pipe_cloexec(&ends) == 0 else {
            environment.warn("no watchdog for this pass (pipe2 failed: \(String(cString: strerror(errno))))")
            return nil
        }
        defer { Glibc.close(ends[0]) }
        do {
            let process = try ChildProcess(
                argv: ["hum"] + words,
                options: .init(
                    environment: ["\(environmentKey)=\(spec.encoded)"], newSession: true,
                    descriptors: [(ends[0], Int32(3))], quiet: true, program: "/proc/self/exe"))
            return Watchdog(process: process, writer: ends[1])
        } catch {
            Glibc.close(ends[1])
            environment.warn("no watchdog for this pass (\(error.message))")
            return nil
        }
    }

    private init(process: ChildProcess, writer: Int32) {
        self.process = process
        self.writer = writer
    }

    /// The command started: the group it leads, and its leader's start time (which makes the group id safe to use).
    func commandStarted(group: pid_t, leaderStart: Int64?) {
        tell("child \(group) \(leaderStart ?? -1)")
    }

    /// The pass is settled (or there was nothing to settle): the watchdog exits.
    func done() {
        tell("done")
        close()
    }

    /// The settlement could not be written: the watchdog retries it.
    func couldNotSettle(used: Int64) {
        tell("used \(used)")
        close()
    }

    private func tell(_ line: String) {
        guard writer >= 0 else { return }
        let bytes = Array((line + "\n").utf8)
        // A line is far below PIPE_BUF: written whole or not at all. A watchdog that died gives EPIPE: ignored.
        _ = bytes.withUnsafeBytes { raw in Self.tolerate { Int32(write(writer, raw.baseAddress!, raw.count)) } }
    }

    private func close() {
        guard writer >= 0 else { return }
        Glibc.close(writer)
        writer = -1
    }

    // MARK: the watchdog process

    /// The watchdog's whole life (see the type's comment). Returns its exit code.
    public static func run(_ text: String, label: String, environment: PlayerEnvironment) -> Int32 {
        let input: Int32 = 3
        var info = stat()
        guard let spec = Spec(text), fstat(input, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO else {
            environment.stderr.write("hum: \(environmentKey) is set by hum for its own use; unset it and try again\n")
            return ExitCode.usage
        }
        var group: pid_t? = nil
        var leaderStart: Int64? = nil
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let now = environment.monotonic() - spec.start
            let backstop = spec.limit + spec.grace + Self.backstop
            if now >= backstop {
                return takeOver(spec, group: group, leaderStart: leaderStart, ownerDied: false, label, environment)
            }
            var fd = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let ready = Self.tolerate { poll(&fd, 1, Int32(((backstop - now) * 1000).rounded(.up))) }
            guard ready > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { raw in
                Self.tolerate { Int32(read(input, raw.baseAddress!, raw.count)) }
            }
            if n <= 0 {
                return takeOver(spec, group: group, leaderStart: leaderStart, ownerDied: true, label, environment)
            }
            pending += buffer[0..<Int(n)]
            while let newline = pending.firstIndex(of: 10) {
                let words = String(decoding: pending[..<newline], as: UTF8.self).split(separator: " ")
                pending.removeSubrange(...newline)
                switch words.first {
                case "done": return ExitCode.success
                case "used":
                    guard let passID = spec.passID, words.count == 2, let used = Int64(words[1]) else { continue }
                    return settle(passID, used: used, environment: environment, retryFor: retryFor)
                case "child":
                    guard words.count == 3, let g = Int32(words[1]), g > 0, let s = Int64(words[2]) else { continue }
                    group = g
                    leaderStart = s >= 0 ? s : nil
                default: continue
                }
            }
        }
    }

    /// The hum running the pass died or stopped answering: stop the command, settle what it used.
    private static func takeOver(
        _ spec: Spec, group: pid_t?, leaderStart: Int64?, ownerDied: Bool, _ label: String,
        _ environment: PlayerEnvironment
    ) -> Int32 {
        if let shield = spec.liftedShield { return relock(shield, spec, ownerDied: ownerDied, environment) }
        let now = environment.monotonic() - spec.start
        // Without the leader's start time the group id cannot be trusted: only the environment entry is used.
        let tree = ProcessTree(group: leaderStart == nil ? nil : group, leaderStart: leaderStart, tag: spec.tag)
        let found = tree.members()
        // The command ran until now unless it never started (hum died before starting it).
        let used = group != nil || !found.isEmpty ? Int64(min(spec.limit, max(0, now)).rounded()) : 0
        let why = ownerDied ? "died" : "stopped answering"
        environment.stderr.write(
            "hum: watchdog: the hum running \(label) \(why); stopping \(found.count) "
                + "process\(found.count == 1 ? "" : "es")\n"
        )
        tree.stop(grace: spec.grace)
        if let entryID = spec.emergencyID {
            // Stopped: the next hum command has nothing left to stop (if this cannot be written, it looks anyway).
            try? Self.database(environment).endEmergencyRun(entryID: entryID, by: "watchdog")
        }
        guard let passID = spec.passID else { return ExitCode.success }
        return settle(passID, used: used, environment: environment, retryFor: retryFor)
    }

    /// Settles the pass, retrying every 2 s for `retryFor` seconds while the database cannot be written.
    static func settle(_ passID: String, used: Int64, environment: PlayerEnvironment, retryFor: Double)
        -> Int32
    {
        let start = environment.monotonic()
        var lastError = ""
        repeat {
            do {
                let db = try Self.database(environment)
                let entry = try db.settlePass(id: passID, usedSeconds: used, settledBy: "watchdog").entry
                environment.stderr.write(
                    "hum: watchdog: pass settled: \(DurationText.format(seconds: entry.used ?? used)) used, "
                        + "\(DurationText.format(seconds: entry.amount)) back in the bank\n"
                )
                return ExitCode.success
            } catch is LedgerRefusal {
                return ExitCode.success  // settled already, by the next hum command's reconciliation
            } catch {
                lastError = (error as? any UserFacingError)?.message ?? "\(error)"
            }
            sleep(2)
        } while environment.monotonic() - start < retryFor
        environment.stderr.write(
            "hum: watchdog: the pass could not be settled (\(lastError)); the next hum command will\n")
        return ExitCode.failure
    }

    /// The ledger, opened as it is (the watchdog settles one pass; the next hum command reconciles the rest).
    static func database(_ environment: PlayerEnvironment) throws -> HumDatabase {
        try HumDatabase(
            path: environment.paths.databasePath, calendar: environment.calendar, probe: LinuxProcessProbe())
    }

    /// A call that returns -1 and sets errno, retried on EINTR; its result otherwise.
    private static func tolerate(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }
}
