import CSQLite
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The file before SQLite opens it for writing: made whole or not at all, checked to be hum's without writing to it,
/// kept private.
extension HumDatabase {
    /// Makes sure a hum database is at `path`: creates it (and its directory, 0700) when absent, or checks that the
    /// file there is one without writing to it. A new database is built under a temporary name and linked into
    /// place only once its schema is committed, so a command killed while creating it leaves no half-made file at
    /// `path` (only a hidden temporary, removed later by `removeAbandonedCreations`).
    static func prepareFile(_ path: String, device: String, created: String) throws {
        let directory = parent(of: path)
        try makeDirectories(directory)
        removeAbandonedCreations(of: path)
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else { throw StoreError.system(call: "stat", path: path, errno: errno) }
            try checkWritable(directory: directory, ledger: nil)
            try create(path, device: device, created: created)
            return
        }
        try checkExisting(path, info)
        // A journal or index SQLite made for a read-only opening carries the file's mode then (0400, say): made
        // writable again with the file, or writes would fail on them.
        for file in [path + "-wal", path + "-shm"] {
            var side = stat()
            if lstat(file, &side) == 0, (side.st_mode & S_IFMT) == S_IFREG, side.st_uid == geteuid(),
                side.st_mode & 0o600 != 0o600, access(path, W_OK) == 0
            {
                chmod(file, 0o600)
            }
        }
        if access(path, R_OK | W_OK) != 0 {
            throw StoreError.readOnly(path: path, what: "the file", fileSystem: errno == EROFS, ledger: path)
        }
        try checkWritable(directory: directory, ledger: path)
        try probeExisting(path)
    }

    /// What every open checks of the file there: a regular file, this user's, not empty.
    static func checkExisting(_ path: String, _ info: stat) throws {
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError.notADatabase(path: path, detail: "not a regular file")
        }
        if info.st_uid != geteuid() { throw StoreError.ownedByAnother(path: path, uid: info.st_uid) }
        // A database is never empty: hum's own appears whole, with its schema. An empty file is a truncated copy.
        if info.st_size == 0 { throw StoreError.emptyFile(path: path) }
    }

    /// True when a database exists at `path` but it, or its folder, cannot be written (a read-only mount, a backup
    /// disk, a snapshot, a folder made read-only): commands that only read open it with `init(readingOnly:…)`.
    public static func isReadOnlyLocation(_ path: String) -> Bool {
        guard access(path, F_OK) == 0 else { return false }
        return access(path, W_OK) != 0 || access(parent(of: path), W_OK | X_OK) != 0
    }

    /// A read-only connection to the database at `path`, checked to be hum's, of this schema.
    ///
    /// With no journal (`-wal`), or an empty one, the file alone holds every committed transaction: it is opened
    /// `immutable` (no `-shm` index, no locks, nothing made beside it; nobody writes it either, since it or its
    /// folder cannot be written). A journal with entries is read through its `-shm` index, which SQLite makes beside
    /// it where the folder can be written, and otherwise reads only when it is already there (a snapshot of a ledger
    /// in use); a journal without its index on a read-only folder cannot be read by SQLite at all: refused, with
    /// what to do.
    static func openReadOnly(_ path: String) throws -> Connection {
        var info = stat()
        guard stat(path, &info) == 0 else { throw StoreError.system(call: "stat", path: path, errno: errno) }
        try checkExisting(path, info)
        var uri = "file:" + uriEscaped(path) + "?mode=ro"
        var journal = stat()
        if stat(path + "-wal", &journal) != 0 || journal.st_size == 0 {
            uri += "&immutable=1"  // nothing beside the file is read, and nothing is made there
        } else if access(parent(of: path), W_OK | X_OK) != 0 && access(path + "-shm", R_OK) != 0 {
            throw StoreError.unreadableJournal(path: path)
        }
        let connection: Connection
        do {
            connection = try Connection(
                path: uri, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, name: path)
            try connection.check(
                sqlite3_busy_timeout(connection.handle, busyTimeoutMilliseconds), "sqlite3_busy_timeout")
            try connection.execute("PRAGMA query_only=1")
            let appID = try connection.scalarInt("PRAGMA application_id") ?? 0
            let version = try connection.scalarInt("PRAGMA user_version") ?? 0
            let objects = try connection.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0
            if appID == Int64(Schema.applicationID) {
                if version > Schema.latestVersion { throw StoreError.newerSchema(path: path, version: version) }
                if version < Schema.latestVersion { throw StoreError.readOnlyOlder(path: path, version: version) }
                return connection
            }
            if appID == 0 && objects == 0 && version == 0 { throw StoreError.readOnlyOlder(path: path, version: 0) }
            throw StoreError.foreignDatabase(path: path, applicationID: appID, objects: objects)
        } catch let error as SQLiteError where error.isCorruption {
            throw StoreError.notADatabase(path: path, detail: error.sqliteMessage)
        }
    }

    /// A path as the path of a SQLite URI: every byte but letters, digits, `/`, `.`, `_`, `~` and `-` as `%XX`.
    static func uriEscaped(_ path: String) -> String {
        let hex = Array("0123456789ABCDEF")
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "-"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return out
    }

    /// The directory must take the journal files SQLite writes beside the database (`ledger`, when it exists).
    static func checkWritable(directory: String, ledger: String?) throws {
        if access(directory, W_OK | X_OK) != 0 {
            if errno == EACCES || errno == EROFS || errno == EPERM {
                throw StoreError.readOnly(
                    path: directory, what: "the folder", fileSystem: errno == EROFS, ledger: ledger)
            }
            throw StoreError.system(call: "access", path: directory, errno: errno)
        }
    }

    /// Keeps the ledger private on every open: the directory 0700, the database and its -wal and -shm files 0600
    /// (SQLite makes the latter with the database's mode, and nothing tightens them if someone loosens them).
    static func tighten(_ path: String) {
        let uid = geteuid()
        var info = stat()
        let directory = parent(of: path)
        if stat(directory, &info) == 0, info.st_uid == uid, info.st_mode & 0o077 != 0 {
            chmod(directory, mode_t(info.st_mode & 0o700))
        }
        for file in [path, path + "-wal", path + "-shm"] {
            if lstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == uid,
                info.st_mode & 0o077 != 0
            {
                chmod(file, mode_t(info.st_mode & 0o700))
            }
        }
    }

    /// The hidden temporary name a database is created under, beside it.
    static func creationPrefix(of path: String) -> String {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        return String(path[..<slash]) + "." + String(path[slash...]) + ".new-"
    }

    /// Builds a new database (schema, device id, WAL mode) under a temporary name, syncs it, and links it to `path`
    /// unless another process did first. Whatever happens, `path` is either absent or a whole database.
    static func create(_ path: String, device: String, created: String) throws {
        var rng = SystemRandomNumberGenerator()
        let temp = creationPrefix(of: path) + String(rng.next(), radix: 16)
        let fd = open(temp, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.system(call: "open", path: temp, errno: errno) }
        // The lock tells a later process that this creation is still under way; it is dropped if this one dies.
        // It is an flock, which SQLite's POSIX locks do not see; the descriptor is closed only after SQLite's.
        _ = flock(fd, LOCK_EX)
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temp + suffix) }
            close(fd)
        }
        do {
            let connection = try Connection(path: temp, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
            try connection.execute("PRAGMA journal_mode=WAL")
            try connection.execute("PRAGMA synchronous=FULL")
            try connection.immediate { try migrate(connection, path: path, device: device, created: created) }
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }  // closed here: the WAL is folded into the file
        guard fsync(fd) == 0 else { throw StoreError.system(call: "fsync", path: temp, errno: errno) }
        if link(temp, path) != 0 {
            let code = errno
            if code == EEXIST { return }  // another hum created it first: that one is used
            guard code == EPERM || code == EOPNOTSUPP || code == EXDEV || code == EMLINK else {
                throw StoreError.system(call: "link", path: path, errno: code)
            }
            // A file system without hard links: rename, having looked first (a race with another creator here
            // would at worst replace one empty new database by another).
            if access(path, F_OK) == 0 { return }
            guard rename(temp, path) == 0 else { throw StoreError.system(call: "rename", path: path, errno: errno) }
        }
        syncDirectory(parent(of: path))
    }

    static func syncDirectory(_ directory: String) {
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }

    /// Removes the temporaries of creations whose process died (killed before it linked its database into place):
    /// no process holds their lock and they have not changed for a minute.
    static func removeAbandonedCreations(of path: String) {
        let prefix = creationPrefix(of: path)
        let directory = parent(of: path)
        let namePrefix = String(prefix[prefix.index(after: prefix.lastIndex(of: "/")!)...])
        guard let dir = opendir(directory) else { return }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(namePrefix), !name.hasSuffix("-wal"), !name.hasSuffix("-shm"), !name.hasSuffix("-journal")
            {
                names.append(name)
            }
        }
        closedir(dir)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var database = stat()
        let hasDatabase = stat(path, &database) == 0
        for name in names {
            let file = directory + "/" + name
            var info = stat()
            guard lstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == geteuid() else {
                continue
            }
            if hasDatabase, info.st_ino == database.st_ino, info.st_dev == database.st_dev {
                unlink(file)  // killed between linking the database into place and removing its temporary name
                continue
            }
            guard now.tv_sec - info.st_mtim.tv_sec > 60 else { continue }
            let fd = open(file, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                for suffix in ["", "-wal", "-shm", "-journal"] { unlink(file + suffix) }
            }
            close(fd)
        }
    }

    /// Looks at an existing file through a read-only connection, so nothing can be written to a file that is not ours.
    static func probeExisting(_ path: String) throws {
        let probe: Connection
        do {
            probe = try Connection(path: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX)
            try probe.check(sqlite3_busy_timeout(probe.handle, busyTimeoutMilliseconds), "sqlite3_busy_timeout")
        } catch {
            if error.isCorruption { throw StoreError.notADatabase(path: path, detail: error.sqliteMessage) }
            throw error
        }
        do {
            let appID = try probe.scalarInt("PRAGMA application_id") ?? 0
            let version = try probe.scalarInt("PRAGMA user_version") ?? 0
            let objects = try probe.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0
            if appID == Int64(Schema.applicationID) {
                if version > Schema.latestVersion { throw StoreError.newerSchema(path: path, version: version) }
                return
            }
            // An empty SQLite database (left by an older hum killed while creating one) holds nothing to lose.
            if appID == 0 && objects == 0 && version == 0 { return }
            throw StoreError.foreignDatabase(path: path, applicationID: appID, objects: objects)
        } catch let error as SQLiteError where error.isCorruption {
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
            if errno == EACCES || errno == EROFS || errno == EPERM {
                throw StoreError.readOnly(path: up, what: "the folder", fileSystem: errno == EROFS, ledger: nil)
            }
            throw StoreError.system(call: "mkdir", path: directory, errno: errno)
        }
    }
}
