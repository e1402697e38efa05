/// The database schema, as forward migrations. Migration `i` takes `PRAGMA user_version` from `i` to `i + 1`.
/// A migration may add tables, columns and indexes; it never drops or rewrites data.
enum Schema {
    /// `PRAGMA application_id`: "hum1". A file at the database path without it is not hum's.
    static let applicationID: Int32 = 0x6875_6D31

    static let migrations: [String] = [
        // 0 → 1: the ledger, passes, rounds of the history, settings.
        """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE totals(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            balance INTEGER NOT NULL,
            entries INTEGER NOT NULL
        );
        INSERT INTO totals(id, balance, entries) VALUES (1, 0, 0);
        CREATE TABLE entries(
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            key TEXT UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('grant', 'spend', 'hold', 'settle', 'emergency', 'adjustment')),
            amount INTEGER NOT NULL,
            at TEXT NOT NULL,
            at_epoch INTEGER NOT NULL,
            at_offset INTEGER NOT NULL,
            local_day TEXT NOT NULL,
            iso_week TEXT NOT NULL,
            device TEXT NOT NULL,
            payload TEXT NOT NULL,
            label TEXT,
            reason TEXT,
            round_id TEXT,
            pass_id TEXT,
            requested INTEGER,
            cut INTEGER,
            cap INTEGER,
            used INTEGER,
            forfeit INTEGER,
            reserve INTEGER,
            allowance INTEGER
        );
        CREATE INDEX entries_at ON entries(at_epoch);
        CREATE INDEX entries_grant_day ON entries(local_day, amount) WHERE kind = 'grant';
        CREATE INDEX entries_emergency_week ON entries(iso_week, reserve) WHERE kind = 'emergency';
        CREATE UNIQUE INDEX entries_one_grant_per_round ON entries(round_id) WHERE kind = 'grant';
        CREATE UNIQUE INDEX entries_one_hold_per_pass ON entries(pass_id) WHERE kind = 'hold';
        CREATE UNIQUE INDEX entries_one_settle_per_pass ON entries(pass_id) WHERE kind = 'settle';
        CREATE TRIGGER entries_total AFTER INSERT ON entries BEGIN
            UPDATE totals SET balance = balance + NEW.amount, entries = entries + 1 WHERE id = 1;
        END;
        CREATE TRIGGER entries_append_only_update BEFORE UPDATE ON entries BEGIN
            SELECT RAISE(ABORT, 'ledger entries are append-only');
        END;
        CREATE TRIGGER entries_append_only_delete BEFORE DELETE ON entries BEGIN
            SELECT RAISE(ABORT, 'ledger entries are append-only');
        END;
        CREATE TABLE passes(
            id TEXT PRIMARY KEY,
            hold_entry_id TEXT NOT NULL,
            label TEXT,
            held INTEGER NOT NULL,
            forfeit INTEGER NOT NULL,
            started TEXT NOT NULL,
            started_epoch INTEGER NOT NULL,
            started_offset INTEGER NOT NULL,
            deadline_epoch INTEGER NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('open', 'settled')),
            used INTEGER NOT NULL DEFAULT 0,
            heartbeat_epoch INTEGER NOT NULL,
            owner_pid INTEGER NOT NULL,
            owner_start INTEGER NOT NULL,
            owner_boot TEXT NOT NULL,
            child_pid INTEGER,
            child_start INTEGER,
            command TEXT,
            settled_by TEXT
        );
        CREATE UNIQUE INDEX passes_one_open ON passes(state) WHERE state = 'open';
        CREATE TABLE rounds(
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL CHECK (kind IN ('focus', 'short-break', 'long-break')),
            status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'interrupted', 'skipped')),
            start_at TEXT NOT NULL,
            start_epoch INTEGER NOT NULL,
            start_offset INTEGER NOT NULL,
            end_at TEXT,
            end_epoch INTEGER,
            end_offset INTEGER,
            deadline_epoch INTEGER,
            planned INTEGER NOT NULL,
            active INTEGER NOT NULL DEFAULT 0,
            paused INTEGER NOT NULL DEFAULT 0,
            goal TEXT,
            earned INTEGER NOT NULL DEFAULT 0,
            heartbeat_epoch INTEGER NOT NULL,
            owner_pid INTEGER,
            owner_start INTEGER,
            owner_boot TEXT
        );
        CREATE INDEX rounds_start ON rounds(start_epoch);
        CREATE INDEX rounds_running ON rounds(status) WHERE status = 'running';
        CREATE TABLE round_mix(
            round_seq INTEGER NOT NULL REFERENCES rounds(seq),
            position INTEGER NOT NULL,
            sound TEXT NOT NULL,
            volume REAL NOT NULL,
            PRIMARY KEY (round_seq, position)
        ) WITHOUT ROWID;
        CREATE TABLE round_tags(
            round_seq INTEGER NOT NULL REFERENCES rounds(seq),
            position INTEGER NOT NULL,
            tag TEXT NOT NULL,
            PRIMARY KEY (round_seq, position)
        ) WITHOUT ROWID;
        CREATE TABLE config(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
        """,
        // 1 → 2: saved mixes (`hum mix save`), by name; the mix as JSON ({"tracks":[…],"master":…}).
        """
        CREATE TABLE mixes(
            name TEXT PRIMARY KEY,
            mix TEXT NOT NULL,
            saved_at TEXT NOT NULL
        ) WITHOUT ROWID;
        """,
        // 2 → 3: focus contracts and their proof review (docs/contracts.md); rounds of a contract and rounds recorded
        // by hand; the contract of a grant.
        ContractSchema.migration,
        // 3 → 4: the command of an emergency draw while it runs, owned by its hum like a pass, so that the next hum
        // command stops it when that hum and its watchdog both died.
        """
        CREATE TABLE emergency_runs(
            entry_id TEXT PRIMARY KEY REFERENCES entries(id),
            state TEXT NOT NULL CHECK (state IN ('running', 'ended')),
            started_epoch INTEGER NOT NULL,
            deadline_epoch INTEGER NOT NULL,
            owner_pid INTEGER NOT NULL,
            owner_start INTEGER NOT NULL,
            owner_boot TEXT NOT NULL,
            child_pid INTEGER,
            child_start INTEGER,
            command TEXT,
            ended_by TEXT
        ) WITHOUT ROWID;
        CREATE INDEX emergency_runs_running ON emergency_runs(state) WHERE state = 'running';
        """,
        // 4 → 5: shields, their targets, their offs on the record and their lifts (docs/shields.md).
        ShieldSchema.migration,
        // 5 → 6: rules over time: schedules, shields' daily quotas, what paid for a lift (docs/rules.md).
        RulesSchema.migration,
        // 6 → 7 (`shield-sites`): the websites shields name, for the browser extension (docs/shields.md).
        SiteSchema.migration,
        // 7 → 8 (`rounds-away`): the time the person was away during a round (docs/rules.md, "Away").
        AwaySchema.migration,
        // 8 → 9 (`shield-usage`): how long each shield's programs ran while it was lifted, per day, and time logged
        // by hand (docs/shields.md, "Distracting time").
        ShieldUsageSchema.migration,
        // 9 → 10 (`nudge-log`): how a stretch of time went, logged by a nudge's button or `hum log --productive`
        // (docs/rules.md, "Nudges").
        NudgeSchema.migration,
        // 10 → 11 (`sync-journal`): this device's journal in a synced folder, the cursors of the others' journals,
        // and the hybrid times of last-writer-wins (docs/sync.md).
        SyncSchema.migration,
        // 11 → 12 (`hour-log-ids`): an id for each hour logged by hand, so that it travels (docs/sync.md).
        HourLogIDSchema.migration,
        // 12 → 13 (`recents`): the mixes played most recently, from the player's file into the database, so that
        // they travel (docs/sync.md).
        RecentsSchema.migration,
    ]

    static var latestVersion: Int64 { Int64(migrations.count) }
}
