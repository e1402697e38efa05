import HumCore
import HumStore
import HumSystem

/// The ledger as the runtime and the commands open it.
public enum LedgerAccess {
    /// Opens the database at `$XDG_DATA_HOME/hum/hum.db`, then settles what dead processes left behind (see
    /// `LedgerHook`). Only the commands that use the ledger or the history open it, once each.
    ///
    /// `reading`: the command only reads (bank, history, report, export, ledger check, a status's bank). A ledger
    /// that exists but cannot be written (a read-only mount, a backup disk, a snapshot) is then opened read-only,
    /// with nothing reconciled; a command that writes gets one line saying the ledger is read-only.
    public static func open(_ environment: PlayerEnvironment, reading: Bool = false) throws -> HumDatabase {
        if let problem = environment.paths.problem { throw PlayerError.failure(problem) }
        let path = environment.paths.databasePath
        if reading, HumDatabase.isReadOnlyLocation(path) {
            return try HumDatabase(readingOnly: path, calendar: environment.calendar, probe: LinuxProcessProbe())
        }
        let db = try HumDatabase(path: path, calendar: environment.calendar, probe: LinuxProcessProbe())
        LedgerHook.reconcile(db, environment: environment)
        SyncHook.run(db, environment: environment)
        MixSetup.importFileRecents(db, environment: environment)
        return db
    }
}

/// The reconciliation that every opening of the ledger runs first: passes and rounds whose process died are
/// settled and interrupted, and commands left running by a dead pass or a dead emergency are stopped.
public enum LedgerHook {
    /// Never fails the command: what cannot be settled now is settled by the next command.
    public static func reconcile(_ db: HumDatabase, environment: PlayerEnvironment) {
        guard let report = try? db.reconcile(), !report.isEmpty else { return }
        for pass in report.settledPasses {
            let on = pass.label.map { " on \($0)" } ?? ""
            environment.warn(
                "settled the pass\(on) whose process died: \(DurationText.format(seconds: pass.used)) used, "
                    + "\(DurationText.format(seconds: pass.returned)) back in the bank"
            )
        }
        for round in report.interruptedRounds {
            environment.warn("round \(round) was recorded as interrupted: its timer process died")
        }
        for contract in report.interruptedContracts {
            environment.warn(
                "contract \(contract.id.prefix(8)) (\(contract.goal)) is interrupted: its rounds' process died, so it "
                    + "earns nothing"
            )
        }
        // The processes of a dead pass: the group its command leads while that leader lives, and every process
        // carrying HUM_PASS_ID=<pass id> (children inherit it, also those that left the group). Its watchdog, if it
        // lives, does the same; whichever comes first settles, once.
        var stopped = 0
        for pass in report.settledPasses {
            // One pass is open at a time, so a living leader belongs to the one pass settled.
            let leader = report.settledPasses.count == 1 ? report.orphans.first : nil
            let tree = ProcessTree(
                group: leader?.pid, leaderStart: leader?.startTicks, tag: "\(PassRun.environmentKey)=\(pass.id)")
            stopped += tree.stop(grace: LedgerHook.grace)
        }
        if stopped > 0 {
            environment.warn("stopped \(stopped) process\(stopped == 1 ? "" : "es") left running by the dead pass")
        }
        // The command of an emergency draw whose hum died, found the same way: the group its recorded leader leads
        // (trusted only while that leader runs with the start time recorded) and HUM_EMERGENCY_ID=<entry id>.
        var stoppedOfEmergencies = 0
        for run in report.endedEmergencies {
            let tree = ProcessTree(
                group: run.leader?.pid, leaderStart: run.leader?.startTicks,
                tag: "\(EmergencyRun.environmentKey)=\(run.entryID)")
            stoppedOfEmergencies += tree.stop(grace: LedgerHook.grace)
        }
        if stoppedOfEmergencies > 0 {
            environment.warn(
                "stopped \(stoppedOfEmergencies) process\(stoppedOfEmergencies == 1 ? "" : "es") left running by an "
                    + "emergency whose hum died")
        }
    }

    /// How long the reconciliation gives the processes of a dead pass between SIGTERM and SIGKILL: the command that
    /// found them waits that long at most, once.
    public static let grace = 2.0
}
