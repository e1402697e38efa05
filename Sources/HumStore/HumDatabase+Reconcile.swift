import HumCore

/// Settling what processes that died left open.
extension HumDatabase {
    /// Settles open passes and interrupts running rounds whose process died. Cheap when there is nothing to do
    /// (two indexed reads). Call on the start of any hum command.
    public func reconcile() throws -> ReconcileReport {
        try guarded {
            let pending =
                try db.scalarInt(
                    """
                    SELECT (SELECT count(*) FROM passes WHERE state = 'open') + (SELECT count(*) FROM rounds WHERE status = 'running')
                    """) ?? 0
            guard pending > 0 else { return ReconcileReport() }
            return try db.immediate { try reconcileLocked() }
        }
    }

    func reconcileLocked() throws -> ReconcileReport {
        var report = ReconcileReport()
        struct Dead {
            var id: String
            var used: Int64
            var child: ProcessOwner?
        }
        var deadPasses: [Dead] = []
        try db.query(
            """
            SELECT id, used, owner_pid, owner_start, owner_boot, child_pid, child_start FROM passes WHERE state = 'open'
            """
        ) { row in
            let owner = ProcessOwner(pid: Int32(clamping: row.int(2)), startTicks: row.int(3), bootID: row.text(4))
            guard !probe.isAlive(owner) else { return }
            let child = row.optionalInt(5).map {
                ProcessOwner(pid: Int32(clamping: $0), startTicks: row.optionalInt(6) ?? 0, bootID: owner.bootID)
            }
            deadPasses.append(Dead(id: row.text(0), used: row.int(1), child: child))
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
            let owner = ProcessOwner(pid: Int32(clamping: row.int(1)), startTicks: row.int(2), bootID: row.text(3))
            if !probe.isAlive(owner) { deadRounds.append((row.text(0), row.int(4))) }
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
        return report
    }
}
