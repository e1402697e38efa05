import CSQLite
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why the database could not be used. Each case reads as one line that names what happened and what to do.
public enum StoreError: Error, Sendable {
    /// A SQLite call failed.
    case sqlite(SQLiteError)
    /// The file at the path is damaged or not a database at all. It was left untouched.
    case notADatabase(path: String, detail: String)
    /// The file at the path is a database of another program. It was left untouched.
    case foreign(path: String, detail: String)
    /// The file at the path is empty: a truncated copy (hum's own databases never are). It was left untouched.
    case emptyFile(path: String)
    /// The file at the path belongs to another user. It was left untouched.
    case ownedByAnother(path: String, uid: uid_t)
    /// The file or the folder (`what`) at the path cannot be written; `fileSystem` when it is on a read-only file
    /// system (a read-only mount); `ledger`, the database there when there is one (reading it still works).
    case readOnly(path: String, what: String, fileSystem: Bool, ledger: String?)
    /// A read-only database written by an older hum: it must be upgraded (written) before this one can read it.
    case readOnlyOlder(path: String, version: Int64)
    /// A read-only database whose WAL journal has no `-shm` index beside it, on a folder where SQLite cannot make one.
    case unreadableJournal(path: String)
    /// The database was written by a newer hum.
    case newerSchema(path: String, version: Int64)
    /// A system call on the path failed.
    case system(call: String, path: String, errno: Int32)
    /// A round is unknown or cannot change that way.
    case round(String)
    /// A round id was used again for another round, or a round finished again differently (a refusal: nothing changed).
    case roundConflict(String)
    /// An import would leave the ledger failing `hum ledger check`; nothing was imported.
    case importBreaks(LedgerAudit.Failure)

    public var message: String {
        let restore = "move it aside, then restore from an export with 'hum ledger import FILE'"
        switch self {
        case .sqlite(let e):
            return StoreError.describe(e)
        case .notADatabase(let path, let detail):
            return "\(path) is not a hum database (\(detail)); it was left untouched: \(restore)"
        case .foreign(let path, let detail):
            return
                "\(path) belongs to another program (\(detail)); it was left untouched: \(restore), or set "
                + "XDG_DATA_HOME"
        case .emptyFile(let path):
            return "\(path) is empty (0 bytes), as a truncated copy is; it was left untouched: \(restore)"
        case .ownedByAnother(let path, let uid):
            return
                "\(path) belongs to another user (uid \(uid)); hum keeps each user's ledger private: run hum as that "
                + "user, or set XDG_DATA_HOME to a folder of yours"
        case .readOnly(let path, let what, let fileSystem, let ledger):
            let why = "\(what) \(path) is read-only\(fileSystem ? " (a read-only file system)" : " for you")"
            let fix = "make it writable ('chmod u+w'), or set XDG_DATA_HOME"
            guard let ledger else {
                return "\(why), and hum keeps its ledger (and the journal beside it) there: \(fix)"
            }
            return
                "the ledger \(ledger) is read-only: \(why); commands that only read it (bank, history, report, export, "
                + "ledger check) still work; to change it, \(fix)"
        case .readOnlyOlder(let path, let version):
            return
                "\(path) is read-only and holds \(version == 0 ? "no ledger yet" : "a ledger of an older hum (schema \(version))"), "
                + "which this hum must upgrade before it reads it: open it once where it can be written, or copy it "
                + "to a folder of yours and set XDG_DATA_HOME"
        case .unreadableJournal(let path):
            return
                "\(path) is read-only and its journal \(path)-wal has no \(path)-shm beside it, which SQLite cannot make "
                + "in a read-only folder: copy hum.db and hum.db-wal to a folder of yours and set XDG_DATA_HOME"
        case .newerSchema(let path, let version):
            return
                "\(path) was written by a newer hum (schema \(version), this one knows \(Schema.latestVersion)); "
                + "upgrade hum"
        case .system(let call, let path, let code):
            return "\(call) failed on \(path): \(String(cString: strerror(code)))"
        case .round(let why), .roundConflict(let why):
            return why
        case .importBreaks(let failure):
            return "\(failure.message); nothing was imported"
        }
    }

    /// One line for a failed SQLite call: what happened to the database and what to do, never the SQL.
    static func describe(_ e: SQLiteError) -> String {
        let path = e.path ?? "the database"
        let detail = e.sqliteMessage.split(whereSeparator: \.isNewline).joined(separator: " ")
        if e.systemErrno == ENOSPC || e.systemErrno == EDQUOT {
            return "the disk holding \(path) is full; nothing was written: free some space and try again"
        }
        switch e.primaryCode {
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            return
                "the database \(path) is damaged (\(detail)); it was left as it is: move it aside, then restore from "
                + "an export with 'hum ledger import FILE'"
        case SQLITE_BUSY, SQLITE_LOCKED:
            return
                "the database \(path) stayed locked by another process for "
                + "\(HumDatabase.busyTimeoutMilliseconds / 1000) s; nothing was changed: try again ('fuser "
                + "\(path)' names who holds it)"
        case SQLITE_FULL:
            return "the disk holding \(path) is full; nothing was written: free some space and try again"
        case SQLITE_READONLY:
            return
                "the ledger \(path) is read-only: it cannot be written (\(detail)); make it and its folder writable "
                + "for you, or set XDG_DATA_HOME"
        case SQLITE_CANTOPEN:
            return
                "cannot open the database \(path) (\(detail)); check that its folder exists and is yours, or set "
                + "XDG_DATA_HOME"
        case SQLITE_PERM, SQLITE_AUTH:
            return "access to the database \(path) was denied (\(detail)); check its owner and mode"
        case SQLITE_IOERR:
            return
                "reading or writing the database \(path) failed (\(detail)); check the disk, then run 'hum "
                + "ledger check'"
        case SQLITE_NOMEM:
            return "out of memory while using the database \(path); close some programs and try again"
        case SQLITE_CONSTRAINT:
            return
                "the database \(path) refused a change that breaks its rules (\(detail)); nothing was written: run "
                + "'hum ledger check'"
        default:
            let name = String(cString: sqlite3_errstr(e.code))
            return
                "unexpected database error on \(path) (\(name): \(detail)); nothing was written: run 'hum ledger check'"
        }
    }

    /// A store error from any error thrown by this module.
    public static func wrap(_ error: any Error) -> (any Error) {
        if let e = error as? SQLiteError { return StoreError.sqlite(e) }
        return error
    }
}

extension StoreError: UserFacingError {
    /// A round reused or finished again differently, and an import that would break the ledger's invariants, are
    /// refusals (nothing changed); every other store error is a failure.
    public var kind: FailureKind {
        switch self {
        case .roundConflict, .importBreaks: return .refused
        default: return .failure
        }
    }
}

/// A SQLite error that escaped `StoreError.wrap` reads as the store's own.
extension SQLiteError: UserFacingError {
    public var message: String { StoreError.describe(self) }
}

extension StoreError {
    /// A SQLite database that is not hum's: named by its application id, or by its size when it has none.
    static func foreignDatabase(path: String, applicationID: Int64, objects: Int64) -> StoreError {
        .foreign(
            path: path,
            detail: applicationID == 0
                ? "a SQLite database with \(objects) objects and no hum marker"
                : "a SQLite database with application id \(applicationID)")
    }
}
