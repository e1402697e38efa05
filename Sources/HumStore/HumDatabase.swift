import CSQLite
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why the database could not be used.
public enum StoreError: Error, Sendable {
    /// A SQLite call failed.
    case sqlite(SQLiteError)
    /// The file at the path is damaged or not a database at all. It was left untouched.
    case notADatabase(path: String, detail: String)
    /// The file at the path is a database of another program. It was left untouched.
    case foreign(path: String, detail: String)
    /// The database was written by a newer hum.
    case newerSchema(path: String, version: Int64)
    /// A system call on the path failed.
    case system(call: String, path: String, errno: Int32)
    /// A round is unknown or cannot change that way.
    case round(String)
    /// A round id was used again for another round, or a round finished again differently (a refusal: nothing changed).
    case roundConflict(String)

    public var message: String {
        let restore = "move it aside, then restore from an export with 'hum ledger import FILE'"
        switch self {
        case .sqlite(let e) where e.isCorruption:
            return "the database is damaged (\(e.message)); it was left as it is: \(restore)"
        case .sqlite(let e):
            return "database error: \(e.description)"
        case .notADatabase(let path, let detail):
            return "\(path) is not a hum database (\(detail)); it was left untouched: \(restore)"
        case .foreign(let path, let detail):
            return
                "\(path) belongs to another program (\(detail)); it was left untouched: \(restore), or set XDG_DATA_HOME"
        case .newerSchema(let path, let version):
            return
                "\(path) was written by a newer hum (schema \(version), this one knows \(Schema.latestVersion)); upgrade hum"
        case .system(let call, let path, let code):
            return "\(call) failed on \(path): \(String(cString: strerror(code)))"
        case .round(let why), .roundConflict(let why):
            return why
        }
    }

    /// A store error from any error thrown by this module.
    public static func wrap(_ error: any Error) -> (any Error) {
        if let e = error as? SQLiteError { return StoreError.sqlite(e) }
        return error
    }
}

/// What a reconciliation did: passes and rounds whose process had died.
public struct ReconcileReport: Sendable, Equatable {
    public struct SettledPass: Sendable, Equatable {
        public var id: String
        public var label: String?
        public var used: Int64
        public var returned: Int64
    }
    public var settledPasses: [SettledPass] = []
    public var interruptedRounds: [String] = []
    /// Commands of dead passes that are still running: the caller stops them.
    public var orphans: [ProcessOwner] = []
    public var isEmpty: Bool { settledPasses.isEmpty && interruptedRounds.isEmpty && orphans.isEmpty }
}

/// A round as the timer starts it.
public struct RoundStart: Sendable, Equatable {
    public var id: String
    public var kind: RoundKind
    public var start: Timestamp
    public var plannedSeconds: Int64
    /// The instant it is due to end (start + planned), persisted so a dead process leaves a record.
    public var deadline: Timestamp?
    public var mix: [MixItem]
    public var goal: String?
    public var tags: [String]

    public init(
        id: String, kind: RoundKind, start: Timestamp, plannedSeconds: Int64, deadline: Timestamp? = nil,
        mix: [MixItem] = [], goal: String? = nil, tags: [String] = []
    ) {
        self.id = id
        self.kind = kind
        self.start = start
        self.plannedSeconds = plannedSeconds
        self.deadline = deadline
        self.mix = mix
        self.goal = goal
        self.tags = tags
    }
}

/// How a round finished, and what it earned.
public struct RoundOutcome: Sendable, Equatable {
    public var round: RoundRecord
    /// The grant of a completed focus round (`.exists` on a replay); nil for other rounds.
    public var grant: LedgerDecision?
}

/// The SQLite database of the ledger and the history (`$XDG_DATA_HOME/hum/hum.db`).
///
/// One connection per instance. Every read-check-write runs in `BEGIN IMMEDIATE`; `busy_timeout`, WAL and
/// `synchronous=FULL` are set on every open. docs/ledger.md documents the schema and the rules.
public final class HumDatabase: LedgerStore {
    public let path: String
    public let calendar: LocalCalendar
    public let probe: any ProcessProbe
    /// This database's device id, written in every entry it makes.
    public private(set) var device: String = ""
    let db: Connection
    private var rng = SystemRandomNumberGenerator()

    /// How long a writer waits for another's lock before giving up.
    public static let busyTimeoutMilliseconds: Int32 = 15_000

    /// Opens (creating when absent) the database at `path`. A file there that is not hum's is left byte for byte as
    /// it was, and the error says how to restore.
    public init(path: String, calendar: LocalCalendar = .system, probe: any ProcessProbe = LinuxProcessProbe()) throws {
        self.path = path
        self.calendar = calendar
        self.probe = probe
        do {
            try HumDatabase.prepareFile(path)
            db = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
            try db.check(sqlite3_busy_timeout(db.handle, HumDatabase.busyTimeoutMilliseconds), "sqlite3_busy_timeout")
            try retryingBusy { try db.execute("PRAGMA journal_mode=WAL") }
            try db.execute("PRAGMA synchronous=FULL")
            try db.execute("PRAGMA foreign_keys=ON")
            try migrate()
            device = try db.scalarText("SELECT value FROM meta WHERE key = 'device'") ?? ""
        } catch {
            throw StoreError.wrap(error)
        }
    }

    /// Opens the database at the XDG path.
    public convenience init(paths: HumPaths, calendar: LocalCalendar = .system) throws {
        try self.init(path: paths.databasePath, calendar: calendar)
    }

    // MARK: Opening

    /// Makes the directory (0700) and the file (0600) when absent; checks an existing file is hum's without writing.
    static func prepareFile(_ path: String) throws {
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else { throw StoreError.system(call: "stat", path: path, errno: errno) }
            let directory = parent(of: path)
            try makeDirectories(directory)
            let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            if fd >= 0 {
                close(fd)
            } else if errno != EEXIST {
                throw StoreError.system(call: "open", path: path, errno: errno)
            }
            return
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError.notADatabase(path: path, detail: "not a regular file")
        }
        if info.st_size > 0 { try probeExisting(path) }
        // Ours: keep it private.
        if info.st_uid == getuid() {
            if info.st_mode & 0o077 != 0 { chmod(path, 0o600) }
            let directory = parent(of: path)
            var dirInfo = stat()
            if stat(directory, &dirInfo) == 0, dirInfo.st_uid == getuid(), dirInfo.st_mode & 0o077 != 0 {
                chmod(directory, 0o700)
            }
        }
    }

    /// Looks at an existing file through a read-only connection, so nothing can be written to a file that is not ours.
    static func probeExisting(_ path: String) throws {
        let probe: Connection
        do {
            probe = try Connection(path: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX)
            try probe.check(sqlite3_busy_timeout(probe.handle, busyTimeoutMilliseconds), "sqlite3_busy_timeout")
        } catch {
            throw StoreError.notADatabase(path: path, detail: error.message)
        }
        do {
            let appID = try probe.scalarInt("PRAGMA application_id") ?? 0
            let version = try probe.scalarInt("PRAGMA user_version") ?? 0
            let objects = try probe.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0
            if appID == Int64(Schema.applicationID) {
                if version > Schema.latestVersion { throw StoreError.newerSchema(path: path, version: version) }
                return
            }
            if appID == 0 && objects == 0 && version == 0 { return }  // an empty database: ours to set up
            throw StoreError.foreign(
                path: path,
                detail: appID == 0
                    ? "a SQLite database with \(objects) objects and no hum marker"
                    : "a SQLite database with application id \(appID)")
        } catch let error as SQLiteError {
            throw StoreError.notADatabase(path: path, detail: error.message)
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func makeDirectories(_ directory: String) throws {
        var info = stat()
        if stat(directory, &info) == 0 { return }
        let up = parent(of: directory)
        if up != directory { try makeDirectories(up) }
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw StoreError.system(call: "mkdir", path: directory, errno: errno)
        }
    }

    private func retryingBusy(_ body: () throws -> Void) throws {
        var attempt = 0
        while true {
            do {
                try body()
                return
            } catch let e as SQLiteError
                where (e.primaryCode == SQLITE_BUSY || e.primaryCode == SQLITE_LOCKED) && attempt < 200
            {
                attempt += 1
                usleep(10_000)
            }
        }
    }

    private func migrate() throws {
        let version = try db.scalarInt("PRAGMA user_version") ?? 0
        if version == Schema.latestVersion { return }
        try db.immediate {
            let current = try db.scalarInt("PRAGMA user_version") ?? 0
            if current > Schema.latestVersion { throw StoreError.newerSchema(path: path, version: current) }
            for step in Int(current)..<Schema.migrations.count {
                try db.execute(Schema.migrations[step])
            }
            if current == 0 {
                try db.execute("PRAGMA application_id = \(Schema.applicationID)")
                try db.run("INSERT INTO meta(key, value) VALUES ('device', ?)", [.text(Identifier.make(using: &rng))])
                try db.run("INSERT INTO meta(key, value) VALUES ('created', ?)", [.text(calendar.now().rfc3339)])
            }
            try db.execute("PRAGMA user_version = \(Schema.latestVersion)")
        }
    }

    func newID() -> String { Identifier.make(using: &rng) }

    /// Runs `body`, turning SQLite errors into `StoreError`.
    func guarded<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw StoreError.wrap(error) }
    }

    // MARK: Settings

    public func config() throws -> LedgerConfig {
        try guarded { try loadConfig() }
    }

    func loadConfig() throws -> LedgerConfig {
        var config = LedgerConfig()
        try db.query("SELECT key, value FROM config") { row in
            try? config.set(row.text(0), to: row.text(1))  // a bad value written by hand falls back to the default
        }
        return config
    }

    /// Validates and stores a setting; throws `LedgerConfig.ConfigError` for a bad key or value.
    public func setConfig(_ key: String, to value: String) throws {
        var config = LedgerConfig()
        try config.set(key, to: value)
        let normalised = try config.text(for: key)
        try guarded {
            try db.run(
                "INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [.text(key), .text(normalised)])
        }
    }

    // MARK: Ledger

    static let entryColumns = """
        id, key, kind, amount, at_epoch, at_offset, device, payload, label, reason, round_id, pass_id, requested, cut, \
        cap, used, forfeit, reserve, allowance
        """

    static func entry(_ row: Statement) -> LedgerEntry {
        var e = LedgerEntry(
            id: row.text(0), key: row.optionalText(1), kind: EntryKind(rawValue: row.text(2)) ?? .adjustment,
            amount: row.int(3), at: Timestamp(epochSeconds: row.int(4), offsetSeconds: Int32(clamping: row.int(5))),
            device: row.text(6), payload: row.text(7))
        e.label = row.optionalText(8)
        e.reason = row.optionalText(9)
        e.roundID = row.optionalText(10)
        e.passID = row.optionalText(11)
        e.requested = row.optionalInt(12)
        e.cut = row.optionalInt(13)
        e.cap = row.optionalInt(14)
        e.used = row.optionalInt(15)
        e.forfeit = row.optionalBool(16)
        e.reserve = row.optionalInt(17)
        e.allowance = row.optionalInt(18)
        return e
    }

    func insert(_ e: LedgerEntry) throws {
        try db.run(
            """
            INSERT INTO entries(id, key, kind, amount, at, at_epoch, at_offset, local_day, iso_week, device, payload, label,
                reason, round_id, pass_id, requested, cut, cap, used, forfeit, reserve, allowance)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(e.id), .optional(e.key), .text(e.kind.rawValue), .int(e.amount), .text(e.at.rfc3339),
                .int(e.at.epochSeconds), .int(Int64(e.at.offsetSeconds)), .text(e.localDay.description),
                .text(e.isoWeek.description), .text(e.device), .text(e.payload), .optional(e.label),
                .optional(e.reason),
                .optional(e.roundID), .optional(e.passID), .optional(e.requested), .optional(e.cut), .optional(e.cap),
                .optional(e.used), .optional(e.forfeit), .optional(e.reserve), .optional(e.allowance),
            ])
    }

    func entry(where clause: String, _ arguments: [SQLValue]) throws -> LedgerEntry? {
        var found: LedgerEntry? = nil
        try db.query("SELECT \(HumDatabase.entryColumns) FROM entries WHERE \(clause) LIMIT 1", arguments) {
            found = HumDatabase.entry($0)
        }
        return found
    }

    func rawBalance() throws -> Int64 { try db.scalarInt("SELECT balance FROM totals WHERE id = 1") ?? 0 }

    func earned(on day: CivilDate) throws -> Int64 {
        try db.scalarInt(
            "SELECT COALESCE(SUM(amount), 0) FROM entries WHERE kind = 'grant' AND local_day = ?",
            [.text(day.description)]) ?? 0
    }

    func reserveUsed(in week: IsoWeek) throws -> Int64 {
        try db.scalarInt(
            "SELECT COALESCE(SUM(reserve), 0) FROM entries WHERE kind = 'emergency' AND iso_week = ?",
            [.text(week.description)]) ?? 0
    }

    func loadOpenPass() throws -> OpenPass? {
        var pass: OpenPass? = nil
        try db.query(
            """
            SELECT id, hold_entry_id, held, forfeit, label, started_epoch, started_offset, deadline_epoch, used
            FROM passes WHERE state = 'open' LIMIT 1
            """
        ) { row in
            let started = Timestamp(epochSeconds: row.int(5), offsetSeconds: Int32(clamping: row.int(6)))
            pass = OpenPass(
                id: row.text(0), holdEntryID: row.text(1), heldSeconds: row.int(2), forfeit: row.int(3) != 0,
                label: row.optionalText(4), started: started, deadline: calendar.stamp(row.int(7)),
                usedSeconds: row.int(8))
        }
        return pass
    }

    func snapshot(for request: LedgerRequest, now: Timestamp) throws -> LedgerSnapshot {
        var s = LedgerSnapshot()
        s.rawBalance = try rawBalance()
        switch request {
        case .grant: s.earnedToday = try earned(on: now.localDate)
        case .emergency: s.emergencyUsedThisWeek = try reserveUsed(in: now.localDate.isoWeek)
        case .openPass: s.openPass = try loadOpenPass()
        case .settlePass(let passID, _): s.hold = try entry(where: "kind = 'hold' AND pass_id = ?", [.text(passID)])
        case .spend, .adjust: break
        }
        if let key = request.key { s.existing = try entry(where: "key = ?", [.text(key)]) }
        return s
    }

    public func record(_ request: LedgerRequest) throws -> LedgerDecision {
        try guarded { try db.immediate { try recordLocked(request, command: nil, settledBy: "owner") } }
    }

    /// Decides and writes one request; the caller holds the write lock.
    func recordLocked(_ request: LedgerRequest, command: String?, settledBy: String) throws -> LedgerDecision {
        let now = calendar.now()
        let snapshot = try snapshot(for: request, now: now)
        let decision = try LedgerRules.decide(
            request, snapshot: snapshot, config: loadConfig(), now: now,
            newID: newID(), device: device)
        guard case .record(let entry) = decision else { return decision }
        try insert(entry)
        switch entry.kind {
        case .hold:
            let owner = probe.current()
            try db.run(
                """
                INSERT INTO passes(id, hold_entry_id, label, held, forfeit, started, started_epoch, started_offset,
                    deadline_epoch, state, used, heartbeat_epoch, owner_pid, owner_start, owner_boot, command)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', 0, ?, ?, ?, ?, ?)
                """,
                [
                    .optional(entry.passID), .text(entry.id), .optional(entry.label), .int(-entry.amount),
                    .int((entry.forfeit ?? false) ? 1 : 0), .text(now.rfc3339), .int(now.epochSeconds),
                    .int(Int64(now.offsetSeconds)), .int(now.epochSeconds - entry.amount), .int(now.epochSeconds),
                    .int(Int64(owner.pid)), .int(owner.startTicks), .text(owner.bootID), .optional(command),
                ])
        case .settle:
            try db.run(
                "UPDATE passes SET state = 'settled', used = ?, settled_by = ? WHERE id = ?",
                [.optional(entry.used), .text(settledBy), .optional(entry.passID)])
        default: break
        }
        return decision
    }

    public func bankStatus() throws -> BankStatus {
        try guarded {
            try db.reading {
                let now = calendar.now()
                let config = try loadConfig()
                return BankStatus(
                    rawBalance: try rawBalance(), earnedToday: try earned(on: now.localDate),
                    dailyCap: config.dailyCapSeconds,
                    emergencyLeft: max(0, config.emergencyWeeklySeconds - (try reserveUsed(in: now.localDate.isoWeek))),
                    emergencyWeekly: config.emergencyWeeklySeconds, openPass: try loadOpenPass())
            }
        }
    }

    public func openPass() throws -> OpenPass? { try guarded { try loadOpenPass() } }

    /// Every entry in the order written.
    public func entries() throws -> [LedgerEntry] {
        try guarded {
            var all: [LedgerEntry] = []
            try db.query("SELECT \(HumDatabase.entryColumns) FROM entries ORDER BY seq") {
                all.append(HumDatabase.entry($0))
            }
            return all
        }
    }

    /// Entries written in [from, to) (epoch seconds; nil is open), by time, and the balance just before `from`.
    public func entries(from: Int64?, to: Int64?) throws -> (opening: Int64, entries: [LedgerEntry]) {
        try guarded {
            try db.reading {
                let lower = from ?? Int64.min
                let upper = to ?? Int64.max
                var list: [LedgerEntry] = []
                try db.query(
                    """
                    SELECT \(HumDatabase.entryColumns) FROM entries WHERE at_epoch >= ? AND at_epoch < ?
                    ORDER BY at_epoch, seq
                    """, [.int(lower), .int(upper)]
                ) { list.append(HumDatabase.entry($0)) }
                let after =
                    try db.scalarInt("SELECT COALESCE(SUM(amount), 0) FROM entries WHERE at_epoch >= ?", [.int(lower)])
                    ?? 0
                return (try rawBalance() - after, list)
            }
        }
    }

    /// Calls `body` with every entry, by time, without holding them all in memory.
    public func forEachEntry(from: Int64?, to: Int64?, _ body: (LedgerEntry) throws -> Void) throws {
        try guarded {
            try db.reading {
                try db.query(
                    """
                    SELECT \(HumDatabase.entryColumns) FROM entries WHERE at_epoch >= ? AND at_epoch < ?
                    ORDER BY at_epoch, seq
                    """, [.int(from ?? Int64.min), .int(to ?? Int64.max)]
                ) { try body(HumDatabase.entry($0)) }
            }
        }
    }

    // MARK: Passes

    /// Opens a pass: holds `seconds` and records the pass as owned by this process, in one transaction.
    public func openPass(id: String, seconds: Int64, label: String?, forfeit: Bool, command: [String]) throws
        -> LedgerDecision
    {
        try guarded {
            try db.immediate {
                try recordLocked(
                    .openPass(passID: id, seconds: seconds, label: label, forfeit: forfeit),
                    command: command.joined(separator: " "), settledBy: "owner")
            }
        }
    }

    /// Records the time used so far, and the command's process once started. False when the pass is no longer open
    /// (settled by a reconciliation that thought this process dead): the caller should stop.
    @discardableResult
    public func heartbeatPass(id: String, usedSeconds: Int64, child: ProcessOwner? = nil) throws -> Bool {
        try guarded {
            try db.run(
                """
                UPDATE passes SET used = MIN(held, MAX(used, ?)), heartbeat_epoch = ?,
                    child_pid = COALESCE(?, child_pid), child_start = COALESCE(?, child_start)
                WHERE id = ? AND state = 'open'
                """,
                [
                    .int(usedSeconds), .int(calendar.clock.nowEpochSeconds()), .optional(child.map { Int64($0.pid) }),
                    .optional(child?.startTicks), .text(id),
                ])
            return db.changes > 0
        }
    }

    /// Settles a pass once: the used time is spent, the rest returned unless forfeit. A replay with the same used
    /// time returns `.exists`.
    public func settlePass(id: String, usedSeconds: Int64) throws -> LedgerDecision {
        try record(.settlePass(passID: id, usedSeconds: usedSeconds))
    }

    /// The settlement of a pass, if it was settled.
    public func settlement(ofPass id: String) throws -> LedgerEntry? {
        try guarded { try entry(where: "kind = 'settle' AND pass_id = ?", [.text(id)]) }
    }

    // MARK: Reconciliation

    /// Settles open passes and interrupts running rounds whose process died. Cheap when there is nothing to do
    /// (two indexed reads). Call on the start of any hum command.
    public func reconcile() throws -> ReconcileReport {
        try guarded {
            let pending =
                try db.scalarInt(
                    """
                    SELECT (SELECT count(*) FROM passes WHERE state = 'open') + (SELECT count(*) FROM rounds WHERE status = 'running')
                    """) ?? 0
            guard pending > 0 else { return ReconcileReport() }
            return try db.immediate { try reconcileLocked() }
        }
    }

    func reconcileLocked() throws -> ReconcileReport {
        var report = ReconcileReport()
        struct Dead {
            var id: String
            var used: Int64
            var child: ProcessOwner?
        }
        var deadPasses: [Dead] = []
        try db.query(
            """
            SELECT id, used, owner_pid, owner_start, owner_boot, child_pid, child_start FROM passes WHERE state = 'open'
            """
        ) { row in
            let owner = ProcessOwner(pid: Int32(clamping: row.int(2)), startTicks: row.int(3), bootID: row.text(4))
            guard !probe.isAlive(owner) else { return }
            let child = row.optionalInt(5).map {
                ProcessOwner(pid: Int32(clamping: $0), startTicks: row.optionalInt(6) ?? 0, bootID: owner.bootID)
            }
            deadPasses.append(Dead(id: row.text(0), used: row.int(1), child: child))
        }
        for dead in deadPasses {
            let decision = try recordLocked(
                .settlePass(passID: dead.id, usedSeconds: dead.used), command: nil,
                settledBy: "reconcile")
            let e = decision.entry
            report.settledPasses.append(.init(id: dead.id, label: e.label, used: e.used ?? 0, returned: e.amount))
            if let child = dead.child, probe.isAlive(child) { report.orphans.append(child) }
        }
        var deadRounds: [(String, Int64)] = []
        try db.query(
            "SELECT id, owner_pid, owner_start, owner_boot, heartbeat_epoch FROM rounds WHERE status = 'running'"
        ) { row in
            let owner = ProcessOwner(pid: Int32(clamping: row.int(1)), startTicks: row.int(2), bootID: row.text(3))
            if !probe.isAlive(owner) { deadRounds.append((row.text(0), row.int(4))) }
        }
        for (id, heartbeat) in deadRounds {
            let end = calendar.stamp(heartbeat)
            try db.run(
                """
                UPDATE rounds SET status = 'interrupted', end_at = ?, end_epoch = ?, end_offset = ?
                WHERE id = ? AND status = 'running'
                """, [.text(end.rfc3339), .int(end.epochSeconds), .int(Int64(end.offsetSeconds)), .text(id)])
            report.interruptedRounds.append(id)
        }
        return report
    }

    // MARK: Merging

    /// Merges entries from another replica by id (a union), all or nothing. Returns how many were added and how many
    /// were already there; throws `LedgerMerge.Conflict` when an entry disagrees with one here.
    public func merge(_ incoming: [LedgerEntry]) throws -> (added: Int, present: Int) {
        try guarded {
            try db.immediate {
                var added = 0
                var present = 0
                for e in incoming {
                    let byID = try entry(where: "id = ?", [.text(e.id)])
                    let byKey = try e.key.flatMap { try entry(where: "key = ?", [.text($0)]) }
                    switch try LedgerMerge.classify(e, byID: byID, byKey: byKey) {
                    case .skip: present += 1
                    case .add:
                        do {
                            try insert(e)
                        } catch let error as SQLiteError where error.primaryCode == SQLITE_CONSTRAINT {
                            throw LedgerMerge.Conflict(
                                id: e.id, reason: "breaks a rule of the ledger here (\(error.message))")
                        }
                        added += 1
                    }
                }
                return (added, present)
            }
        }
    }

    // MARK: Checking

    /// Verifies `PRAGMA integrity_check` and every invariant of the ledger; one line per failure, empty when all holds.
    public func check() throws -> [String] {
        try guarded {
            var failures: [String] = []
            try db.query("PRAGMA integrity_check") { row in
                let line = row.text(0)
                if line != "ok" { failures.append("integrity: \(line)") }
            }
            try db.reading {
                var all: [LedgerEntry] = []
                try db.query("SELECT \(HumDatabase.entryColumns) FROM entries ORDER BY seq") {
                    all.append(HumDatabase.entry($0))
                }
                let count = try db.scalarInt("SELECT entries FROM totals WHERE id = 1") ?? -1
                if count != Int64(all.count) {
                    failures.append("the stored entry count \(count) differs from \(all.count) entries")
                }
                var open: [String] = []
                try db.query("SELECT id FROM passes WHERE state = 'open'") { open.append($0.text(0)) }
                var unsettled: [String] = []
                try db.query(
                    """
                    SELECT p.id FROM passes p WHERE p.state = 'settled'
                    AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.kind = 'settle' AND e.pass_id = p.id)
                    """
                ) { unsettled.append($0.text(0)) }
                for id in unsettled { failures.append("pass \(id) is marked settled but has no settle entry") }
                var rounds: [LedgerAudit.RoundFacts] = []
                try db.query("SELECT id, kind, status, earned FROM rounds") { row in
                    rounds.append(
                        .init(
                            id: row.text(0), kind: RoundKind(rawValue: row.text(1)) ?? .focus,
                            status: RoundStatus(rawValue: row.text(2)) ?? .running, earned: row.int(3)))
                }
                failures += LedgerAudit.audit(
                    entries: all, device: device, openPassIDs: open,
                    cachedBalance: try rawBalance(), rounds: rounds)
            }
            return failures
        }
    }
}

extension Error {
    /// A one-line message for any error of the store.
    public var message: String {
        switch self {
        case let e as StoreError: return e.message
        case let e as SQLiteError: return StoreError.sqlite(e).message
        case let e as LedgerRefusal: return e.message
        case let e as LedgerMerge.Conflict: return e.message
        case let e as LedgerConfig.ConfigError: return e.message
        default: return "\(self)"
        }
    }
}
