import CSQLite
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The SQLite database of the ledger and the history (`$XDG_DATA_HOME/hum/hum.db`).
///
/// One connection per instance. Every read-check-write runs in `BEGIN IMMEDIATE`; `busy_timeout`, WAL and
/// `synchronous=FULL` are set on every open. docs/ledger.md documents the schema and the rules.
public final class HumDatabase: LedgerStore {
    public let path: String
    public let calendar: LocalCalendar
    public let probe: any ProcessProbe
    /// This database's device id, written in every entry it makes.
    public internal(set) var device: String = ""
    /// True when opened with `init(readingOnly:…)`: every write fails, and nothing was reconciled or migrated.
    public let isReadOnly: Bool
    let db: Connection
    var rng = SystemRandomNumberGenerator()
    /// Set while a merge applies other devices' lines: what it writes is not journalled again.
    var applyingMerge = false
    /// Why writes that go to the sync journal are refused (`refuseSyncWrites`).
    var syncRefusal: String?

    /// How long a writer waits for another's lock before giving up.
    public static let busyTimeoutMilliseconds: Int32 = 15_000

    /// Opens (creating when absent) the database at `path`. A file there that is not hum's is left byte for byte as
    /// it was, and the error says how to restore. The calendar gives the instants and local days written in entries
    /// and rounds; the probe names this process as the owner of a pass or a round and tells whether an owner is
    /// alive. The machine's own are in HumSystem (`LocalCalendar.system`, `LinuxProcessProbe`).
    public init(path: String, calendar: LocalCalendar, probe: any ProcessProbe) throws {
        self.path = path
        self.calendar = calendar
        self.probe = probe
        isReadOnly = false
        do {
            var generator = SystemRandomNumberGenerator()
            try HumDatabase.prepareFile(
                path, device: Identifier.make(using: &generator), created: calendar.now().rfc3339)
            db = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
            try db.check(sqlite3_busy_timeout(db.handle, HumDatabase.busyTimeoutMilliseconds), "sqlite3_busy_timeout")
            try retryingBusy { try db.execute("PRAGMA journal_mode=WAL") }
            try db.execute("PRAGMA synchronous=FULL")
            try db.execute("PRAGMA foreign_keys=ON")
            try migrate()
            device = try db.scalarText("SELECT value FROM meta WHERE key = 'device'") ?? ""
            HumDatabase.tighten(path)
            db.beforeCommit = { [unowned self] in try self.journalPending() }
            db.afterCommit = { [unowned self] in try? self.flushJournal() }
        } catch {
            throw StoreError.wrap(error)
        }
    }

    /// Opens the database at `path` for reading only, writing nothing beside it: for a ledger whose file or folder
    /// cannot be written (a read-only mount, a backup disk, a snapshot), which `isReadOnlyLocation` tells. The file
    /// is checked as on every open (a regular file of this user, hum's, of this schema); see `openReadOnly` for how a
    /// WAL database is read where its journal files cannot be made.
    public init(readingOnly path: String, calendar: LocalCalendar, probe: any ProcessProbe) throws {
        self.path = path
        self.calendar = calendar
        self.probe = probe
        isReadOnly = true
        do {
            db = try HumDatabase.openReadOnly(path)
            device = try db.scalarText("SELECT value FROM meta WHERE key = 'device'") ?? ""
        } catch {
            throw StoreError.wrap(error)
        }
    }

    func retryingBusy(_ body: () throws -> Void) throws {
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

    func newID() -> String { Identifier.make(using: &rng) }

    /// Runs `body`, turning SQLite errors into `StoreError`.
    func guarded<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw StoreError.wrap(error) }
    }
}
