import CSQLite
import HumCore

/// A failed SQLite call: which call, its result code, SQLite's message and the SQL it ran (never the bound values).
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    public var code: Int32
    public var call: String
    /// What SQLite said (`sqlite3_errmsg`); `message` is the sentence for people.
    public var sqliteMessage: String
    public var sql: String?
    /// The database file of the connection, when known: the messages for people name it.
    public var path: String? = nil
    /// The operating system's error behind it (`sqlite3_system_errno`), 0 when none: tells a full disk behind an
    /// I/O error.
    public var systemErrno: Int32 = 0

    /// The primary result code (`SQLITE_BUSY` for `SQLITE_BUSY_SNAPSHOT`, …).
    public var primaryCode: Int32 { code & 0xFF }

    /// True when SQLite found the file damaged or not a database at all.
    public var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    public var description: String {
        let name = String(cString: sqlite3_errstr(code))
        var out = "\(call) failed with code \(code) (\(name)): \(sqliteMessage)"
        if let sql { out += " in \"\(sql.split(whereSeparator: \.isNewline).joined(separator: " "))\"" }
        return out
    }
}

/// A value bound to a statement parameter.
enum SQLValue {
    case int(Int64)
    case double(Double)
    case text(String)
    case null

    static func optional(_ v: Int64?) -> SQLValue { v.map { .int($0) } ?? .null }
    static func optional(_ v: String?) -> SQLValue { v.map { .text($0) } ?? .null }
    static func optional(_ v: Bool?) -> SQLValue { v.map { .int($0 ? 1 : 0) } ?? .null }
}

/// One SQLite connection. Owns the handle and closes it in `deinit`; every C call goes through `check`.
final class Connection {
    let handle: OpaquePointer
    let path: String
    private var cache: [String: Statement] = [:]
    /// Runs inside every `immediate` transaction just before it commits (the sync journal's lines are made there, in
    /// the same transaction as what they record); an error rolls the transaction back.
    var beforeCommit: (() throws -> Void)?
    /// Runs after every `immediate` transaction commits (the journal's lines are appended to its file there).
    var afterCommit: (() -> Void)?

    /// Opens `path` (a URI when `flags` hold `SQLITE_OPEN_URI`); `name` is the file its errors name (the path when
    /// nil).
    init(path: String, flags: Int32, name: String? = nil) throws(SQLiteError) {
        var pointer: OpaquePointer? = nil
        let rc = sqlite3_open_v2(path, &pointer, flags | SQLITE_OPEN_EXRESCODE, nil)
        let name = name ?? path
        guard rc == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(pointer)  // a half-opened handle is closed before the error is thrown
            throw SQLiteError(code: rc, call: "sqlite3_open_v2", sqliteMessage: message, sql: nil, path: name)
        }
        handle = pointer
        self.path = name
    }

    deinit {
        cache.removeAll()  // statements are finalized before the connection closes
        sqlite3_close_v2(handle)
    }

    /// Passes a result code through: OK, ROW and DONE are success, anything else an error naming the call.
    @discardableResult
    func check(_ rc: Int32, _ call: String, sql: String? = nil) throws(SQLiteError) -> Int32 {
        switch rc & 0xFF {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE: return rc
        default:
            throw SQLiteError(
                code: rc, call: call, sqliteMessage: String(cString: sqlite3_errmsg(handle)), sql: sql, path: path,
                systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// Runs SQL without results (one or more statements).
    func execute(_ sql: String) throws(SQLiteError) {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), "sqlite3_exec", sql: sql)
    }

    /// A prepared statement, cached by its SQL, reset and cleared before it is handed out.
    func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        if let statement = cache[sql] {
            statement.reset()
            return statement
        }
        var pointer: OpaquePointer? = nil
        try check(
            sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil),
            "sqlite3_prepare_v3", sql: sql)
        guard let pointer else {
            throw SQLiteError(
                code: SQLITE_MISUSE, call: "sqlite3_prepare_v3", sqliteMessage: "empty statement", sql: sql)
        }
        let statement = Statement(connection: self, pointer: pointer, sql: sql)
        cache[sql] = statement
        return statement
    }

    /// Runs a statement with arguments, calling `row` for each result row.
    func query(_ sql: String, _ arguments: [SQLValue] = [], row: (Statement) throws -> Void) throws {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() { try row(statement) }
    }

    func run(_ sql: String, _ arguments: [SQLValue] = []) throws {
        try query(sql, arguments) { _ in }
    }

    func scalarInt(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int64? {
        var value: Int64? = nil
        try query(sql, arguments) { value = $0.optionalInt(0) }
        return value
    }

    /// A sum read as SQLite's `TOTAL` (a float, which never overflows), held within `Int64`: for sums of stored
    /// values, so that a database written by hand cannot make a read fail or trap.
    func scalarTotal(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int64 {
        var value = 0.0
        try query(sql, arguments) { value = $0.double(0) }
        guard value.isFinite else { return 0 }
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int64(value.rounded())
    }

    func scalarText(_ sql: String, _ arguments: [SQLValue] = []) throws -> String? {
        var value: String? = nil
        try query(sql, arguments) { value = $0.optionalText(0) }
        return value
    }

    var changes: Int32 { sqlite3_changes(handle) }

    /// Runs `body` in a `BEGIN IMMEDIATE` transaction: the write lock is taken before anything is read, so a
    /// read-check-write never fails half-way with SQLITE_BUSY. Commits on return, rolls back on a throw.
    func immediate<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try beforeCommit?()
            try execute("COMMIT")
            afterCommit?()
            return value
        } catch {
            // The first error is the one worth reporting; a failed ROLLBACK leaves SQLite to roll back on close.
            if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    /// Runs `body` in a read transaction (`BEGIN DEFERRED`), so several reads see one snapshot.
    func reading<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        defer { if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) } }
        return try body()
    }
}

/// A prepared statement. Keeps its connection alive; finalized in `deinit`.
final class Statement {
    unowned let connection: Connection  // the connection owns its statements (its cache): no cycle
    let pointer: OpaquePointer
    let sql: String
    /// Result column names to indexes, filled on the first read by name.
    private var columnIndexes: [String: Int32] = [:]

    init(connection: Connection, pointer: OpaquePointer, sql: String) {
        self.connection = connection
        self.pointer = pointer
        self.sql = sql
    }

    deinit { sqlite3_finalize(pointer) }

    func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
    }

    func bind(_ values: [SQLValue]) throws(SQLiteError) {
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch value {
            case .int(let v): rc = sqlite3_bind_int64(pointer, index, v)
            case .double(let v): rc = sqlite3_bind_double(pointer, index, v)
            case .text(let v): rc = sqlite3_bind_text(pointer, index, v, -1, hum_sqlite_transient())
            case .null: rc = sqlite3_bind_null(pointer, index)
            }
            try connection.check(rc, "sqlite3_bind", sql: sql)
        }
    }

    // One parameter at a time, by its index (from 1), without an array of values: for statements run many times
    // over (a merge's inserts). Text is copied by SQLite (`SQLITE_TRANSIENT`), so the bytes need only live for
    // the call.
    func bind(_ index: Int32, _ value: Int64) throws(SQLiteError) {
        try connection.check(sqlite3_bind_int64(pointer, index, value), "sqlite3_bind", sql: sql)
    }

    func bind(_ index: Int32, _ value: Int64?) throws(SQLiteError) {
        guard let value else { return try bindNull(index) }
        try bind(index, value)
    }

    func bind(_ index: Int32, _ value: Bool?) throws(SQLiteError) {
        guard let value else { return try bindNull(index) }
        try bind(index, value ? 1 : 0)
    }

    func bind(_ index: Int32, _ value: String?) throws(SQLiteError) {
        guard let value else { return try bindNull(index) }
        var text = value
        let rc = text.withUTF8 { utf8 in bindText(index, utf8) }
        try connection.check(rc, "sqlite3_bind", sql: sql)
    }

    /// Binds UTF-8 bytes as text.
    func bind(_ index: Int32, text utf8: UnsafeBufferPointer<UInt8>) throws(SQLiteError) {
        try connection.check(bindText(index, utf8), "sqlite3_bind", sql: sql)
    }

    private func bindText(_ index: Int32, _ utf8: UnsafeBufferPointer<UInt8>) -> Int32 {
        // SQLite binds NULL for a null pointer: an empty text gets a pointer to a byte of its own.
        guard let base = utf8.baseAddress, !utf8.isEmpty else {
            return sqlite3_bind_text(pointer, index, "", 0, hum_sqlite_transient())
        }
        return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
            sqlite3_bind_text64(
                pointer, index, $0, sqlite3_uint64(utf8.count), hum_sqlite_transient(), UInt8(SQLITE_UTF8))
        }
    }

    func bindNull(_ index: Int32) throws(SQLiteError) {
        try connection.check(sqlite3_bind_null(pointer, index), "sqlite3_bind", sql: sql)
    }

    /// Steps once; true when a row is ready.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(pointer)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        try connection.check(rc, "sqlite3_step", sql: sql)
        return false
    }

    /// The index of the result column called `name`, from a map of the names made once per statement: rows are
    /// read by name, so a column added to a query cannot shift the others. A name the query does not select is an
    /// error naming it.
    func column(_ name: String) throws(SQLiteError) -> Int32 {
        if columnIndexes.isEmpty {
            for i in 0..<sqlite3_column_count(pointer) {
                guard let c = sqlite3_column_name(pointer, i) else { continue }
                let column = String(cString: c)
                if columnIndexes[column] == nil { columnIndexes[column] = i }  // the leftmost of a repeated name
            }
        }
        guard let index = columnIndexes[name] else {
            throw SQLiteError(
                code: SQLITE_RANGE, call: "sqlite3_column_name", sqliteMessage: "no result column named \(name)",
                sql: sql)
        }
        return index
    }

    func int(_ name: String) throws(SQLiteError) -> Int64 { int(try column(name)) }
    func double(_ name: String) throws(SQLiteError) -> Double { double(try column(name)) }
    func text(_ name: String) throws(SQLiteError) -> String { text(try column(name)) }
    func optionalInt(_ name: String) throws(SQLiteError) -> Int64? { optionalInt(try column(name)) }
    func optionalText(_ name: String) throws(SQLiteError) -> String? { optionalText(try column(name)) }
    func optionalBool(_ name: String) throws(SQLiteError) -> Bool? { optionalBool(try column(name)) }

    // By position: for the single column of a scalar query only.
    fileprivate func isNull(_ i: Int32) -> Bool { sqlite3_column_type(pointer, i) == SQLITE_NULL }
    fileprivate func int(_ i: Int32) -> Int64 { sqlite3_column_int64(pointer, i) }
    fileprivate func double(_ i: Int32) -> Double { sqlite3_column_double(pointer, i) }
    fileprivate func text(_ i: Int32) -> String {
        guard let c = sqlite3_column_text(pointer, i) else { return "" }
        return String(cString: c)
    }
    fileprivate func optionalInt(_ i: Int32) -> Int64? { isNull(i) ? nil : int(i) }
    fileprivate func optionalText(_ i: Int32) -> String? { isNull(i) ? nil : text(i) }
    fileprivate func optionalBool(_ i: Int32) -> Bool? { isNull(i) ? nil : int(i) != 0 }
}
