import FoundationEssentials
import HumCore
import HumStore

#if canImport(Glibc)
    import Glibc
#endif

/// What the ledger commands share: opening the database, mapping its errors to exit codes, parsing amounts and
/// dates, and printing.
enum LedgerCLI {
    /// The last database opened, so the reconciliation's connection is reused by the command (one open per process).
    /// In-process tests run commands on several threads, each on its own path; the lock guards the reference only.
    private final class LastOpened: @unchecked Sendable {
        private var lock = pthread_mutex_t()
        private var db: HumDatabase? = nil
        init() { pthread_mutex_init(&lock, nil) }
        func get(_ path: String) -> HumDatabase? {
            pthread_mutex_lock(&lock)
            defer { pthread_mutex_unlock(&lock) }
            return db?.path == path ? db : nil
        }
        func set(_ value: HumDatabase) {
            pthread_mutex_lock(&lock)
            db = value
            pthread_mutex_unlock(&lock)
        }
    }
    private static let lastOpened = LastOpened()

    /// Opens the database at `$XDG_DATA_HOME/hum/hum.db`.
    static func open(_ context: CommandContext) throws -> HumDatabase {
        let path = context.paths.databasePath
        if let db = lastOpened.get(path) { return db }
        do {
            let db = try HumDatabase(path: path)
            lastOpened.set(db)
            return db
        } catch {
            throw map(error)
        }
    }

    /// Runs `body`, mapping refusals to exit 3, bad settings to exit 2 and everything else to exit 1.
    static func run<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw map(error) }
    }

    static func map(_ error: any Error) -> HumError {
        switch error {
        case let e as HumError: return e
        case let e as LedgerRefusal: return .refused(e.message)
        case StoreError.roundConflict(let why): return .refused(why)
        case let e as LedgerConfig.ConfigError: return .usage(e.message)
        default: return .failure(error.message)
        }
    }

    /// A positive amount of time in whole seconds (`25m`, `90s`, `1h30m`; a bare number is minutes).
    static func seconds(_ text: String, what: String) throws -> Int64 {
        let ms: Int64
        do { ms = try DurationText.parseMilliseconds(text) } catch {
            throw HumError.usage("\(what) \"\(text)\" is not a duration; try 25m, 90s or 1h30m")
        }
        let s = (ms + 500) / 1000
        guard s >= 1 else { throw HumError.usage("\(what) must be at least 1s, got \"\(text)\"") }
        return s
    }

    /// A signed amount (`+5m`, `-90s`, `5m`).
    static func signedSeconds(_ text: String, what: String) throws -> Int64 {
        var body = Substring(text)
        var sign: Int64 = 1
        if body.first == "+" {
            body.removeFirst()
        } else if body.first == "-" {
            body.removeFirst()
            sign = -1
        }
        return sign * (try seconds(String(body), what: what))
    }

    /// `--since`/`--until`: `today`, `yesterday`, `YYYY-MM-DD` (local midnight) or an RFC 3339 instant. An `--until`
    /// date means the end of that day.
    static func bound(_ text: String?, option: String, endOfDay: Bool, calendar: LocalCalendar) throws -> Int64? {
        guard let text else { return nil }
        let today = calendar.now().localDate
        var date: CivilDate? = nil
        switch text {
        case "today": date = today
        case "yesterday": date = today.adding(days: -1)
        default: date = CivilDate(text: text)
        }
        if let date { return calendar.startOfDay(endOfDay ? date.adding(days: 1) : date) }
        if let t = Timestamp(rfc3339: text) { return t.epochSeconds }
        throw HumError.usage(
            "--\(option) \"\(text)\" is not a date; try 2025-03-30, today, yesterday or 2025-03-30T09:00:00+01:00")
    }

    static func format(_ seconds: Int64) -> String { DurationText.format(seconds: seconds) }
    static func signed(_ seconds: Int64) -> String { seconds > 0 ? "+" + format(seconds) : format(seconds) }

    /// The width of the terminal for tables: `COLUMNS`, then the terminal, then 80.
    static func width(_ context: CommandContext) -> Int {
        if let columns = context.environment["COLUMNS"].flatMap({ Int($0) }), columns >= 40 { return min(columns, 400) }
        if context.stdoutIsTerminal {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 { return Int(size.ws_col) }
        }
        return 80
    }

    static func json<T: Encodable>(_ value: T, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }

    /// A text cut to `width` characters with an ellipsis.
    static func fit(_ text: String, _ width: Int) -> String {
        guard width > 0 else { return "" }
        if text.count <= width { return text.padding(width) }
        return String(text.prefix(max(0, width - 1))) + "…"
    }

    static func rightAligned(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}

/// The reconciliation every hum command runs first: passes and rounds whose process died are settled and
/// interrupted, and commands left running by a dead pass are stopped.
public enum LedgerHook {
    /// Call on the start of any hum command. Does nothing when there is no database yet; never fails the command
    /// (a damaged database is reported by the ledger commands themselves).
    public static func reconcileAtStart(context: CommandContext) {
        var info = stat()
        guard stat(context.paths.databasePath, &info) == 0, info.st_size > 0 else { return }
        guard let db = try? LedgerCLI.open(context), let report = try? db.reconcile(), !report.isEmpty else { return }
        for pass in report.settledPasses {
            let on = pass.label.map { " on \($0)" } ?? ""
            context.warn(
                "settled the pass\(on) whose process died: \(LedgerCLI.format(pass.used)) used, \(LedgerCLI.format(pass.returned)) back in the bank"
            )
        }
        for round in report.interruptedRounds {
            context.warn("round \(round) was recorded as interrupted: its timer process died")
        }
        // The commands a dead pass started (and their children) carry HUM_PASS_ID in their environment.
        let probe = LinuxProcessProbe()
        var stopped = Set<Int32>()
        for pass in report.settledPasses {
            for orphan in probe.processes(withEnvironment: "\(PassCommand.environmentKey)=\(pass.id)")
            where probe.isAlive(orphan) {
                kill(orphan.pid, SIGTERM)
                stopped.insert(orphan.pid)
            }
        }
        for orphan in report.orphans where !stopped.contains(orphan.pid) && probe.isAlive(orphan) {
            kill(orphan.pid, SIGTERM)
            stopped.insert(orphan.pid)
        }
        if !stopped.isEmpty {
            context.warn(
                "stopped \(stopped.count) process\(stopped.count == 1 ? "" : "es") left running by the dead pass")
        }
    }
}
