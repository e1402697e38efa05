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
                try insertRound(
                    round.running, deadline: round.deadline, heartbeat: calendar.clock.nowEpochSeconds(),
                    owner: probe.current())
            }
        }
    }

    /// Writes a new round with its mix and tags, as `round` says (times and counts below zero as zero), owned by
    /// `owner` (nil for a round that no process runs). The one place a round is inserted.
    func insertRound(_ round: RoundRecord, deadline: Timestamp?, heartbeat: Int64, owner: ProcessOwner?) throws {
        try db.run(
            """
            INSERT INTO rounds(id, kind, status, start_at, start_epoch, start_offset, end_at, end_epoch, end_offset,
                deadline_epoch, planned, active, paused, goal, earned, heartbeat_epoch, owner_pid, owner_start, owner_boot,
                contract_id, by_hand)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(round.id), .text(round.kind.rawValue), .text(round.status.rawValue), .text(round.start.rfc3339),
                .int(round.start.epochSeconds), .int(Int64(round.start.offsetSeconds)), .optional(round.end?.rfc3339),
                .optional(round.end?.epochSeconds), .optional(round.end.map { Int64($0.offsetSeconds) }),
                .optional(deadline?.epochSeconds), .int(max(0, round.plannedSeconds)),
                .int(max(0, round.activeSeconds)), .int(max(0, round.pausedSeconds)), .optional(round.goal),
                .int(max(0, round.earnedSeconds)), .int(heartbeat), .optional(owner.map { Int64($0.pid) }),
                .optional(owner?.startTicks), .optional(owner?.bootID), .optional(round.contractID),
                .int(round.recordedByHand ? 1 : 0),
            ])
        let seq = try db.scalarInt("SELECT seq FROM rounds WHERE id = ?", [.text(round.id)]) ?? 0
        try writeMix(seq: seq, round.mix)
        for (i, tag) in round.tags.enumerated() {
            try db.run(
                "INSERT INTO round_tags(round_seq, position, tag) VALUES (?, ?, ?)",
                [.int(seq), .int(Int64(i)), .text(tag)])
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
    /// `plannedSeconds`, when given, is the round's planned length now (an extension lengthens it).
    public func heartbeatRound(
        id: String, activeSeconds: Int64, pausedSeconds: Int64, plannedSeconds: Int64? = nil, mix: [MixItem]? = nil
    ) throws -> Bool {
        try guarded {
            try db.immediate {
                try db.run(
                    """
                    UPDATE rounds SET active = ?, paused = ?, planned = COALESCE(?, planned), heartbeat_epoch = ?
                    WHERE id = ? AND status = 'running'
                    """,
                    [
                        .int(max(0, activeSeconds)), .int(max(0, pausedSeconds)),
                        .optional(plannedSeconds.map(LedgerBounds.clampRound)),
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
    /// `plannedSeconds`, when given, is the round's final planned length (extensions included, as the history
    /// keeps it).
    public func finishRound(
        id: String, status: RoundStatus, activeSeconds: Int64, pausedSeconds: Int64, plannedSeconds: Int64? = nil,
        end: Timestamp? = nil
    ) throws -> RoundOutcome {
        guard status != .running else { throw StoreError.round("a round cannot finish as running") }
        return try guarded {
            try db.immediate {
                try finishLocked(
                    id: id, status: status, active: activeSeconds, paused: pausedSeconds, planned: plannedSeconds,
                    end: end)
            }
        }
    }

    /// `grantAt`: when the grant counts; the round's end when nil. A grant is dated at the round's end as the round
    /// records it, never at the wall clock read when it is written: a clock stepped during the round (NTP, a manual
    /// change) must not put the grant, and the cap it counts under, on another day than the round.
    func finishLocked(
        id: String, status: RoundStatus, active: Int64, paused: Int64, planned: Int64? = nil, end: Timestamp?,
        grantAt: Timestamp? = nil
    ) throws -> RoundOutcome {
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
        // A contract's round earns nothing now: its contract is paid, once, when its proof is approved.
        if status == .completed && round.kind == .focus && round.contractID == nil {
            let decision = try recordLocked(
                .grant(roundID: id, activeSeconds: active), command: nil, settledBy: "owner", at: grantAt ?? end,
                label: round.recordedByHand ? "recorded by hand" : nil)
            grant = decision
            earned = decision.entry.amount
        }
        try db.run(
            """
            UPDATE rounds SET status = ?, end_at = ?, end_epoch = ?, end_offset = ?, active = ?, paused = ?, earned = ?,
                planned = COALESCE(?, planned), heartbeat_epoch = ?
            WHERE id = ?
            """,
            [
                .text(status.rawValue), .text(end.rfc3339), .int(end.epochSeconds), .int(Int64(end.offsetSeconds)),
                .int(active), .int(paused), .int(earned), .optional(planned.map(LedgerBounds.clampRound)),
                .int(calendar.clock.nowEpochSeconds()), .text(id),
            ])
        var finished = round
        if let planned { finished.plannedSeconds = LedgerBounds.clampRound(planned) }
        finished.status = status
        finished.end = end
        finished.activeSeconds = active
        finished.pausedSeconds = paused
        finished.earnedSeconds = earned
        return RoundOutcome(round: finished, grant: grant)
    }

    /// Records a round timed elsewhere, already finished, in one transaction (start, finish, grant), marked as
    /// recorded by hand. Idempotent by id. It must have ended by now and must not overlap another round of the
    /// history (refused: two rounds cannot run at once); a completed focus round earns at its end, on its own day and
    /// under that day's cap; while a strict contract runs, a focus round that would earn is refused.
    public func recordRound(_ record: RoundRecord) throws -> RoundOutcome {
        guard record.status != .running else { throw StoreError.round("a recorded round must be finished") }
        let end = record.end ?? record.start
        return try guarded {
            try db.immediate {
                if try db.scalarInt("SELECT 1 FROM rounds WHERE id = ?", [.text(record.id)]) == nil {
                    let now = calendar.clock.nowEpochSeconds()
                    guard end.epochSeconds <= now else {
                        throw StoreError.roundConflict(
                            "a round recorded by hand must have ended by now (it would end at \(end.rfc3339)); give "
                                + "an earlier --start or a shorter time"
                        )
                    }
                    if let other = try overlapping(start: record.start.epochSeconds, end: end.epochSeconds, now: now) {
                        throw StoreError.roundConflict(
                            "this round (\(record.start.rfc3339) to \(end.rfc3339)) overlaps round \(other.id) "
                                + "(\(other.kind.rawValue), \(other.status.rawValue), \(other.start.rfc3339) to "
                                + "\(other.end?.rfc3339 ?? "now")); two rounds cannot run at once, so nothing was "
                                + "recorded"
                        )
                    }
                    if record.kind == .focus, record.status == .completed,
                        let refusal = try strictRefusal(.recordRound)
                    {
                        throw refusal
                    }
                    var start = RoundStart(
                        id: record.id, kind: record.kind, start: record.start, plannedSeconds: record.plannedSeconds,
                        mix: record.mix, goal: record.goal, tags: record.tags
                    ).running
                    start.recordedByHand = true
                    try insertRound(start, deadline: nil, heartbeat: now, owner: probe.current())
                }
                return try finishLocked(
                    id: record.id, status: record.status, active: record.activeSeconds,
                    paused: record.pausedSeconds, end: record.end, grantAt: end)
            }
        }
    }

    /// The first round of the history whose time overlaps [start, end) (a running one lasts until its deadline or
    /// now, whichever is later; a round of no length counts as its first second), or nil.
    func overlapping(start: Int64, end: Int64, now: Int64) throws -> RoundRecord? {
        try loadRounds(
            where: """
                r.start_epoch < ? AND MAX(COALESCE(r.end_epoch, MAX(COALESCE(r.deadline_epoch, ?), ?)), r.start_epoch + 1) > ?
                """, [.int(max(end, start.adding(saturating: 1))), .int(now), .int(now), .int(start)]
        ).first
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

    /// Rounds started in [from, to), with the rounds of the grants written in it and the rounds of the contracts
    /// exported with it (a round that started before `from`
    /// and ended inside): what a date-bounded `hum export` writes, so that it imports whole. Oldest first.
    public func exportRounds(from: Int64? = nil, to: Int64? = nil) throws -> [RoundRecord] {
        let range: [SQLValue] = [.int(from ?? Int64.min), .int(to ?? Int64.max)]
        return try guarded {
            try db.reading {
                try loadRounds(
                    where: """
                        (r.start_epoch >= ? AND r.start_epoch < ?) OR r.id IN (SELECT round_id FROM entries
                        WHERE kind = 'grant' AND at_epoch >= ? AND at_epoch < ?)
                        OR r.contract_id IN (\(HumDatabase.exportedContracts))
                        """, range + range + range + range)
            }
        }
    }

    /// Reads rounds. A volume is read within 0…1 unless `clampVolumes` is false (the check reports it instead).
    func loadRounds(where clause: String, _ arguments: [SQLValue], clampVolumes: Bool = true) throws -> [RoundRecord] {
        var records: [RoundRecord] = []
        var seqs: [Int64] = []
        try db.query(
            """
            SELECT r.seq, r.id, r.kind, r.status, r.start_epoch, r.start_offset, r.end_epoch, r.end_offset, r.planned,
                r.active, r.paused, r.goal, r.earned, r.contract_id, r.by_hand
            FROM rounds r WHERE \(clause) ORDER BY r.start_epoch, r.seq
            """, arguments
        ) { row in
            seqs.append(try row.int("seq"))
            let endOffset = Int32(clamping: try row.int("end_offset"))
            let end: Timestamp? = try row.optionalInt("end_epoch").map {
                Timestamp(epochSeconds: $0, offsetSeconds: endOffset)
            }
            records.append(
                RoundRecord(
                    id: try row.text("id"), kind: RoundKind(rawValue: try row.text("kind")) ?? .focus,
                    status: RoundStatus(rawValue: try row.text("status")) ?? .interrupted,
                    start: Timestamp(
                        epochSeconds: try row.int("start_epoch"),
                        offsetSeconds: Int32(clamping: try row.int("start_offset"))),
                    end: end, plannedSeconds: try row.int("planned"), activeSeconds: try row.int("active"),
                    pausedSeconds: try row.int("paused"), goal: try row.optionalText("goal"),
                    earnedSeconds: try row.int("earned"), contractID: try row.optionalText("contract_id"),
                    recordedByHand: try row.int("by_hand") != 0))
        }
        guard let low = seqs.min(), let high = seqs.max() else { return records }
        var index: [Int64: Int] = [:]
        for (i, seq) in seqs.enumerated() { index[seq] = i }
        try db.query(
            """
            SELECT round_seq, sound, volume FROM round_mix WHERE round_seq BETWEEN ? AND ? ORDER BY round_seq, position
            """, [.int(low), .int(high)]
        ) { row in
            if let i = index[try row.int("round_seq")] {
                let volume = try row.double("volume")
                let shown = volume.isFinite ? min(max(volume, 0), 1) : 0
                records[i].mix.append(MixItem(sound: try row.text("sound"), volume: clampVolumes ? shown : volume))
            }
        }
        try db.query(
            """
            SELECT round_seq, tag FROM round_tags WHERE round_seq BETWEEN ? AND ? ORDER BY round_seq, position
            """, [.int(low), .int(high)]
        ) { row in
            if let i = index[try row.int("round_seq")] { records[i].tags.append(try row.text("tag")) }
        }
        return records
    }
}
