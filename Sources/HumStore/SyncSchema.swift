/// Migration `sync-journal` (docs/sync.md): what a device keeps to write its journal into a synced folder and merge
/// the others'.
///
/// - `sync_self`: one row. The folder (NULL while sync is off), this device's id and the salt it was derived with,
///   the next sequence number, the hash of the last line and the hybrid clock's last reading.
/// - `sync_pending`: what a write transaction changed, filled by triggers while sync is on; turned into journal
///   lines just before the same transaction commits, then emptied.
/// - `sync_outbox`: lines committed but not yet confirmed appended (and fsynced) to the journal file; emptied once
///   they are, and flushed again at the next start when a crash came in between.
/// - `sync_cursors`: per other device, where its journal was read up to (offset, sequence, hash, clock), and the
///   problem found in it (reported once).
/// - `sync_registers`: the hybrid time of the last write of each saved mix, travelling setting and contract, for
///   last-writer-wins.
enum SyncSchema {
    static let name = "sync-journal"
    static let migration = """
        CREATE TABLE sync_self(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            dir TEXT,
            device TEXT NOT NULL DEFAULT '',
            salt TEXT NOT NULL DEFAULT '',
            next_seq INTEGER NOT NULL DEFAULT 1 CHECK (next_seq >= 1),
            last_hash TEXT NOT NULL DEFAULT '\(String(repeating: "0", count: 64))',
            hlc_ms INTEGER NOT NULL DEFAULT 0,
            hlc_c INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO sync_self(id) VALUES (1);
        CREATE TABLE sync_pending(n INTEGER PRIMARY KEY, kind TEXT NOT NULL, ref TEXT NOT NULL);
        CREATE TABLE sync_outbox(seq INTEGER PRIMARY KEY, line BLOB NOT NULL);
        CREATE TABLE sync_cursors(
            device TEXT PRIMARY KEY,
            offset INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            last_hash TEXT NOT NULL,
            hlc_ms INTEGER,
            hlc_c INTEGER,
            last_event_epoch INTEGER,
            problem TEXT,
            problem_reported INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE TABLE sync_registers(
            kind TEXT NOT NULL CHECK (kind IN ('mix', 'setting', 'contract')),
            name TEXT NOT NULL,
            hlc_ms INTEGER NOT NULL,
            hlc_c INTEGER NOT NULL,
            hlc_d TEXT NOT NULL,
            PRIMARY KEY (kind, name)
        ) WITHOUT ROWID;
        CREATE TRIGGER sync_entry AFTER INSERT ON entries
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('entry', NEW.id);
        END;
        CREATE TRIGGER sync_round_insert AFTER INSERT ON rounds
        WHEN (SELECT dir FROM sync_self) IS NOT NULL AND NEW.status != 'running' BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('round', NEW.id);
        END;
        CREATE TRIGGER sync_round_end AFTER UPDATE OF status ON rounds
        WHEN (SELECT dir FROM sync_self) IS NOT NULL AND OLD.status = 'running' AND NEW.status != 'running' BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('round', NEW.id);
        END;
        CREATE TRIGGER sync_contract_insert AFTER INSERT ON contracts
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('contract', NEW.id);
        END;
        CREATE TRIGGER sync_contract_update AFTER UPDATE ON contracts
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('contract', NEW.id);
        END;
        CREATE TRIGGER sync_contract_review AFTER INSERT ON contract_reviews
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) SELECT 'contract', id FROM contracts WHERE seq = NEW.contract_seq;
        END;
        CREATE TRIGGER sync_contract_review_update AFTER UPDATE ON contract_reviews
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) SELECT 'contract', id FROM contracts WHERE seq = NEW.contract_seq;
        END;
        CREATE TRIGGER sync_mix_insert AFTER INSERT ON mixes
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('mix', NEW.name);
        END;
        CREATE TRIGGER sync_mix_update AFTER UPDATE ON mixes
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('mix', NEW.name);
        END;
        CREATE TRIGGER sync_mix_delete AFTER DELETE ON mixes
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('mix', OLD.name);
        END;
        CREATE TRIGGER sync_setting_insert AFTER INSERT ON config
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('setting', NEW.key);
        END;
        CREATE TRIGGER sync_setting_update AFTER UPDATE ON config
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('setting', NEW.key);
        END;
        CREATE TRIGGER sync_setting_delete AFTER DELETE ON config
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('setting', OLD.key);
        END;
        """
}
