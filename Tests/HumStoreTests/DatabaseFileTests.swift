import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumStore

/// The database file: created whole or not at all, kept private, and refused (untouched) when it is not hum's.
@Suite struct DatabaseFileTests {
    func mode(_ path: String) -> mode_t {
        var info = stat()
        stat(path, &info)
        return info.st_mode & 0o777
    }

    func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return (error as? any UserFacingError)?.message ?? "\(error)" }
        return nil
    }

    /// A 0-byte hum.db silently became a new, empty ledger; it is a truncated copy and is refused, untouched.
    @Test func anEmptyFileIsRefusedUntouched() throws {
        let dir = TempDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/hum", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: dir.database, contents: Data()))
        let why = message { _ = try open(dir, clock: ManualClock(1_700_000_000)) }
        #expect(why?.contains("is empty (0 bytes)") == true && why?.contains("left untouched") == true, "\(why ?? "")")
        var info = stat()
        stat(dir.database, &info)
        #expect(info.st_size == 0)
        #expect(!FileManager.default.fileExists(atPath: dir.database + "-wal"))
    }

    /// The directory was tightened only on the second run, and a loosened -wal never.
    @Test func theDirectoryAndEveryFileAreMadePrivateOnEveryOpen() throws {
        let dir = TempDirectory()
        try FileManager.default.createDirectory(
            atPath: dir.path + "/hum", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let db = try open(dir, clock: ManualClock(1_700_000_000))
        #expect(mode(dir.path + "/hum") == 0o700)
        #expect(mode(dir.database) == 0o600)
        _ = try db.record(.adjust(seconds: 60, reason: "x", key: nil))
        for suffix in ["", "-wal", "-shm"] { chmod(dir.database + suffix, 0o644) }
        chmod(dir.path + "/hum", 0o755)
        let again = try open(dir, clock: ManualClock(1_700_000_000))
        #expect(mode(dir.path + "/hum") == 0o700)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: dir.database + suffix) {
            #expect(mode(dir.database + suffix) == 0o600, "\(suffix)")
        }
        #expect(FileManager.default.fileExists(atPath: dir.database + "-wal"))
        withExtendedLifetime((db, again)) {}
    }

    /// A creation killed before the database was linked into place leaves only a hidden temporary (which a later
    /// open removes once it is abandoned), never a half-made hum.db.
    @Test func anAbandonedCreationIsRemovedAndTheDatabaseCreatedWhole() throws {
        let dir = TempDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/hum", withIntermediateDirectories: true)
        let temp = dir.path + "/hum/.hum.db.new-dead"
        #expect(FileManager.default.createFile(atPath: temp, contents: Data(repeating: 7, count: 100)))
        #expect(FileManager.default.createFile(atPath: temp + "-journal", contents: Data(repeating: 7, count: 100)))
        var old = [timeval(tv_sec: 1_000_000, tv_usec: 0), timeval(tv_sec: 1_000_000, tv_usec: 0)]
        utimes(temp, &old)
        let db = try open(dir, clock: ManualClock(1_700_000_000))
        #expect(try db.check().isEmpty)
        #expect(
            !FileManager.default.fileExists(atPath: temp) && !FileManager.default.fileExists(atPath: temp + "-journal"))
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/hum")
        #expect(!names.contains { $0.hasPrefix(".hum.db.new-") }, "\(names)")
    }

    /// A file of another user was called "not a hum database" with advice to move it aside.
    @Test func anotherUsersFileIsNamedAsSuch() throws {
        guard geteuid() == 0 else { return }  // only root can give a file away
        let dir = TempDirectory()
        _ = try open(dir, clock: ManualClock(1_700_000_000))
        let before = try Data(contentsOf: URL(fileURLWithPath: dir.database))
        chown(dir.database, 4321, 4321)
        let why = message { _ = try open(dir, clock: ManualClock(1_700_000_000)) }
        #expect(why?.contains("belongs to another user (uid 4321)") == true, "\(why ?? "")")
        #expect(why?.contains("not a hum database") == false && why?.contains("move it aside") == false)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.database)) == before)
    }

    /// Database errors reached the user raw: the call, the result code and the SQL.
    @Test func sqliteErrorsReadAsOneLineNamingTheCase() {
        let cases: [(Int32, String)] = [
            (5, "stayed locked by another process"), (6, "stayed locked"), (13, "is full"),
            (8, "cannot be written"), (14, "cannot open the database"), (10, "reading or writing"),
            (11, "is damaged"), (26, "is damaged"), (19, "refused a change"), (1, "unexpected database error"),
        ]
        for (code, words) in cases {
            let e = SQLiteError(
                code: code, call: "sqlite3_step", sqliteMessage: "detail", sql: "INSERT INTO entries VALUES (1)",
                path: "/x/hum.db")
            let text = e.message
            #expect(text.contains(words) && text.contains("/x/hum.db"), "\(code): \(text)")
            #expect(!text.contains("INSERT") && !text.contains("sqlite3_") && !text.contains("\n"), "\(text)")
        }
    }

    func entry(_ id: String, _ kind: EntryKind, _ amount: Int64, pass: String? = nil, used: Int64? = nil)
        -> LedgerEntry
    {
        var e = LedgerEntry(
            id: id, key: nil, kind: kind, amount: amount, at: Timestamp(epochSeconds: 1_700_000_000, offsetSeconds: 0),
            device: "elsewhere", payload: "")
        e.passID = pass
        e.used = used
        e.reason = "r"
        // Each as hum writes it: the text and key of its request.
        let request: LedgerRequest? =
            switch kind {
            case .adjustment: .adjust(seconds: amount, reason: "r", key: nil)
            case .hold: .openPass(passID: pass ?? "", seconds: -amount, label: nil, forfeit: false)
            case .settle: .settlePass(passID: pass ?? "", usedSeconds: used ?? 0)
            default: nil
            }
        e.payload = request?.payload ?? "\(kind) \(id)"
        e.key = request?.key
        if kind == .hold { e.forfeit = false }
        return e
    }

    /// An import could leave the ledger failing check (or mint time check never flagged): now it is refused whole,
    /// in the same transaction, and nothing changes.
    @Test func anImportThatWouldBreakTheLedgerIsRefusedWhole() throws {
        let dir = TempDirectory()
        let db = try open(dir, clock: ManualClock(1_700_000_000))
        _ = try db.importLedger(entries: [entry("seed", .adjustment, 600)], sessions: [])
        let before = try db.entries()
        let start = Timestamp(epochSeconds: 1_699_000_000, offsetSeconds: 0)
        let lonelySession = RoundRecord(
            id: "s1", kind: .focus, status: .completed, start: start, end: start, plannedSeconds: 1500,
            activeSeconds: 1500, pausedSeconds: 0, earnedSeconds: 500)
        let bad: [(String, [LedgerEntry], [RoundRecord])] = [
            ("no hold", [entry("a", .adjustment, 60), entry("s", .settle, 900, pass: "p", used: 0)], []),
            (
                "released 900s; 0s was due",
                [entry("h", .hold, -60, pass: "p"), entry("s", .settle, 900, pass: "p", used: 60)], []
            ),
            ("completed round s1 has no grant", [entry("a", .adjustment, 60)], [lonelySession]),
        ]
        for (words, entries, sessions) in bad {
            let why = message { _ = try db.importLedger(entries: entries, sessions: sessions) }
            #expect(why?.contains(words) == true && why?.contains("nothing was imported") == true, "\(why ?? "")")
            #expect(try db.entries() == before)
            #expect(try db.rounds().isEmpty)
        }
        // An out-of-range session is refused before anything is written.
        var huge = lonelySession
        huge.activeSeconds = .max
        #expect(message { _ = try db.importLedger(entries: [], sessions: [huge]) }?.contains("out of range") == true)
        #expect(try db.check().isEmpty)
    }

    /// A date-bounded export includes what its sessions and passes need, so it imports whole.
    @Test func aBoundedExportCarriesTheGrantsAndHoldsItsRecordsNeed() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_700_000_000)
        let db = try open(dir, clock: clock)
        let start = clock.stampNow()
        try db.startRound(RoundStart(id: "r1", kind: .focus, start: start, plannedSeconds: 1500))
        clock.advance(3 * 86_400)  // the round ends, and is granted, three days later
        _ = try db.finishRound(id: "r1", status: .completed, activeSeconds: 1500, pausedSeconds: 0)
        _ = try db.openPass(id: "p1", seconds: 60, label: nil, forfeit: false, command: [])
        clock.advance(2 * 86_400)
        _ = try db.settlePass(id: "p1", usedSeconds: 30)
        // The first day only: the round, and its grant from three days later.
        var first: [LedgerEntry] = []
        try db.forEachExportEntry(from: nil, to: 1_700_000_000 + 86_400) { first.append($0) }
        #expect(first.map(\.kind) == [.grant])
        #expect(try db.exportRounds(from: nil, to: 1_700_000_000 + 86_400).map(\.id) == ["r1"])
        // The last day only: the settle with its hold, and the round of nothing.
        var last: [LedgerEntry] = []
        try db.forEachExportEntry(from: 1_700_000_000 + 4 * 86_400, to: nil) { last.append($0) }
        #expect(last.map(\.kind) == [.hold, .settle])
        let days = try db.exportRounds(from: 1_700_000_000 + 2 * 86_400, to: 1_700_000_000 + 4 * 86_400)
        #expect(days.map(\.id) == ["r1"])  // its grant was written in that range
        // Each slice imports whole into a new database.
        for (entries, sessions) in [(first, try db.exportRounds(from: nil, to: 1_700_000_000 + 86_400)), (last, [])] {
            let other = TempDirectory()
            let target = try open(other, clock: clock)
            _ = try target.importLedger(entries: entries, sessions: sessions)
            #expect(try target.check().isEmpty)
        }
    }
}
