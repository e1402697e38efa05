import HumCore

/// The migration "shield-usage": distracting time per shield per day (by `day.starts-at`, stored as days since
/// 1970-01-01). The guard's measurement is one row per shield and day (`measured`, added to); each `hum log --shield`
/// is a row of its own (`logged`), so that hand-logged time stays apart and on the record.
enum ShieldUsageSchema {
    static let migration = """
        CREATE TABLE shield_usage(
            seq INTEGER PRIMARY KEY,
            shield_seq INTEGER NOT NULL REFERENCES shields(seq),
            day INTEGER NOT NULL,
            source TEXT NOT NULL CHECK (source IN ('measured', 'logged')),
            seconds INTEGER NOT NULL CHECK (seconds >= 0),
            at_epoch INTEGER NOT NULL,
            at_offset INTEGER NOT NULL
        );
        CREATE UNIQUE INDEX shield_usage_measured ON shield_usage(shield_seq, day) WHERE source = 'measured';
        CREATE INDEX shield_usage_day ON shield_usage(day);
        """
}

/// Distracting time (docs/shields.md): measured by the guard while a shield is lifted, logged by hand.
extension HumDatabase {
    /// The most time one day can hold for one shield, measured and logged together.
    public static let mostUsagePerDay: Int64 = 86_400

    /// Adds what the guard measured: seconds per shield (by name; a shield removed since is still found by its last
    /// row) on the day given. One transaction for all.
    public func addMeasuredUsage(_ usage: [(shield: String, day: CivilDate, seconds: Int64)]) throws {
        guard usage.contains(where: { $0.seconds > 0 }) else { return }
        try guarded {
            try db.immediate {
                let now = calendar.now()
                for item in usage where item.seconds > 0 {
                    guard let seq = try usageShieldSeq(item.shield) else { continue }
                    try db.run(
                        "INSERT INTO shield_usage(shield_seq, day, source, seconds, at_epoch, at_offset) "
                            + "VALUES (?, ?, 'measured', ?, ?, ?) ON CONFLICT(shield_seq, day) WHERE source = "
                            + "'measured' DO UPDATE SET seconds = MIN(?, seconds + excluded.seconds), "
                            + "at_epoch = excluded.at_epoch, at_offset = excluded.at_offset",
                        [
                            .int(seq), .int(item.day.daysSinceEpoch), .int(min(item.seconds, Self.mostUsagePerDay)),
                            .int(now.epochSeconds), .int(Int64(now.offsetSeconds)), .int(Self.mostUsagePerDay),
                        ])
                }
            }
        }
    }

    /// Records time spent on a shield's programs elsewhere (`hum log 20m --shield social`), on today by
    /// `day.starts-at`. Refused when the shield does not exist, or when the day would hold more than 24 h for it.
    /// Returns the day and that day's distracting time for the shield after it.
    public func logUsage(shield name: String, seconds: Int64) throws -> DistractingDay {
        try guarded {
            try db.immediate {
                guard let seq = try liveShieldSeq(name) else {
                    throw ShieldStoreError.unknown(name, known: try liveShieldNamesForUsage())
                }
                let now = calendar.now()
                let day = try dayBoundaryLocked().day(of: now.epochSeconds, zone: calendar.zone)
                var today = try usage(seq: seq, name: name, day: day)
                guard seconds > 0, today.seconds + seconds <= Self.mostUsagePerDay else {
                    throw UsageLogRefusal.tooMuch(shield: name, day: day, already: today.seconds, adding: seconds)
                }
                try db.run(
                    "INSERT INTO shield_usage(shield_seq, day, source, seconds, at_epoch, at_offset) "
                        + "VALUES (?, ?, 'logged', ?, ?, ?)",
                    [
                        .int(seq), .int(day.daysSinceEpoch), .int(seconds), .int(now.epochSeconds),
                        .int(Int64(now.offsetSeconds)),
                    ])
                today.loggedSeconds += seconds
                return today
            }
        }
    }

    /// Distracting time per shield per day from `first` to `last` (days by `day.starts-at`), days with none left
    /// out; by day, then by shield name.
    public func distractingDays(from first: CivilDate, to last: CivilDate) throws -> [DistractingDay] {
        try guarded {
            try db.reading {
                var out: [DistractingDay] = []
                try db.query(
                    "SELECT s.name AS name, u.day AS day, "
                        + "TOTAL(CASE WHEN u.source = 'measured' THEN u.seconds ELSE 0 END) AS measured, "
                        + "TOTAL(CASE WHEN u.source = 'logged' THEN u.seconds ELSE 0 END) AS logged "
                        + "FROM shield_usage u JOIN shields s ON s.seq = u.shield_seq "
                        + "WHERE u.day BETWEEN ? AND ? GROUP BY s.name, u.day ORDER BY u.day, s.name",
                    [.int(first.daysSinceEpoch), .int(last.daysSinceEpoch)]
                ) { row in
                    out.append(
                        DistractingDay(
                            shield: try row.text("name"), date: CivilDate(daysSinceEpoch: try row.int("day")),
                            measuredSeconds: Int64(try row.double("measured").rounded()),
                            loggedSeconds: Int64(try row.double("logged").rounded())))
                }
                return out
            }
        }
    }

    /// The day `day.starts-at` puts now in.
    public func usageToday() throws -> CivilDate {
        try guarded {
            try db.reading { try dayBoundaryLocked().day(of: calendar.now().epochSeconds, zone: calendar.zone) }
        }
    }

    private func usage(seq: Int64, name: String, day: CivilDate) throws -> DistractingDay {
        var out = DistractingDay(shield: name, date: day)
        try db.query(
            "SELECT source, TOTAL(seconds) AS seconds FROM shield_usage WHERE shield_seq = ? AND day = ? "
                + "GROUP BY source",
            [.int(seq), .int(day.daysSinceEpoch)]
        ) { row in
            let seconds = Int64(try row.double("seconds").rounded())
            if try row.text("source") == "measured" {
                out.measuredSeconds = seconds
            } else {
                out.loggedSeconds = seconds
            }
        }
        return out
    }

    /// The shield named `name`: the live one, else the last removed one of that name.
    private func usageShieldSeq(_ name: String) throws -> Int64? {
        if let seq = try liveShieldSeq(name) { return seq }
        return try db.scalarInt("SELECT MAX(seq) FROM shields WHERE name = ?", [.text(name)])
    }

    private func liveShieldNamesForUsage() throws -> [String] {
        var names: [String] = []
        try db.query("SELECT name FROM shields WHERE removed_epoch IS NULL ORDER BY seq") {
            names.append(try $0.text("name"))
        }
        return names
    }
}

/// A hand log refused by the rules: the day would hold more than 24 hours of distracting time for the shield.
public enum UsageLogRefusal: UserFacingError, Equatable {
    case tooMuch(shield: String, day: CivilDate, already: Int64, adding: Int64)

    public var kind: FailureKind { .refused }
    public var message: String {
        switch self {
        case .tooMuch(let shield, let day, let already, let adding):
            let f = DurationText.format(seconds:)
            return "\(shield) already has \(f(already)) of distracting time on \(day); adding \(f(adding)) would make "
                + "the day longer than 24h; nothing was logged"
        }
    }
}
