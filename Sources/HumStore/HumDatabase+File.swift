import CSQLite
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Probing and preparing the file before SQLite opens it for writing.
extension HumDatabase {
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
            throw StoreError.notADatabase(path: path, detail: error.sqliteMessage)
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
            throw StoreError.notADatabase(path: path, detail: error.sqliteMessage)
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
}
