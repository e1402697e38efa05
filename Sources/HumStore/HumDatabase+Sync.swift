import FoundationEssentials
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// This device's sync journal (docs/sync.md): a line for every event recorded, made in the same transaction as the
/// event, kept in an outbox, and appended to `DIR/hum-sync/v1/devices/<id>/journal.jsonl` once committed.
///
/// **A crash between the commit and the append.** The line is committed with the event (in `sync_outbox`), so it
/// can never be lost; the append then runs after the commit, under an exclusive lock of the journal file: the file's
/// last whole line says which sequence number it holds (a last line without its newline, left by a write cut short,
/// is cut off first), only the outbox's lines after it are written, the file is fsynced, and only then are they
/// removed from the outbox. A process killed anywhere in between leaves lines in the outbox that the next hum
/// (any command that opens the database) writes, or finds already written and just removes: nothing is lost, and
/// nothing is written twice.
extension HumDatabase {
    /// What sync is for this database: its folder, its device id and the salt it was derived with.
    public struct SyncSetup: Sendable, Equatable {
        public var dir: String
        public var device: String
        public var salt: String
        /// Lines committed, not yet confirmed in the journal file.
        public var outbox: Int
        /// The number of lines this device has written.
        public var written: Int64
    }

    /// The journal file of `device` under the synced folder `dir`.
    public static func journalPath(dir: String, device: String) -> String {
        "\(journalsFolder(dir: dir))/\(device)/journal.jsonl"
    }

    /// The folder of every device's journal under the synced folder `dir`.
    public static func journalsFolder(dir: String) -> String { "\(dir)/hum-sync/v1/devices" }

    /// Makes the folder of this device's journal (and the folders above it) when absent.
    public static func makeJournalFolder(dir: String, device: String) throws {
        try makeDirectories(parent(of: journalPath(dir: dir, device: device)))
    }

    /// Sync as set up here; nil while it is off.
    public func syncSetup() throws -> SyncSetup? {
        try guarded {
            var out: SyncSetup? = nil
            try db.query("SELECT dir, device, salt, next_seq FROM sync_self WHERE id = 1") { row in
                guard let dir = try row.optionalText("dir") else { return }
                out = SyncSetup(
                    dir: dir, device: try row.text("device"), salt: try row.text("salt"), outbox: 0,
                    written: try row.int("next_seq") - 1)
            }
            if out != nil { out?.outbox = Int(try db.scalarInt("SELECT count(*) FROM sync_outbox") ?? 0) }
            return out
        }
    }

    /// The device id and salt this database last wrote its journal as (empty before sync was first set up), and
    /// the folder while sync is on.
    public func syncIdentity() throws -> (device: String, salt: String, dir: String?) {
        try guarded {
            var out = (device: "", salt: "", dir: String?.none)
            try db.query("SELECT device, salt, dir FROM sync_self WHERE id = 1") { row in
                out = (try row.text("device"), try row.text("salt"), try row.optionalText("dir"))
            }
            return out
        }
    }

    /// Turns sync on (or moves it to another folder, or to another device id after a copy to another machine): in
    /// one transaction, sets `sync.dir`, makes this database write as `device` (its entries too), and, when the
    /// device is new, writes everything the database holds as the journal's first lines (entries, finished rounds,
    /// contracts, saved mixes, settings that travel, hours logged by hand), so the other devices get the history from before sync. Then
    /// appends them to the journal file.
    public func startSync(dir: String, device: String, salt: String) throws {
        try guarded {
            try db.immediate {
                let was = try db.scalarText("SELECT device FROM sync_self WHERE id = 1") ?? ""
                try db.run(
                    "UPDATE sync_self SET dir = ?, device = ?, salt = ? WHERE id = 1",
                    [.text(dir), .text(device), .text(salt)])
                try db.run(
                    "INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    [.text(SettingCatalog.syncDir), .text(dir)])
                try db.run("UPDATE meta SET value = ? WHERE key = 'device'", [.text(device)])
                try db.run("DELETE FROM sync_pending")
                syncRefusal = nil
                guard was != device else { return }
                try db.run(
                    "UPDATE sync_self SET next_seq = 1, last_hash = ?, hlc_ms = 0, hlc_c = 0 WHERE id = 1",
                    [.text(JournalLine.genesis)])
                try db.run("DELETE FROM sync_outbox")
                try db.run("DELETE FROM sync_cursors WHERE device = ?", [.text(device)])
                // A database initialised again (copied, or moved to another device id) writes again what it wrote
                // before; the contracts and plays whose last writer was another device are in that device's journal,
                // and written again here (newer) they would undo its later changes.
                try db.run(
                    """
                    INSERT INTO sync_pending(kind, ref) SELECT 'contract', id FROM contracts c WHERE ?1 = ''
                        OR NOT EXISTS (SELECT 1 FROM sync_registers r WHERE r.kind = 'contract' AND r.name = c.id
                            AND r.hlc_d != ?1)
                    ORDER BY seq
                    """, [.text(was)])
                try db.run("INSERT INTO sync_pending(kind, ref) SELECT 'entry', id FROM entries ORDER BY seq")
                try db.run(
                    "INSERT INTO sync_pending(kind, ref) SELECT 'round', id FROM rounds WHERE status != 'running' "
                        + "ORDER BY start_epoch, seq")
                try db.run("INSERT INTO sync_pending(kind, ref) SELECT 'mix', name FROM mixes ORDER BY name")
                try db.run("INSERT INTO sync_pending(kind, ref) SELECT 'setting', key FROM config ORDER BY key")
                try db.run("INSERT INTO sync_pending(kind, ref) SELECT 'hours', id FROM hour_log ORDER BY seq")
                try db.run(
                    """
                    INSERT INTO sync_pending(kind, ref) SELECT 'play', mix FROM recents WHERE ?1 = '' OR hlc_d = ?1
                    ORDER BY hlc_ms, hlc_c, hlc_d
                    """, [.text(was)])
            }
            self.device = device
        }
        try Self.makeJournalFolder(dir: dir, device: device)
        try flushJournal()
    }

    /// Turns sync off: nothing more is written to the journal (what it holds stays in the folder). The caller removes
    /// the `sync.dir` setting.
    public func stopSync() throws {
        try guarded {
            try db.immediate {
                try db.run("UPDATE sync_self SET dir = NULL WHERE id = 1")
                try db.run("DELETE FROM sync_pending")
            }
        }
    }

    /// Refuses every write that would go to the journal, with `reason` (a database copied from another machine,
    /// whose journal this one must not fork).
    public func refuseSyncWrites(_ reason: String) { syncRefusal = reason }

    /// The hook run before each write transaction commits: the changes the triggers noted become journal lines in
    /// the outbox, in the same transaction.
    func journalPending() throws {
        var pending: [(kind: String, ref: String)] = []
        try db.query("SELECT kind, ref FROM sync_pending ORDER BY n") { row in
            pending.append((try row.text("kind"), try row.text("ref")))
        }
        guard !pending.isEmpty else { return }
        try db.run("DELETE FROM sync_pending")
        if applyingMerge { return }  // what a merge writes came from another device's journal
        if let syncRefusal { throw SyncRefusal(reason: syncRefusal) }
        var state: (device: String, next: Int64, last: String, ms: Int64, c: Int64)? = nil
        try db.query("SELECT device, next_seq, last_hash, hlc_ms, hlc_c FROM sync_self WHERE dir IS NOT NULL") {
            state = (
                try $0.text("device"), try $0.int("next_seq"), try $0.text("last_hash"), try $0.int("hlc_ms"),
                try $0.int("hlc_c")
            )
        }
        guard let state, !state.device.isEmpty else { return }
        var writer = JournalWriter(
            device: state.device, nextSeq: state.next, lastHash: state.last,
            clock: HybridTime(physicalMs: state.ms, logical: state.c, device: state.device))
        let wallMs = calendar.clock.nowEpochSeconds() &* 1000
        // A row changed twice in one transaction is written once, as it stands at the commit. A contract's line
        // comes after the transaction's entries: a merge that stops at its grant (a conflict) never applies a
        // contract that says it was paid by a grant not merged.
        var done: Set<String> = []
        let ordered = pending.filter { $0.kind != "contract" } + pending.filter { $0.kind == "contract" }
        for (kind, ref) in ordered where done.insert(kind + "\u{0}" + ref).inserted {
            guard let event = try journalEvent(kind: kind, ref: ref) else { continue }
            let line = try writer.append(event, wallMs: wallMs)
            try db.run(
                "INSERT INTO sync_outbox(seq, line) VALUES (?, ?)",
                [.int(line.seq), .text(String(decoding: line.bytes, as: UTF8.self))])
            if kind == "play" { try setRecentTime(ref, line.time) }
            if let register = ["mix", "setting", "contract"].contains(kind) ? kind : nil {
                try db.run(
                    """
                    INSERT INTO sync_registers(kind, name, hlc_ms, hlc_c, hlc_d) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT(kind, name) DO UPDATE SET hlc_ms = excluded.hlc_ms, hlc_c = excluded.hlc_c,
                        hlc_d = excluded.hlc_d
                    """,
                    [
                        .text(register), .text(ref), .int(line.time.physicalMs), .int(line.time.logical),
                        .text(line.time.device),
                    ])
            }
        }
        try db.run(
            "UPDATE sync_self SET next_seq = ?, last_hash = ?, hlc_ms = ?, hlc_c = ? WHERE id = 1",
            [
                .int(writer.nextSeq), .text(writer.lastHash), .int(writer.clock.last.physicalMs),
                .int(writer.clock.last.logical),
            ])
    }

    /// The event a changed row stands for, as it is now; nil for one that does not travel.
    func journalEvent(kind: String, ref: String) throws -> JournalEvent? {
        switch kind {
        case "entry":
            return try entry(where: "id = ?", [.text(ref)]).map { .entry($0) }
        case "round":
            guard let r = try loadRounds(where: "r.id = ?", [.text(ref)]).first, r.status != .running else {
                return nil
            }
            return .round(r)
        case "contract":
            return try loadContracts(where: "c.id = ?", [.text(ref)]).first.map { .contract($0) }
        case "mix":
            var found: Mix? = nil
            try db.query("SELECT mix FROM mixes WHERE name = ?", [.text(ref)]) { row in
                found = try Self.decodeMix(try row.text("mix"), name: ref)
            }
            return found.map { .mixSaved(name: ref, mix: $0) } ?? .mixRemoved(name: ref)
        case "hours":
            return try hourLog(id: ref).map { .hoursLogged($0) }
        case "play":
            return try playEvent(ref)
        case "setting":
            guard SyncSettings.travels(ref) else { return nil }
            let value = try db.scalarText("SELECT value FROM config WHERE key = ?", [.text(ref)])
            if let value, (try? SettingCatalog.normalise(ref, value)) != value { return nil }  // written by hand
            return .setting(key: ref, value: value)
        default:
            return nil
        }
    }

    /// Appends the outbox's lines to the journal file, fsyncs it, and only then empties the outbox (see above).
    /// Throws when the file cannot be written or does not continue what this database wrote; the lines then stay
    /// in the outbox for the next try.
    public func flushJournal() throws {
        guard !isReadOnly, let setup = try syncSetup(), setup.outbox > 0 else { return }
        if let syncRefusal { throw SyncRefusal(reason: syncRefusal) }
        let path = Self.journalPath(dir: setup.dir, device: setup.device)
        try guarded {
            try Self.makeDirectories(Self.parent(of: path))
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw StoreError.system(call: "open", path: path, errno: errno) }
            defer { close(fd) }
            guard flock(fd, LOCK_EX) == 0 else { throw StoreError.system(call: "flock", path: path, errno: errno) }
            let tail = try Self.journalTail(fd: fd, path: path)
            var lines: [(seq: Int64, text: String)] = []
            try db.query("SELECT seq, line FROM sync_outbox ORDER BY seq") { row in
                lines.append((try row.int("seq"), try row.text("line")))
            }
            var expected = tail.seq + 1
            var out: [UInt8] = []
            for line in lines where line.seq > tail.seq {
                guard line.seq == expected else { throw JournalBehind(path: path, seq: tail.seq, next: line.seq) }
                if expected == tail.seq + 1, let lastHash = tail.hash, line.seq > 1,
                    !line.text.contains("\"prev\":\"\(lastHash)\"")
                {
                    throw JournalBehind(path: path, seq: tail.seq, next: line.seq)
                }
                out += Array(line.text.utf8) + [0x0A]
                expected += 1
            }
            if !out.isEmpty {
                var at = 0
                while at < out.count {
                    let n = out[at...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    guard n > 0 else { throw StoreError.system(call: "write", path: path, errno: errno) }
                    at += n
                }
            }
            guard fsync(fd) == 0 else { throw StoreError.system(call: "fsync", path: path, errno: errno) }
            if tail.created { Self.syncDirectory(Self.parent(of: path)) }
            try db.run("DELETE FROM sync_outbox WHERE seq < ?", [.int(expected)])
        }
    }

    /// The journal file's last whole line (its sequence number and hash; 0 and nil when there is none), with the
    /// file's position at its end. A last line without its newline (a write cut short) is cut off.
    static func journalTail(fd: Int32, path: String) throws -> (seq: Int64, hash: String?, created: Bool) {
        let size = Int(lseek(fd, 0, SEEK_END))
        guard size >= 0 else { throw StoreError.system(call: "lseek", path: path, errno: errno) }
        if size == 0 { return (0, nil, true) }
        // Read back from the end until the last two newlines (or the file's start) are in hand.
        var chunk = 65_536
        while true {
            let start = max(0, size - chunk)
            var bytes = [UInt8](repeating: 0, count: size - start)
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(start)) }
            guard n == bytes.count else { throw StoreError.system(call: "pread", path: path, errno: errno) }
            guard let lastNewline = bytes.lastIndex(of: 0x0A) else {
                if start == 0 {  // not one whole line: a first write cut short
                    guard ftruncate(fd, 0) == 0 else {
                        throw StoreError.system(call: "ftruncate", path: path, errno: errno)
                    }
                    _ = lseek(fd, 0, SEEK_END)
                    return (0, nil, false)
                }
                chunk *= 4
                continue
            }
            let before = bytes[..<lastNewline].lastIndex(of: 0x0A)
            if before == nil && start > 0 {
                chunk *= 4
                continue
            }
            if lastNewline != bytes.count - 1 {
                guard ftruncate(fd, off_t(start + lastNewline + 1)) == 0 else {
                    throw StoreError.system(call: "ftruncate", path: path, errno: errno)
                }
            }
            _ = lseek(fd, 0, SEEK_END)
            let lineStart = before.map { $0 + 1 } ?? 0
            switch JournalLine.parse(bytes[lineStart..<lastNewline]) {
            case .success(let line): return (line.seq, line.hash, false)
            case .failure: throw JournalBehind(path: path, seq: -1, next: 0)
            }
        }
    }
}

/// Writes refused because this database was copied from another machine (docs/sync.md, "The device id").
public struct SyncRefusal: UserFacingError, Equatable {
    public var reason: String
    public var message: String { reason }
    public var kind: FailureKind { .refused }
}

/// This device's journal file does not continue what the database wrote (removed, cut, restored from an old copy,
/// or written by another copy of this database).
public struct JournalBehind: UserFacingError, Equatable {
    public var path: String
    public var seq: Int64
    public var next: Int64
    public var message: String {
        seq < 0
            ? "this device's journal \(path) ends with a line hum cannot read; move it away and run 'hum sync init' "
                + "again to rewrite it"
            : "this device's journal \(path) ends at line \(seq) but the next line to write is \(next); run "
                + "'hum sync init' again to rewrite it"
    }
}
