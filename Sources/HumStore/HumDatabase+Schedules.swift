import HumCore

/// Schedules (`hum schedule`) and shields' daily quotas (`hum shield set`), docs/rules.md. Every read-check-write is
/// one `BEGIN IMMEDIATE` transaction; strict mode's refusals (a strict contract, a strict schedule in its window) are
/// decided inside it.
extension HumDatabase {
    /// Saves a new schedule. Its shields must exist; its name must be free. A free window loosens, so a strict
    /// contract refuses it.
    public func addSchedule(_ schedule: Schedule) throws {
        try guarded {
            try db.immediate {
                if try liveScheduleSeq(schedule.name) != nil { throw ScheduleStoreError.exists(schedule.name) }
                for shield in schedule.shields { _ = try requireShield(shield) }
                if schedule.free, let refusal = try strictRefusal(.freeWindow(schedule.name)) { throw refusal }
                try db.run(
                    """
                    INSERT INTO schedules(name, from_minute, to_minute, strict, free, created_epoch, created_offset)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(schedule.name), .int(Int64(schedule.from.minutes)), .int(Int64(schedule.to.minutes)),
                        .int(schedule.strict ? 1 : 0), .int(schedule.free ? 1 : 0),
                        .int(schedule.created.epochSeconds), .int(Int64(schedule.created.offsetSeconds)),
                    ])
                let seq = try db.scalarInt("SELECT last_insert_rowid()") ?? 0
                for day in schedule.days.isoWeekdays {
                    try db.run(
                        "INSERT INTO schedule_days(schedule_seq, weekday) VALUES (?, ?)", [.int(seq), .int(Int64(day))])
                }
                for (position, shield) in schedule.shields.enumerated() {
                    try db.run(
                        "INSERT INTO schedule_shields(schedule_seq, position, shield) VALUES (?, ?, ?)",
                        [.int(seq), .int(Int64(position)), .text(shield)])
                }
            }
        }
    }

    /// The schedules, oldest first (removed ones left out).
    public func schedules() throws -> [Schedule] {
        try guarded { try db.reading { try loadSchedules() } }
    }

    /// The schedule of that name, or nil.
    public func schedule(named name: String) throws -> Schedule? {
        try guarded { try db.reading { try liveScheduleSeq(name).flatMap { try loadSchedule(seq: $0) } } }
    }

    /// Removes a schedule (its row stays, marked removed). Removing a lock loosens: a strict contract refuses it,
    /// and a strict schedule refuses it while its window holds.
    public func removeSchedule(named name: String) throws {
        try guarded {
            try db.immediate {
                guard let seq = try liveScheduleSeq(name), let schedule = try loadSchedule(seq: seq) else {
                    throw ScheduleStoreError.unknown(name, known: try loadSchedules().map(\.name))
                }
                let now = calendar.clock.nowEpochSeconds()
                if !schedule.free {
                    if schedule.strict, schedule.isActive(at: now, zone: calendar.zone) {
                        let end = schedule.nextEdge(after: now, zone: calendar.zone)
                        throw ScheduleStoreError.strictWindow(name, until: end.map { calendar.stamp($0) })
                    }
                    if let refusal = try strictRefusal(.removeSchedule(name)) { throw refusal }
                }
                try db.run("UPDATE schedules SET removed_epoch = ? WHERE seq = ?", [.int(now), .int(seq)])
            }
        }
    }

    /// Sets a shield's daily quota, or drops it with nil. A quota that gives more lifted time than the one before,
    /// on some day of the next two years, loosens: a strict contract refuses it. Returns the shield as it is now.
    @discardableResult
    public func setShieldQuota(shield name: String, quota: ShieldQuota?) throws -> Shield {
        try guarded {
            try db.immediate {
                let seq = try requireShield(name)
                guard var shield = try loadShield(seq: seq) else { throw ShieldStoreError.unknown(name, known: []) }
                let now = calendar.clock.nowEpochSeconds()
                if ShieldQuota.loosens(
                    from: shield.quota, to: quota, at: now, zone: calendar.zone, boundary: try dayBoundaryLocked()),
                    let refusal = try strictRefusal(.quota(name))
                {
                    throw refusal
                }
                var bp: Int64? = nil
                var step: Int64? = nil
                switch quota?.reduction {
                case .percent(let basisPoints): bp = Int64(basisPoints)
                case .absolute(let seconds): step = seconds
                case nil: break
                }
                try db.run(
                    """
                    UPDATE shields SET quota_seconds = ?, quota_reduce_bp = ?, quota_reduce_seconds = ?,
                        quota_floor = ?, quota_since_epoch = ?, quota_since_offset = ?
                    WHERE seq = ?
                    """,
                    [
                        .optional(quota?.dailySeconds), .optional(bp), .optional(step),
                        .optional(quota?.floorSeconds), .optional(quota?.since.epochSeconds),
                        .optional(quota.map { Int64($0.since.offsetSeconds) }), .int(seq),
                    ])
                shield.quota = quota
                return shield
            }
        }
    }

    /// The lifts paid by a quota that started in the last two days, ended or not: what the quotas' use today is
    /// counted from (`ShieldQuota.used`), whatever the day boundary.
    public func quotaLifts() throws -> [ShieldLift] {
        try guarded { try db.reading { try quotaLiftsLocked() } }
    }

    func quotaLiftsLocked() throws -> [ShieldLift] {
        var lifts: [ShieldLift] = []
        try db.query(
            """
            SELECT l.id, s.name, l.entry_id, l.start_epoch, l.deadline_epoch, l.ended_epoch, l.budget
            FROM shield_lifts l JOIN shields s ON s.seq = l.shield_seq
            WHERE s.removed_epoch IS NULL AND l.budget = 'quota' AND l.start_epoch >= ?
            ORDER BY l.start_epoch, l.id
            """, [.int(calendar.clock.nowEpochSeconds() - 2 * 86_400)]
        ) { row in lifts.append(try Self.lift(row)) }
        return lifts
    }

    // MARK: Reading

    /// `day.starts-at` as stored (midnight when unset or unreadable).
    func dayBoundaryLocked() throws -> DayBoundary {
        DayBoundary(settingText: try db.scalarText("SELECT value FROM config WHERE key = 'day.starts-at'") ?? "")
    }

    static func quota(_ row: Statement) throws -> ShieldQuota? {
        guard let seconds = try row.optionalInt("quota_seconds") else { return nil }
        var reduction: QuotaReduction? = nil
        if let bp = try row.optionalInt("quota_reduce_bp") {
            reduction = .percent(basisPoints: Int(bp))
        } else if let step = try row.optionalInt("quota_reduce_seconds") {
            reduction = .absolute(seconds: step)
        }
        return ShieldQuota(
            dailySeconds: seconds, reduction: reduction, floorSeconds: try row.optionalInt("quota_floor") ?? 0,
            since: Timestamp(
                epochSeconds: try row.optionalInt("quota_since_epoch") ?? 0,
                offsetSeconds: Int32(clamping: try row.optionalInt("quota_since_offset") ?? 0)))
    }

    func liveScheduleSeq(_ name: String) throws -> Int64? {
        try db.scalarInt("SELECT seq FROM schedules WHERE name = ? AND removed_epoch IS NULL", [.text(name)])
    }

    func loadSchedules() throws -> [Schedule] {
        var seqs: [Int64] = []
        try db.query("SELECT seq FROM schedules WHERE removed_epoch IS NULL ORDER BY seq") {
            seqs.append(try $0.int("seq"))
        }
        return try seqs.compactMap { try loadSchedule(seq: $0) }
    }

    func loadSchedule(seq: Int64) throws -> Schedule? {
        var days: [Int] = []
        try db.query("SELECT weekday FROM schedule_days WHERE schedule_seq = ?", [.int(seq)]) {
            days.append(Int(try $0.int("weekday")))
        }
        var shields: [String] = []
        try db.query("SELECT shield FROM schedule_shields WHERE schedule_seq = ? ORDER BY position", [.int(seq)]) {
            shields.append(try $0.text("shield"))
        }
        var schedule: Schedule? = nil
        try db.query("SELECT * FROM schedules WHERE seq = ?", [.int(seq)]) { row in
            guard let from = WallTime(minutes: Int(try row.int("from_minute"))),
                let to = WallTime(minutes: Int(try row.int("to_minute")))
            else { return }
            schedule = Schedule(
                name: try row.text("name"), days: Weekdays(isoWeekdays: days), from: from, to: to, shields: shields,
                strict: try row.int("strict") == 1, free: try row.int("free") == 1,
                created: Timestamp(
                    epochSeconds: try row.int("created_epoch"),
                    offsetSeconds: Int32(clamping: try row.int("created_offset"))))
        }
        return schedule
    }
}

/// Why a schedule could not be changed as asked.
public enum ScheduleStoreError: UserFacingError, Equatable {
    case unknown(String, known: [String])
    case exists(String)
    /// A strict schedule's window holds: it cannot be removed before it ends.
    case strictWindow(String, until: Timestamp?)

    public var kind: FailureKind {
        switch self {
        case .unknown, .exists: .usage
        case .strictWindow: .refused
        }
    }

    public var message: String {
        switch self {
        case .unknown(let name, let known):
            let hint = Suggest.closest(to: name, in: known).map { "did you mean \($0)? " } ?? ""
            return known.isEmpty
                ? "no schedule \(name.quoted): there are none yet; make one with 'hum schedule add NAME --days "
                    + "mon-fri --from 09:00 --to 18:00 --lock SHIELD'"
                : "no schedule \(name.quoted); \(hint)see 'hum schedule list'"
        case .exists(let name):
            return "a schedule \(name.quoted) exists already; remove it first ('hum schedule rm \(name)') or pick "
                + "another name"
        case .strictWindow(let name, let until):
            let when = until.map { "after \($0.localClock)" } ?? "when its window ends"
            return "the schedule \(name) is strict and its window holds now: removing it is refused; nothing was "
                + "changed. It can be removed \(when)"
        }
    }
}
