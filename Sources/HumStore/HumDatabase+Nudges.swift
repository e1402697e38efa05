import HumCore

/// Hours logged by hand without a shield (docs/rules.md, "Nudges"), and what achievements are computed from.
extension HumDatabase {
    /// The most one day holds of hours logged without a shield, both verdicts together.
    public static let mostLoggedPerDay: Int64 = 86_400

    /// Where a log came from: a nudge's button, or `hum log`.
    public enum HourLogSource: String, Sendable {
        case nudge, command
    }

    /// Logs how the last `seconds` went (`hum log 1h --productive`, a nudge's button) for today by `day.starts-at`.
    /// Refused when the day would hold more than 24 h logged so. Returns the day's logged hours after it.
    public func logHours(_ verdict: HourVerdict, seconds: Int64, source: HourLogSource) throws -> LoggedHours {
        try guarded {
            try db.immediate {
                let now = calendar.now()
                let day = try dayBoundaryLocked().day(of: now.epochSeconds, zone: calendar.zone)
                var today = try loggedHoursLocked(from: day, to: day).first ?? LoggedHours(date: day)
                guard seconds > 0, today.seconds + seconds <= Self.mostLoggedPerDay else {
                    throw HourLogRefusal.tooMuch(day: day, already: today.seconds, adding: seconds)
                }
                try db.run(
                    "INSERT INTO hour_log(id, day, verdict, seconds, source, at_epoch, at_offset) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        .text(newID()), .int(day.daysSinceEpoch), .text(verdict.rawValue), .int(seconds),
                        .text(source.rawValue),
                        .int(now.epochSeconds), .int(Int64(now.offsetSeconds)),
                    ])
                switch verdict {
                case .productive: today.productiveSeconds += seconds
                case .distracting: today.distractingSeconds += seconds
                }
                return today
            }
        }
    }

    /// Hours logged without a shield per day from `first` to `last` (days by `day.starts-at`), days with none left
    /// out.
    public func loggedHours(from first: CivilDate, to last: CivilDate) throws -> [LoggedHours] {
        try guarded { try db.reading { try loggedHoursLocked(from: first, to: last) } }
    }

    private func loggedHoursLocked(from first: CivilDate, to last: CivilDate) throws -> [LoggedHours] {
        var out: [LoggedHours] = []
        try db.query(
            "SELECT day, TOTAL(CASE WHEN verdict = 'productive' THEN seconds ELSE 0 END) AS productive, "
                + "TOTAL(CASE WHEN verdict = 'distracting' THEN seconds ELSE 0 END) AS distracting "
                + "FROM hour_log WHERE day BETWEEN ? AND ? GROUP BY day ORDER BY day",
            [.int(first.daysSinceEpoch), .int(last.daysSinceEpoch)]
        ) { row in
            out.append(
                LoggedHours(
                    date: CivilDate(daysSinceEpoch: try row.int("day")),
                    productiveSeconds: Int64(try row.double("productive").rounded()),
                    distractingSeconds: Int64(try row.double("distracting").rounded())))
        }
        return out
    }

    /// What achievements are computed from, read in one transaction: every focus round (what the rules read of
    /// it), when each approved contract was approved, the shields' quotas, every shield's distracting time, the day
    /// boundary and today. `goalSeconds`: the daily goal in force.
    public func achievementHistory(goalSeconds: Int64) throws -> AchievementHistory {
        let calendar = self.calendar
        return try guarded {
            try db.reading {
                let boundary = try dayBoundaryLocked()
                var rounds: [RoundRecord] = []
                try db.query(
                    "SELECT id, status, start_epoch, start_offset, active FROM rounds WHERE kind = 'focus' "
                        + "ORDER BY start_epoch, id"
                ) { row in
                    let start = Timestamp(
                        epochSeconds: try row.int("start_epoch"),
                        offsetSeconds: Int32(clamping: try row.int("start_offset")))
                    rounds.append(
                        RoundRecord(
                            id: try row.text("id"), kind: .focus,
                            status: RoundStatus(rawValue: try row.text("status")) ?? .interrupted, start: start,
                            end: nil, plannedSeconds: 0, activeSeconds: max(0, try row.int("active")), pausedSeconds: 0)
                    )
                }
                var approvals: [Timestamp] = []
                try db.query(
                    "SELECT MIN(r.at_epoch) AS at_epoch, r.at_offset AS at_offset FROM contract_reviews r "
                        + "JOIN contracts c ON c.seq = r.contract_seq WHERE r.status = 'approved' "
                        + "AND c.status = 'approved' GROUP BY r.contract_seq"
                ) { row in
                    approvals.append(
                        Timestamp(
                            epochSeconds: try row.int("at_epoch"),
                            offsetSeconds: Int32(clamping: try row.int("at_offset"))))
                }
                var quotas: [String: ShieldQuota] = [:]
                for shield in try loadShields() { quotas[shield.name] = shield.quota }
                var distracting: [DistractingDay] = []
                try db.query(
                    "SELECT s.name AS name, u.day AS day, "
                        + "TOTAL(CASE WHEN u.source = 'measured' THEN u.seconds ELSE 0 END) AS measured, "
                        + "TOTAL(CASE WHEN u.source = 'logged' THEN u.seconds ELSE 0 END) AS logged "
                        + "FROM shield_usage u JOIN shields s ON s.seq = u.shield_seq GROUP BY s.name, u.day"
                ) { row in
                    distracting.append(
                        DistractingDay(
                            shield: try row.text("name"), date: CivilDate(daysSinceEpoch: try row.int("day")),
                            measuredSeconds: Int64(try row.double("measured").rounded()),
                            loggedSeconds: Int64(try row.double("logged").rounded())))
                }
                return AchievementHistory(
                    rounds: rounds, approvals: approvals, quotas: quotas, distracting: distracting,
                    goalSeconds: goalSeconds, boundary: boundary,
                    today: boundary.day(of: calendar.now().epochSeconds, zone: calendar.zone),
                    skippedByZone: { calendar.startOfDay($0) == calendar.startOfDay($0.adding(days: 1)) })
            }
        }
    }

    /// An hour logged here, as its journal line carries it; nil when there is none with that id.
    func hourLog(id: String) throws -> HourLogRecord? {
        var out: HourLogRecord? = nil
        try db.query(
            "SELECT id, day, verdict, seconds, source, at_epoch, at_offset FROM hour_log WHERE id = ?", [.text(id)]
        ) { row in
            guard let verdict = HourVerdict(rawValue: try row.text("verdict")) else { return }
            out = HourLogRecord(
                id: try row.text("id"), day: CivilDate(daysSinceEpoch: try row.int("day")), verdict: verdict,
                seconds: try row.int("seconds"), source: try row.text("source"),
                at: Timestamp(
                    epochSeconds: try row.int("at_epoch"), offsetSeconds: Int32(clamping: try row.int("at_offset"))))
        }
        return out
    }

    /// Adds an hour logged on another device (a sync merge); the caller checked it is not here yet.
    func insertHourLog(_ h: HourLogRecord) throws {
        try db.run(
            "INSERT INTO hour_log(id, day, verdict, seconds, source, at_epoch, at_offset) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(h.id), .int(h.day.daysSinceEpoch), .text(h.verdict.rawValue), .int(h.seconds), .text(h.source),
                .int(h.at.epochSeconds), .int(Int64(h.at.offsetSeconds)),
            ])
    }
}

/// A log of hours refused by the rules: the day would hold more than 24 hours logged without a shield.
public enum HourLogRefusal: UserFacingError, Equatable {
    case tooMuch(day: CivilDate, already: Int64, adding: Int64)

    public var kind: FailureKind { .refused }
    public var message: String {
        switch self {
        case .tooMuch(let day, let already, let adding):
            let f = DurationText.format(seconds:)
            return "\(day) already has \(f(already)) logged; adding \(f(adding)) would make the day longer than 24h; "
                + "nothing was logged"
        }
    }

}
