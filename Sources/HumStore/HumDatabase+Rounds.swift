import HumCore

/// The history of rounds: what the focus timer writes.
extension HumDatabase {
    /// Records a round as started, owned by this process, with its deadline. Idempotent by id: starting the same
    /// round again changes nothing; an id already used by another round is an error.
    public func startRound(_ round: RoundStart) throws {
        try guarded {
            try db.immediate {
                if let existing = try loadRounds(where: "r.id = ?", [.text(round.id)]).first {
                    guard existing.kind == round.kind, existing.start == round.start else {
                        throw StoreError.roundConflict("round \(round.id) already exists with another kind or start")
                    }
                    return
                }
                let owner = probe.current()
                try db.run(
                    """
                    INSERT INTO rounds(id, kind, status, start_at, start_epoch, start_offset, deadline_epoch, planned, goal,
                        heartbeat_epoch, owner_pid, owner_start, owner_boot)
                    VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(round.id), .text(round.kind.rawValue), .text(round.start.rfc3339),
                        .int(round.start.epochSeconds),
                        .int(Int64(round.start.offsetSeconds)), .optional(round.deadline?.epochSeconds),
                        .int(max(0, round.plannedSeconds)), .optional(round.goal),
                        .int(calendar.clock.nowEpochSeconds()),
                        .int(Int64(owner.pid)), .int(owner.startTicks), .text(owner.bootID),
                    ])
                let seq = try db.scalarInt("SELECT seq FROM rounds WHERE id = ?", [.text(round.id)]) ?? 0
                try writeMix(seq: seq, round.mix)
                for (i, tag) in round.tags.enumerated() {
                    try db.run(
                        "INSERT INTO round_tags(round_seq, position, tag) VALUES (?, ?, ?)",
                        [.int(seq), .int(Int64(i)), .text(tag)])
                }
            }
        }
    }

    func writeMix(seq: Int64, _ mix: [MixItem]) throws {
        try db.run("DELETE FROM round_mix WHERE round_seq = ?", [.int(seq)])
        for (i, item) in mix.enumerated() {
            try db.run(
                "INSERT INTO round_mix(round_seq, position, sound, volume) VALUES (?, ?, ?, ?)",
                [.int(seq), .int(Int64(i)), .text(item.sound), .double(item.volume.isFinite ? item.volume : 0)])
        }
    }

    /// Records progress of a running round (active and paused seconds so far; the mix when it changed). What a
    /// reconciliation keeps if the process dies. False when the round is not running any more.
    @discardableResult
    public func heartbeatRound(id: String, activeSeconds: Int64, pausedSeconds: Int64, mix: [MixItem]? = nil) throws
        -> Bool
    {
        try guarded {
            try db.immediate {
                try db.run(
                    """
                    UPDATE rounds SET active = ?, paused = ?, heartbeat_epoch = ? WHERE id = ? AND status = 'running'
                    """,
                    [
                        .int(max(0, activeSeconds)), .int(max(0, pausedSeconds)),
                        .int(calendar.clock.nowEpochSeconds()),
                        .text(id),
                    ])
                guard db.changes > 0 else { return false }
                if let mix, let seq = try db.scalarInt("SELECT seq FROM rounds WHERE id = ?", [.text(id)]) {
                    try writeMix(seq: seq, mix)
                }
                return true
            }
        }
    }

    /// Finishes a running round and, for a completed focus round, grants its earnings in the same transaction,
    /// keyed by the round id (never twice). A replay with the same status and times returns the same outcome with
    /// `.exists`; finishing it differently is an error.
    public func finishRound(
        id: String, status: RoundStatus, activeSeconds: Int64, pausedSeconds: Int64,
        end: Timestamp? = nil
    ) throws -> RoundOutcome {
        guard status != .running else { throw StoreError.round("a round cannot finish as running") }
        return try guarded {
            try db.immediate {
                try finishLocked(id: id, status: status, active: activeSeconds, paused: pausedSeconds, end: end)
            }
        }
    }

    func finishLocked(id: String, status: RoundStatus, active: Int64, paused: Int64, end: Timestamp?) throws
        -> RoundOutcome
    {
        guard let round = try loadRounds(where: "r.id = ?", [.text(id)]).first else {
            throw StoreError.round("no round \(id) was started")
        }
        let active = max(0, active)
        let paused = max(0, paused)
        if round.status != .running {
            guard round.status == status, round.activeSeconds == active else {
                throw StoreError.roundConflict(
                    "round \(id) already finished as \(round.status.rawValue) with \(round.activeSeconds)s active")
            }
            let grant = try entry(where: "kind = 'grant' AND round_id = ?", [.text(id)]).map {
                LedgerDecision.exists($0)
            }
            return RoundOutcome(round: round, grant: grant)
        }
        let end = end ?? calendar.now()
        var grant: LedgerDecision? = nil
        var earned: Int64 = 0
        if status == .completed && round.kind == .focus {
            let decision = try recordLocked(
                .grant(roundID: id, activeSeconds: active), command: nil, settledBy: "owner")
            grant = decision
            earned = decision.entry.amount
        }
        try db.run(
            """
            UPDATE rounds SET status = ?, end_at = ?, end_epoch = ?, end_offset = ?, active = ?, paused = ?, earned = ?,
                heartbeat_epoch = ?
            WHERE id = ?
            """,
            [
                .text(status.rawValue), .text(end.rfc3339), .int(end.epochSeconds), .int(Int64(end.offsetSeconds)),
                .int(active), .int(paused), .int(earned), .int(calendar.clock.nowEpochSeconds()), .text(id),
            ])
        var finished = round
        finished.status = status
        finished.end = end
        finished.activeSeconds = active
        finished.pausedSeconds = paused
        finished.earnedSeconds = earned
        return RoundOutcome(round: finished, grant: grant)
    }

    /// Records a round timed elsewhere, already finished, in one transaction (start, finish, grant). Idempotent by id.
    public func recordRound(_ record: RoundRecord) throws -> RoundOutcome {
        guard record.status != .running else { throw StoreError.round("a recorded round must be finished") }
        return try guarded {
            try db.immediate {
                if try db.scalarInt("SELECT 1 FROM rounds WHERE id = ?", [.text(record.id)]) == nil {
                    let owner = probe.current()
                    try db.run(
                        """
                        INSERT INTO rounds(id, kind, status, start_at, start_epoch, start_offset, planned, goal,
                            heartbeat_epoch, owner_pid, owner_start, owner_boot)
                        VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                        [
                            .text(record.id), .text(record.kind.rawValue), .text(record.start.rfc3339),
                            .int(record.start.epochSeconds), .int(Int64(record.start.offsetSeconds)),
                            .int(max(0, record.plannedSeconds)), .optional(record.goal),
                            .int(calendar.clock.nowEpochSeconds()), .int(Int64(owner.pid)), .int(owner.startTicks),
                            .text(owner.bootID),
                        ])
                    let seq = try db.scalarInt("SELECT seq FROM rounds WHERE id = ?", [.text(record.id)]) ?? 0
                    try writeMix(seq: seq, record.mix)
                    for (i, tag) in record.tags.enumerated() {
                        try db.run(
                            "INSERT INTO round_tags(round_seq, position, tag) VALUES (?, ?, ?)",
                            [.int(seq), .int(Int64(i)), .text(tag)])
                    }
                }
                return try finishLocked(
                    id: record.id, status: record.status, active: record.activeSeconds,
                    paused: record.pausedSeconds, end: record.end)
            }
        }
    }

    /// Rounds that started in [from, to) (epoch seconds; nil is open), oldest first.
    public func rounds(from: Int64? = nil, to: Int64? = nil) throws -> [RoundRecord] {
        try guarded {
            try db.reading {
                try loadRounds(
                    where: "r.start_epoch >= ? AND r.start_epoch < ?", [.int(from ?? Int64.min), .int(to ?? Int64.max)])
            }
        }
    }

    /// Rounds still marked running.
    public func runningRounds() throws -> [RoundRecord] {
        try guarded { try loadRounds(where: "r.status = 'running'", []) }
    }

    func loadRounds(where clause: String, _ arguments: [SQLValue]) throws -> [RoundRecord] {
        var records: [RoundRecord] = []
        var seqs: [Int64] = []
        try db.query(
            """
            SELECT r.seq, r.id, r.kind, r.status, r.start_epoch, r.start_offset, r.end_epoch, r.end_offset, r.planned,
                r.active, r.paused, r.goal, r.earned
            FROM rounds r WHERE \(clause) ORDER BY r.start_epoch, r.seq
            """, arguments
        ) { row in
            seqs.append(row.int(0))
            let end: Timestamp? = row.optionalInt(6).map {
                Timestamp(epochSeconds: $0, offsetSeconds: Int32(clamping: row.int(7)))
            }
            records.append(
                RoundRecord(
                    id: row.text(1), kind: RoundKind(rawValue: row.text(2)) ?? .focus,
                    status: RoundStatus(rawValue: row.text(3)) ?? .interrupted,
                    start: Timestamp(epochSeconds: row.int(4), offsetSeconds: Int32(clamping: row.int(5))), end: end,
                    plannedSeconds: row.int(8), activeSeconds: row.int(9), pausedSeconds: row.int(10),
                    goal: row.optionalText(11), earnedSeconds: row.int(12)))
        }
        guard let low = seqs.min(), let high = seqs.max() else { return records }
        var index: [Int64: Int] = [:]
        for (i, seq) in seqs.enumerated() { index[seq] = i }
        try db.query(
            """
            SELECT round_seq, sound, volume FROM round_mix WHERE round_seq BETWEEN ? AND ? ORDER BY round_seq, position
            """, [.int(low), .int(high)]
        ) { row in
            if let i = index[row.int(0)] { records[i].mix.append(MixItem(sound: row.text(1), volume: row.double(2))) }
        }
        try db.query(
            """
            SELECT round_seq, tag FROM round_tags WHERE round_seq BETWEEN ? AND ? ORDER BY round_seq, position
            """, [.int(low), .int(high)]
        ) { row in
            if let i = index[row.int(0)] { records[i].tags.append(row.text(1)) }
        }
        return records
    }
}
