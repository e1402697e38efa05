/// Migration `nudge-log` (docs/rules.md, "Nudges"): how a stretch of time went, logged by hand without a shield (a
/// nudge's button, `hum log 1h --productive|--distracting`). One row per log, never changed: the day it counts for
/// (by `day.starts-at`, as days since 1970-01-01), the verdict, its length, when it was logged and from where.
enum NudgeSchema {
    static let name = "nudge-log"
    static let migration = """
        CREATE TABLE hour_log(
            seq INTEGER PRIMARY KEY,
            day INTEGER NOT NULL,
            verdict TEXT NOT NULL CHECK (verdict IN ('productive', 'distracting')),
            seconds INTEGER NOT NULL CHECK (seconds > 0 AND seconds <= 86400),
            source TEXT NOT NULL CHECK (source IN ('nudge', 'command')),
            at_epoch INTEGER NOT NULL,
            at_offset INTEGER NOT NULL
        );
        CREATE INDEX hour_log_day ON hour_log(day);
        """
}

/// Migration `hour-log-ids` (docs/sync.md): each hour logged by hand gets an id, so that it travels in the sync
/// journal (`hours.log`) and a merge adds it once; the rows logged before get one each. While sync is on, a trigger
/// notes every new row for the journal, like the other tables that travel.
enum HourLogIDSchema {
    static let name = "hour-log-ids"
    static let migration = """
        ALTER TABLE hour_log ADD COLUMN id TEXT;
        UPDATE hour_log SET id = lower(hex(randomblob(16)));
        CREATE UNIQUE INDEX hour_log_id ON hour_log(id);
        CREATE TRIGGER hour_log_needs_id BEFORE INSERT ON hour_log WHEN NEW.id IS NULL BEGIN
            SELECT RAISE(ABORT, 'an hour logged needs an id');
        END;
        CREATE TRIGGER sync_hours AFTER INSERT ON hour_log
        WHEN (SELECT dir FROM sync_self) IS NOT NULL BEGIN
            INSERT INTO sync_pending(kind, ref) VALUES ('hours', NEW.id);
        END;
        """
}
