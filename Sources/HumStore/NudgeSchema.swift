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
