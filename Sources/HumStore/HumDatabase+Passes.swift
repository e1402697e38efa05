import HumCore

/// Access passes: a hold on banked time, owned by a running process, settled once.
extension HumDatabase {
    /// Opens a pass: holds `seconds` and records the pass as owned by this process, in one transaction.
    public func openPass(id: String, seconds: Int64, label: String?, forfeit: Bool, command: [String]) throws
        -> LedgerDecision
    {
        try guarded {
            try db.immediate {
                try recordLocked(
                    .openPass(passID: id, seconds: seconds, label: label, forfeit: forfeit),
                    command: command.joined(separator: " "), settledBy: "owner")
            }
        }
    }

    /// Records the time used so far, and the command's process once started. False when the pass is no longer open
    /// (settled by a reconciliation that thought this process dead): the caller should stop.
    @discardableResult
    public func heartbeatPass(id: String, usedSeconds: Int64, child: ProcessOwner? = nil) throws -> Bool {
        try guarded {
            try db.run(
                """
                UPDATE passes SET used = MIN(held, MAX(used, ?)), heartbeat_epoch = ?,
                    child_pid = COALESCE(?, child_pid), child_start = COALESCE(?, child_start)
                WHERE id = ? AND state = 'open'
                """,
                [
                    .int(usedSeconds), .int(calendar.clock.nowEpochSeconds()), .optional(child.map { Int64($0.pid) }),
                    .optional(child?.startTicks), .text(id),
                ])
            return db.changes > 0
        }
    }

    /// Settles a pass once: the used time is spent, the rest returned unless forfeit. A replay with the same used
    /// time returns `.exists`. `settledBy` is written in the pass row: `owner` (the hum that ran it), `watchdog`
    /// (the process that stopped its command after that hum died).
    public func settlePass(id: String, usedSeconds: Int64, settledBy: String = "owner") throws -> LedgerDecision {
        try guarded {
            try db.immediate {
                try recordLocked(.settlePass(passID: id, usedSeconds: usedSeconds), command: nil, settledBy: settledBy)
            }
        }
    }

    /// The settlement of a pass, if it was settled.
    public func settlement(ofPass id: String) throws -> LedgerEntry? {
        try guarded { try entry(where: "kind = 'settle' AND pass_id = ?", [.text(id)]) }
    }

    public func openPass() throws -> OpenPass? { try guarded { try loadOpenPass() } }

    func loadOpenPass() throws -> OpenPass? {
        var pass: OpenPass? = nil
        try db.query(
            """
            SELECT id, hold_entry_id, held, forfeit, label, started_epoch, started_offset, deadline_epoch, used
            FROM passes WHERE state = 'open' LIMIT 1
            """
        ) { row in
            let started = Timestamp(
                epochSeconds: try row.int("started_epoch"),
                offsetSeconds: Int32(clamping: try row.int("started_offset")))
            pass = OpenPass(
                id: try row.text("id"), holdEntryID: try row.text("hold_entry_id"), heldSeconds: try row.int("held"),
                forfeit: try row.int("forfeit") != 0, label: try row.optionalText("label"), started: started,
                deadline: calendar.stamp(try row.int("deadline_epoch")), usedSeconds: try row.int("used"))
        }
        return pass
    }

    /// The pass row of a hold just written, owned by this process.
    func insertPass(holding entry: LedgerEntry, now: Timestamp, command: String?) throws {
        let owner = probe.current()
        try db.run(
            """
            INSERT INTO passes(id, hold_entry_id, label, held, forfeit, started, started_epoch, started_offset,
                deadline_epoch, state, used, heartbeat_epoch, owner_pid, owner_start, owner_boot, command)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', 0, ?, ?, ?, ?, ?)
            """,
            [
                .optional(entry.passID), .text(entry.id), .optional(entry.label), .int(-entry.amount),
                .int((entry.forfeit ?? false) ? 1 : 0), .text(now.rfc3339), .int(now.epochSeconds),
                .int(Int64(now.offsetSeconds)), .int(now.epochSeconds - entry.amount), .int(now.epochSeconds),
                .int(Int64(owner.pid)), .int(owner.startTicks), .text(owner.bootID), .optional(command),
            ])
    }

    /// Marks the pass of a settle entry just written as settled.
    func markPassSettled(by entry: LedgerEntry, settledBy: String) throws {
        try db.run(
            "UPDATE passes SET state = 'settled', used = ?, settled_by = ? WHERE id = ?",
            [.optional(entry.used), .text(settledBy), .optional(entry.passID)])
    }
}

/// The command of an emergency draw (`hum emergency DUR --reason … -- COMMAND`): owned by the hum that runs it, as a
/// pass is, so that when that hum and its watchdog both die the next hum command finds it (`reconcile`) and stops
/// it. Nothing is settled: the draw is not returned when the command ends early.
extension HumDatabase {
    /// Records that the command of the draw `entryID` is about to run, owned by this process, for at most `seconds`.
    /// Written before the command starts, so no moment of its life goes unrecorded. Idempotent by entry id.
    public func startEmergencyRun(entryID: String, seconds: Int64, command: [String]) throws {
        try guarded {
            try db.immediate {
                let owner = probe.current()
                let now = calendar.clock.nowEpochSeconds()
                try db.run(
                    """
                    INSERT OR IGNORE INTO emergency_runs(entry_id, state, started_epoch, deadline_epoch, owner_pid,
                        owner_start, owner_boot, command)
                    VALUES (?, 'running', ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(entryID), .int(now), .int(now.adding(saturating: max(0, seconds))),
                        .int(Int64(owner.pid)), .int(owner.startTicks), .text(owner.bootID),
                        .text(command.joined(separator: " ")),
                    ])
            }
        }
    }

    /// The command started: the process that leads its group, with its start time (what makes the group id safe to
    /// signal later: a pid reused by another process has another start time).
    public func emergencyRunStarted(entryID: String, leader: ProcessOwner) throws {
        try guarded {
            try db.run(
                "UPDATE emergency_runs SET child_pid = ?, child_start = ? WHERE entry_id = ? AND state = 'running'",
                [.int(Int64(leader.pid)), .int(leader.startTicks), .text(entryID)])
        }
    }

    /// The command ended, or was stopped: `by` is `owner` (the hum that ran it), `watchdog` or `reconcile`.
    public func endEmergencyRun(entryID: String, by: String = "owner") throws {
        try guarded {
            try db.run(
                "UPDATE emergency_runs SET state = 'ended', ended_by = ? WHERE entry_id = ? AND state = 'running'",
                [.text(by), .text(entryID)])
        }
    }

    /// The emergency commands recorded as running, by entry id; with `at`, only those whose deadline (epoch seconds)
    /// is not past at that instant.
    public func runningEmergencies(at now: Int64? = nil) throws -> [String] {
        try guarded {
            var ids: [String] = []
            try db.query(
                """
                SELECT entry_id FROM emergency_runs WHERE state = 'running' AND (?1 IS NULL OR deadline_epoch >= ?1)
                ORDER BY entry_id
                """, [.optional(now)]
            ) {
                ids.append(try $0.text("entry_id"))
            }
            return ids
        }
    }
}
