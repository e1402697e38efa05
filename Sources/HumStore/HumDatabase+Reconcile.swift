import HumCore

/// Settling what processes that died left open.
extension HumDatabase {
    /// Settles open passes, interrupts running rounds and ends the emergency commands whose process died. Cheap
    /// when there is nothing to do (indexed reads). Call on the start of any hum command.
    public func reconcile() throws -> ReconcileReport {
        try guarded {
            let pending =
                try db.scalarInt(
                    """
                    SELECT (SELECT count(*) FROM passes WHERE state = 'open') + (SELECT count(*) FROM rounds WHERE status = 'running')
                        + (SELECT count(*) FROM contracts WHERE status = 'running')
                        + (SELECT count(*) FROM emergency_runs WHERE state = 'running')
                    """) ?? 0
            guard pending > 0, try db.reading({ try anOwnerIsDead() }) else { return ReconcileReport() }
            return try db.immediate { try reconcileLocked() }
        }
    }

    /// Whether an open pass, a running round, a running contract or an emergency's command has lost its process:
    /// only then is there
    /// something to settle, and the write lock taken. Every command opens the ledger through `reconcile`, and
    /// while rounds run (a status bar asking every second, a script polling) taking it each time would keep
    /// the round's own writes waiting.
    func anOwnerIsDead() throws -> Bool {
        var dead = false
        try db.query(
            """
            SELECT owner_pid, owner_start, owner_boot FROM passes WHERE state = 'open'
            UNION ALL SELECT owner_pid, owner_start, owner_boot FROM rounds WHERE status = 'running'
            UNION ALL SELECT owner_pid, owner_start, owner_boot FROM contracts WHERE status = 'running'
            UNION ALL SELECT owner_pid, owner_start, owner_boot FROM emergency_runs WHERE state = 'running'
            """
        ) { row in
            guard !dead else { return }
            guard let pid = try row.optionalInt("owner_pid"), let boot = try row.optionalText("owner_boot") else {
                dead = true  // a contract written with no owner: reconcileLocked interrupts it
                return
            }
            let owner = ProcessOwner(
                pid: Int32(clamping: pid), startTicks: try row.optionalInt("owner_start") ?? 0, bootID: boot)
            if !probe.isAlive(owner) { dead = true }
        }
        return dead
    }

    /// What a pass whose owner died is charged. Nobody saw its command end: the owner died (and its watchdog with
    /// it, or the watchdog would have settled), or its last writes failed (a full disk). The heartbeat only says the
    /// command ran at least that long, so a missing heartbeat is never read as "stopped early": the pass is charged
    /// up to now, when its command is found (and then stopped), or up to its deadline if that came first; never
    /// less than the last heartbeat, never more than it held. Wall-clock seconds: a clock set back charges no less
    /// than the heartbeat, one set forward no more than the hold.
    static func usedByDeadPass(started: Int64, deadline: Int64, held: Int64, heartbeat: Int64, now: Int64) -> Int64 {
        let end = min(deadline, now)
        let (sinceStart, overflow) = end.subtractingReportingOverflow(started)
        let upToNow = end <= started ? 0 : overflow ? held : sinceStart
        return min(max(heartbeat, upToNow, 0), held)
    }

    func reconcileLocked() throws -> ReconcileReport {
        var report = ReconcileReport()
        struct Dead {
            var id: String
            var used: Int64
            var child: ProcessOwner?
        }
        let now = calendar.clock.nowEpochSeconds()
        var deadPasses: [Dead] = []
        try db.query(
            """
            SELECT id, held, used, started_epoch, deadline_epoch, owner_pid, owner_start, owner_boot, child_pid,
                child_start
            FROM passes WHERE state = 'open'
            """
        ) { row in
            let owner = ProcessOwner(
                pid: Int32(clamping: try row.int("owner_pid")), startTicks: try row.int("owner_start"),
                bootID: try row.text("owner_boot"))
            guard !probe.isAlive(owner) else { return }
            let childStart = try row.optionalInt("child_start") ?? 0
            let child = try row.optionalInt("child_pid").map {
                ProcessOwner(pid: Int32(clamping: $0), startTicks: childStart, bootID: owner.bootID)
            }
            let used = Self.usedByDeadPass(
                started: try row.int("started_epoch"), deadline: try row.int("deadline_epoch"),
                held: try row.int("held"), heartbeat: try row.int("used"), now: now)
            deadPasses.append(Dead(id: try row.text("id"), used: used, child: child))
        }
        for dead in deadPasses {
            let decision = try recordLocked(
                .settlePass(passID: dead.id, usedSeconds: dead.used), command: nil,
                settledBy: "reconcile")
            let e = decision.entry
            report.settledPasses.append(.init(id: dead.id, label: e.label, used: e.used ?? 0, returned: e.amount))
            if let child = dead.child, probe.isAlive(child) { report.orphans.append(child) }
        }
        var deadRounds: [(String, Int64)] = []
        try db.query(
            "SELECT id, owner_pid, owner_start, owner_boot, heartbeat_epoch FROM rounds WHERE status = 'running'"
        ) { row in
            let owner = ProcessOwner(
                pid: Int32(clamping: try row.int("owner_pid")), startTicks: try row.int("owner_start"),
                bootID: try row.text("owner_boot"))
            if !probe.isAlive(owner) { deadRounds.append((try row.text("id"), try row.int("heartbeat_epoch"))) }
        }
        for (id, heartbeat) in deadRounds {
            let end = calendar.stamp(heartbeat)
            try db.run(
                """
                UPDATE rounds SET status = 'interrupted', end_at = ?, end_epoch = ?, end_offset = ?
                WHERE id = ? AND status = 'running'
                """, [.text(end.rfc3339), .int(end.epochSeconds), .int(Int64(end.offsetSeconds)), .text(id)])
            report.interruptedRounds.append(id)
        }
        try interruptDeadContracts(&report)
        try endDeadEmergencies(&report)
        return report
    }

    /// The commands of emergency draws whose hum died: recorded as ended, and reported with the leader of their
    /// process group when it still runs as recorded (its start time and boot checked, so a reused pid is never
    /// taken for it), for the caller to stop with everything carrying the draw's id.
    func endDeadEmergencies(_ report: inout ReconcileReport) throws {
        var dead: [ReconcileReport.EndedEmergency] = []
        try db.query(
            """
            SELECT entry_id, owner_pid, owner_start, owner_boot, child_pid, child_start FROM emergency_runs
            WHERE state = 'running' ORDER BY entry_id
            """
        ) { row in
            let owner = ProcessOwner(
                pid: Int32(clamping: try row.int("owner_pid")), startTicks: try row.int("owner_start"),
                bootID: try row.text("owner_boot"))
            guard !probe.isAlive(owner) else { return }
            var leader: ProcessOwner? = nil
            if let pid = try row.optionalInt("child_pid"), let start = try row.optionalInt("child_start") {
                let child = ProcessOwner(pid: Int32(clamping: pid), startTicks: start, bootID: owner.bootID)
                if probe.isAlive(child) { leader = child }
            }
            dead.append(.init(entryID: try row.text("entry_id"), leader: leader))
        }
        for run in dead {
            try db.run(
                """
                UPDATE emergency_runs SET state = 'ended', ended_by = 'reconcile' WHERE entry_id = ? AND state = 'running'
                """, [.text(run.entryID)])
        }
        report.endedEmergencies += dead
    }
}
