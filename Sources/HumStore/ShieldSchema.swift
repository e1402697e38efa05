/// The tables of shields (schema 5, docs/shields.md). A shield's row stays after `hum shield rm` (marked removed),
/// so the lifts and offs that name it keep their meaning in the history; a name is unique among the shields not
/// removed. Offs and lifts are on the record: rows are added and ended, never deleted.
enum ShieldSchema {
    static let migration = """
        CREATE TABLE shields(
            seq INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            created_epoch INTEGER NOT NULL,
            created_offset INTEGER NOT NULL,
            removed_epoch INTEGER
        );
        CREATE UNIQUE INDEX shields_live_name ON shields(name) WHERE removed_epoch IS NULL;
        CREATE TABLE shield_targets(
            shield_seq INTEGER NOT NULL REFERENCES shields(seq),
            position INTEGER NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('app', 'match', 'desktop-id')),
            value TEXT NOT NULL,
            PRIMARY KEY (shield_seq, position)
        ) WITHOUT ROWID;
        CREATE TABLE shield_offs(
            seq INTEGER PRIMARY KEY,
            shield_seq INTEGER NOT NULL REFERENCES shields(seq),
            start_epoch INTEGER NOT NULL,
            start_offset INTEGER NOT NULL,
            end_epoch INTEGER NOT NULL,
            reason TEXT,
            ended_epoch INTEGER
        );
        CREATE INDEX shield_offs_end ON shield_offs(end_epoch);
        CREATE TABLE shield_lifts(
            id TEXT PRIMARY KEY,
            shield_seq INTEGER NOT NULL REFERENCES shields(seq),
            entry_id TEXT,
            start_epoch INTEGER NOT NULL,
            deadline_epoch INTEGER NOT NULL,
            ended_epoch INTEGER,
            ended_by TEXT
        ) WITHOUT ROWID;
        CREATE INDEX shield_lifts_open ON shield_lifts(deadline_epoch) WHERE ended_epoch IS NULL;
        """
}
