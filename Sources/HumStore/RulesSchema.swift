/// The rules over time (schema 6, docs/rules.md): schedules with their days and the shields they name; a shield's
/// daily quota and its weekly reduction; what paid for a lift. A schedule's row stays after `hum schedule rm`
/// (marked removed), as a shield's does. Shields are named by name in a schedule, so a schedule outlives a shield
/// removed and made again.
enum RulesSchema {
    static let migration = """
        CREATE TABLE schedules(
            seq INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            from_minute INTEGER NOT NULL CHECK (from_minute BETWEEN 0 AND 1439),
            to_minute INTEGER NOT NULL CHECK (to_minute BETWEEN 0 AND 1440 AND to_minute <> from_minute),
            strict INTEGER NOT NULL CHECK (strict IN (0, 1)),
            free INTEGER NOT NULL CHECK (free IN (0, 1)),
            created_epoch INTEGER NOT NULL,
            created_offset INTEGER NOT NULL,
            removed_epoch INTEGER
        );
        CREATE UNIQUE INDEX schedules_live_name ON schedules(name) WHERE removed_epoch IS NULL;
        CREATE TABLE schedule_days(
            schedule_seq INTEGER NOT NULL REFERENCES schedules(seq),
            weekday INTEGER NOT NULL CHECK (weekday BETWEEN 1 AND 7),
            PRIMARY KEY (schedule_seq, weekday)
        ) WITHOUT ROWID;
        CREATE TABLE schedule_shields(
            schedule_seq INTEGER NOT NULL REFERENCES schedules(seq),
            position INTEGER NOT NULL,
            shield TEXT NOT NULL,
            PRIMARY KEY (schedule_seq, position)
        ) WITHOUT ROWID;
        ALTER TABLE shields ADD COLUMN quota_seconds INTEGER CHECK (quota_seconds BETWEEN 1 AND 86400);
        ALTER TABLE shields ADD COLUMN quota_reduce_bp INTEGER CHECK (quota_reduce_bp BETWEEN 1 AND 9999);
        ALTER TABLE shields ADD COLUMN quota_reduce_seconds INTEGER CHECK (quota_reduce_seconds BETWEEN 1 AND 86400);
        ALTER TABLE shields ADD COLUMN quota_floor INTEGER CHECK (quota_floor BETWEEN 0 AND 86400);
        ALTER TABLE shields ADD COLUMN quota_since_epoch INTEGER;
        ALTER TABLE shields ADD COLUMN quota_since_offset INTEGER;
        ALTER TABLE shield_lifts ADD COLUMN budget TEXT CHECK (budget IN ('quota', 'bank', 'emergency'));
        CREATE INDEX shield_lifts_quota ON shield_lifts(start_epoch) WHERE budget = 'quota';
        """
}
