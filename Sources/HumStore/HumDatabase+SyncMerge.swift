import CSQLite
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// What one merge of the other devices' journals did.
public struct SyncMergeOutcome: Sendable, Equatable {
    /// Lines merged (applied or found already here), over every device.
    public var lines = 0
    public var entriesAdded = 0
    public var roundsAdded = 0
    /// Problems found in a journal for the first time (reported once; `hum sync status` shows them while they last).
    public var newProblems: [String: String] = [:]
    public init() {}
}

/// One device as `hum sync status` shows it.
public struct SyncDeviceStatus: Sendable, Equatable, Encodable {
    public var device: String
    /// True for this device.
    public var here: Bool
    /// The last line written (this device) or merged (another).
    public var lastSeq: Int64
    /// When its last line written or merged happened, by its hybrid clock (epoch seconds).
    public var lastEventEpoch: Int64?
    /// Lines in its journal not merged here yet (another device), or lines committed but not yet in the journal
    /// file (this device).
    public var behind: Int
    /// What stops its merge (or the append of this device's lines), if anything.
    public var problem: String?
}

/// Merging the other devices' journals into this database (docs/sync.md, "Merge rules").
extension HumDatabase {
    /// Reads the journals of the other devices in the synced folder from where the last merge stopped (only new
    /// lines), and applies what `SyncMerge.plan` says in one transaction: all or nothing. Cheap when nothing changed:
    /// one directory listing and a `stat` per device. Nil when sync is off.
    @discardableResult
    public func mergeJournals() throws -> SyncMergeOutcome? {
        guard !isReadOnly, let setup = try syncSetup() else { return nil }
        if let syncRefusal { throw SyncRefusal(reason: syncRefusal) }
        let cursors = try syncCursors()
        var journals: [String: JournalRead] = [:]
        for device in Self.journalDevices(dir: setup.dir) where device != setup.device {
            let path = Self.journalPath(dir: setup.dir, device: device)
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            let cursor = cursors[device]?.cursor ?? .start
            if Int(info.st_size) == cursor.offset { continue }  // nothing new (the common case)
            guard let bytes = Self.readFile(path) else { continue }
            journals[device] = JournalReader.read(bytes, device: device, from: cursor)
        }
        var outcome = SyncMergeOutcome()
        guard !journals.isEmpty else { return outcome }
        return try guarded {
            // A merge of many lines, in one transaction, outgrows two of SQLite's defaults; both are set back after.
            // - Every insert runs triggers, so SQLite keeps a statement journal of the pages it changes (to undo that
            //   one statement). Once a statement's journal passes 64 KiB it goes to a temporary file, and then every
            //   later insert writes its pages there: a million writes for 100,000 lines. In memory (`temp_store`) it
            //   is emptied after each statement instead.
            // - The pages changed outgrow the page cache (2 MB), which then writes them to the WAL again and again
            //   before the commit; a cache of 1 KB a line (at most 256 MB, taken only as used) writes each once.
            let lines = journals.values.reduce(0) { $0 + $1.lines.count }
            let was =
                lines > 256
                ? (cache: try db.scalarInt("PRAGMA cache_size"), temp: try db.scalarInt("PRAGMA temp_store")) : nil
            if was != nil {
                try db.execute("PRAGMA cache_size = -\(min(262_144, max(lines, 2048)))")
                try db.execute("PRAGMA temp_store = MEMORY")
            }
            defer {
                if let was {
                    try? db.execute("PRAGMA cache_size = \(was.cache ?? -2000)")
                    try? db.execute("PRAGMA temp_store = \(was.temp ?? 0)")
                }
            }
            return try db.immediate {
                applyingMerge = true
                defer { applyingMerge = false }
                let known = try syncKnown(for: journals, cursors: cursors)
                let plan = SyncMerge.plan(known: known, journals: journals)
                // The plan classified every entry against those here that share its id or key: the new ones go in
                // as they are (a constraint of the ledger they break stops the whole merge), then the rounds and
                // contracts as an import adds them.
                // The entries came from other devices' journals, so they are not lines for this device's journal:
                // with the folder unset for the inserts (inside this transaction, so never seen unset outside it),
                // the `sync_entry` trigger does not queue each one in `sync_pending` only for it to be emptied below.
                let dir = try db.scalarText("SELECT dir FROM sync_self WHERE id = 1")
                if !plan.entries.isEmpty { try db.run("UPDATE sync_self SET dir = NULL WHERE id = 1") }
                try insertMerged(plan.entries)
                if !plan.entries.isEmpty {
                    try db.run("UPDATE sync_self SET dir = ? WHERE id = 1", [.optional(dir)])
                }
                outcome.entriesAdded = plan.entries.count
                let imported = try applyImport(entries: [], sessions: plan.rounds, contracts: [])
                outcome.roundsAdded = imported.roundsAdded
                // A contract changed elsewhere replaces the one here (the plan kept only the versions that win).
                for (record, _) in plan.contracts { try replaceContract(record) }
                if let recents = plan.recents { try applyRecents(recents) }
                for h in plan.hours { try insertHourLog(h) }
                for (name, register) in plan.mixes {
                    if let mix = register.value {
                        try saveMixLocked(mix, as: name)
                    } else {
                        try db.run("DELETE FROM mixes WHERE name = ?", [.text(name)])
                    }
                    try setRegister("mix", name, register.time)
                }
                for (key, register) in plan.settings {
                    if let value = register.value {
                        try db.run(
                            "INSERT INTO config(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = "
                                + "excluded.value", [.text(key), .text(value)])
                    } else {
                        try db.run("DELETE FROM config WHERE key = ?", [.text(key)])
                    }
                    try setRegister("setting", key, register.time)
                }
                for (record, time) in plan.contracts { try setRegister("contract", record.id, time) }
                for (device, cursor) in plan.cursors {
                    outcome.lines += Int(cursor.lastSeq - (cursors[device]?.cursor.lastSeq ?? 0))
                    try db.run(
                        """
                        INSERT INTO sync_cursors(device, offset, last_seq, last_hash, hlc_ms, hlc_c, last_event_epoch)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT(device) DO UPDATE SET offset = excluded.offset, last_seq = excluded.last_seq,
                            last_hash = excluded.last_hash, hlc_ms = excluded.hlc_ms, hlc_c = excluded.hlc_c,
                            last_event_epoch = excluded.last_event_epoch
                        """,
                        [
                            .text(device), .int(Int64(cursor.offset)), .int(cursor.lastSeq), .text(cursor.lastHash),
                            .optional(cursor.lastTime?.physicalMs), .optional(cursor.lastTime?.logical),
                            .optional(cursor.lastTime.map { $0.physicalMs / 1000 }),
                        ])
                }
                for device in journals.keys {
                    let problem = plan.stopped[device]
                    let before = cursors[device]?.problem
                    if problem != before {
                        try db.run(
                            """
                            INSERT INTO sync_cursors(device, offset, last_seq, last_hash, problem) VALUES (?, 0, 0, ?, ?)
                            ON CONFLICT(device) DO UPDATE SET problem = excluded.problem
                            """, [.text(device), .text(JournalLine.genesis), .optional(problem)])
                        if let problem { outcome.newProblems[device] = problem }
                    }
                }
                if let latest = plan.latest {
                    var clock = HybridClock(device: setup.device, resumingAfter: try ownClock())
                    let now = clock.receive(latest, wallMs: calendar.clock.nowEpochSeconds() &* 1000)
                    try db.run(
                        "UPDATE sync_self SET hlc_ms = ?, hlc_c = ? WHERE id = 1",
                        [.int(now.physicalMs), .int(now.logical)])
                }
                try db.run("DELETE FROM sync_pending")
                return outcome
            }
        }
    }

    /// Every device as `hum sync status` shows it: this one first, then the others by id. Nil when sync is off.
    public func syncStatus() throws -> [SyncDeviceStatus]? {
        guard let setup = try syncSetup() else { return nil }
        var problemHere: String? = nil
        if setup.outbox > 0 {
            problemHere = "\(setup.outbox) line\(setup.outbox == 1 ? "" : "s") not yet written to the journal"
            if let syncRefusal { problemHere = syncRefusal }
        }
        let ownLast = try ownClock()
        var out = [
            SyncDeviceStatus(
                device: setup.device, here: true, lastSeq: setup.written,
                lastEventEpoch: ownLast.physicalMs > 0 ? ownLast.physicalMs / 1000 : nil, behind: setup.outbox,
                problem: syncRefusal ?? problemHere)
        ]
        let cursors = try syncCursors()
        let devices = Set(Self.journalDevices(dir: setup.dir)).union(cursors.keys).subtracting([setup.device])
        for device in devices.sorted() {
            let cursor = cursors[device]
            var behind = 0
            let path = Self.journalPath(dir: setup.dir, device: device)
            if let bytes = Self.readFile(path, from: cursor?.cursor.offset ?? 0) {
                behind = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            }
            out.append(
                SyncDeviceStatus(
                    device: device, here: false, lastSeq: cursor?.cursor.lastSeq ?? 0,
                    lastEventEpoch: cursor?.lastEventEpoch, behind: behind, problem: cursor?.problem))
        }
        return out
    }

    struct StoredCursor {
        var cursor: JournalCursor
        var lastEventEpoch: Int64?
        var problem: String?
    }

    func syncCursors() throws -> [String: StoredCursor] {
        var out: [String: StoredCursor] = [:]
        try db.query(
            "SELECT device, offset, last_seq, last_hash, hlc_ms, hlc_c, last_event_epoch, problem FROM sync_cursors"
        ) { row in
            let device = try row.text("device")
            let time = try row.optionalInt("hlc_ms").map {
                HybridTime(physicalMs: $0, logical: try row.optionalInt("hlc_c") ?? 0, device: device)
            }
            out[device] = StoredCursor(
                cursor: JournalCursor(
                    offset: Int(try row.int("offset")), lastSeq: try row.int("last_seq"),
                    lastHash: try row.text("last_hash"), lastTime: time),
                lastEventEpoch: try row.optionalInt("last_event_epoch"), problem: try row.optionalText("problem"))
        }
        return out
    }

    func ownClock() throws -> HybridTime {
        var out = HybridTime(physicalMs: 0, logical: 0, device: device)
        try db.query("SELECT device, hlc_ms, hlc_c FROM sync_self WHERE id = 1") { row in
            out = HybridTime(
                physicalMs: try row.int("hlc_ms"), logical: try row.int("hlc_c"), device: try row.text("device"))
        }
        return out
    }

    /// What the plan needs to know of this database, for the lines read: the entries whose ids or keys they name,
    /// the rounds they name, the registers and the cursors.
    func syncKnown(for journals: [String: JournalRead], cursors: [String: StoredCursor]) throws -> SyncKnown {
        var known = SyncKnown()
        for (device, stored) in cursors { known.cursors[device] = stored.cursor }
        // Many lines (a cold merge): the ids and keys here in one read each, and only the entries they share fetched.
        let many = journals.values.reduce(0) { $0 + $1.lines.count } > 256
        var ids: Set<String> = []
        var keys: Set<String> = []
        if many {
            try db.query("SELECT id, key FROM entries") { row in
                ids.insert(try row.text("id"))
                if let key = try row.optionalText("key") { keys.insert(key) }
            }
        }
        for read in journals.values {
            for line in read.lines {
                switch line.event {
                case .entry(let e):
                    if !many || ids.contains(e.id), let here = try entry(where: "id = ?", [.text(e.id)]) {
                        known.addEntry(here)
                    }
                    if let key = e.key, !many || keys.contains(key),
                        let here = try entry(where: "key = ?", [.text(key)])
                    {
                        known.addEntry(here)
                    }
                case .round(let r):
                    if try db.scalarInt("SELECT 1 FROM rounds WHERE id = ?", [.text(r.id)]) != nil {
                        known.rounds.insert(r.id)
                    }
                case .hoursLogged(let h):
                    if try db.scalarInt("SELECT 1 FROM hour_log WHERE id = ?", [.text(h.id)]) != nil {
                        known.hours.insert(h.id)
                    }
                default: break
                }
            }
        }
        try db.query("SELECT kind, name, hlc_ms, hlc_c, hlc_d FROM sync_registers") { row in
            let time = HybridTime(
                physicalMs: try row.int("hlc_ms"), logical: try row.int("hlc_c"), device: try row.text("hlc_d"))
            let name = try row.text("name")
            switch try row.text("kind") {
            case "mix": known.mixes[name] = time
            case "setting": known.settings[name] = time
            default: known.contracts[name] = time
            }
        }
        known.paidContracts = try paidContractIDs()
        known.recents = try recentsLocked()
        // A contract here without a register (made before sync) is older than any line about it.
        try db.query("SELECT id FROM contracts") { row in
            let id = try row.text("id")
            if known.contracts[id] == nil { known.contracts[id] = HybridTime(physicalMs: 0, logical: 0, device: "") }
        }
        return known
    }

    func setRegister(_ kind: String, _ name: String, _ time: HybridTime) throws {
        try db.run(
            """
            INSERT INTO sync_registers(kind, name, hlc_ms, hlc_c, hlc_d) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(kind, name) DO UPDATE SET hlc_ms = excluded.hlc_ms, hlc_c = excluded.hlc_c,
                hlc_d = excluded.hlc_d
            """, [.text(kind), .text(name), .int(time.physicalMs), .int(time.logical), .text(time.device)])
    }

    /// The device ids with a folder under the synced folder's `devices` (anything else there is ignored).
    static func journalDevices(dir: String) -> [String] {
        guard let handle = opendir(journalsFolder(dir: dir)) else { return [] }
        defer { closedir(handle) }
        var out: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard !name.hasPrefix("."), name.utf8.count <= 64,
                name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) })
            else { continue }
            out.append(name)
        }
        return out.sorted()
    }

    /// A file's bytes from `offset` on; nil when it cannot be read.
    static func readFile(_ path: String, from offset: Int = 0) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        guard size >= offset else { return [] }
        // Read into the array's storage as it is allocated (not zeroed first: a journal is tens of megabytes).
        return [UInt8](unsafeUninitializedCapacity: size - offset) { buffer, count in
            var at = 0
            while at < buffer.count {
                let n = pread(fd, buffer.baseAddress! + at, buffer.count - at, off_t(offset + at))
                guard n > 0 else { break }
                at += n
            }
            count = at
        }
    }
}
