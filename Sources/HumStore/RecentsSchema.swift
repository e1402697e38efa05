/// Migration `recents` (docs/sync.md): the mixes played most recently, moved from the player's `last-mix.json` into
/// the database, so that a merge of the other devices' plays changes them in the same transaction as the rest.
///
/// - `recents`: at most ten rows, one per mix (`mix`: its sounds and volumes as canonical JSON, `JournalJSON`),
///   with when it was last played (RFC 3339, local offset) and the hybrid time of that play: the order of the
///   recents on every device (`SyncRecents`). A play written while sync is on takes its journal line's time.
/// - Triggers note a play (a row added, or played again) in `sync_pending`, so it becomes a `mix.play` line of this
///   device's journal before the same transaction commits, like every other event.
/// - The file's recents are imported once, the first time the player opens a database that has this table
///   (`meta` key `recents-imported`).
enum RecentsSchema {
    static let name = "recents"
    static let migration = """
        CREATE TABLE recents(
            mix TEXT PRIMARY KEY,
            played_at TEXT NOT NULL,
            hlc_ms INTEGER NOT NULL,
            hlc_c INTEGER NOT NULL,
            hlc_d TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TRIGGER sync_recent_insert AFTER INSERT ON recents
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('play', NEW.mix);
        END;
        CREATE TRIGGER sync_recent_update AFTER UPDATE OF played_at ON recents
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('play', NEW.mix);
        END;
        """
}
