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
            return "the database is damaged (\(e.sqliteMessage)); it was left as it is: \(restore)"
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

extension StoreError: UserFacingError {
    /// A round reused or finished again differently is a refusal (nothing changed); every other store error is a
    /// failure.
    public var kind: FailureKind {
        if case .roundConflict = self { return .refused }
        return .failure
    }
}

/// A SQLite error that escaped `StoreError.wrap` reads as the store's own.
extension SQLiteError: UserFacingError {
    public var message: String { StoreError.sqlite(self).message }
}
