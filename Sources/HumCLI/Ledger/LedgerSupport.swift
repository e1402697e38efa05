import FoundationEssentials
import HumCore
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What the ledger commands share: opening the database, parsing amounts and dates, and printing. Their errors
/// reach the frontend as they are: every error of the store is a `UserFacingError`.
enum LedgerCLI {
    /// Opens the database at `$XDG_DATA_HOME/hum/hum.db`, then settles what dead processes left behind (see
    /// `LedgerHook`). Only the commands that use the ledger or the history open it, once each.
    ///
    /// `reading`: the command only reads (bank, history, report, export, ledger check, a status's bank). A ledger
    /// that exists but cannot be written (a read-only mount, a backup disk, a snapshot) is then opened read-only,
    /// with nothing reconciled; a command that writes gets one line saying the ledger is read-only.
    static func open(_ context: CommandContext, reading: Bool = false) throws -> HumDatabase {
        if let problem = context.paths.problem { throw HumError.failure(problem) }
        let path = context.paths.databasePath
        if reading, HumDatabase.isReadOnlyLocation(path) {
            return try HumDatabase(readingOnly: path, calendar: .system, probe: LinuxProcessProbe())
        }
        let db = try HumDatabase(path: path)
        LedgerHook.reconcile(db, context: context)
        return db
    }

    static func format(_ seconds: Int64) -> String { DurationText.format(seconds: seconds) }
    static func signed(_ seconds: Int64) -> String { seconds > 0 ? "+" + format(seconds) : format(seconds) }

    /// The width of the terminal for tables: `COLUMNS`, then the terminal, then 80.
    static func width(_ context: CommandContext) -> Int {
        if let columns = context.environment["COLUMNS"].flatMap({ Int($0) }), columns >= 40 { return min(columns, 400) }
        if context.stdoutIsTerminal {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col >= 40 { return Int(size.ws_col) }
        }
        return 80
    }

    static func json<T: Encodable>(_ value: T, pretty: Bool = true) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting =
            pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }

    /// A text cut to `width` terminal columns with an ellipsis, or padded to them.
    static func fit(_ text: String, _ width: Int) -> String {
        DisplayWidth.padded(DisplayWidth.fit(text, columns: width), to: width)
    }

    static func rightAligned(_ text: String, _ width: Int) -> String {
        DisplayWidth.rightAligned(text, to: width)
    }
}

/// The reconciliation that every opening of the ledger runs first: passes and rounds whose process died are
/// settled and interrupted, and commands left running by a dead pass or a dead emergency are stopped.
enum LedgerHook {
    /// Never fails the command: what cannot be settled now is settled by the next command.
    static func reconcile(_ db: HumDatabase, context: CommandContext) {
        guard let report = try? db.reconcile(), !report.isEmpty else { return }
        for pass in report.settledPasses {
            let on = pass.label.map { " on \($0)" } ?? ""
            context.warn(
                "settled the pass\(on) whose process died: \(LedgerCLI.format(pass.used)) used, "
                    + "\(LedgerCLI.format(pass.returned)) back in the bank"
            )
        }
        for round in report.interruptedRounds {
            context.warn("round \(round) was recorded as interrupted: its timer process died")
        }
        for contract in report.interruptedContracts {
            context.warn(
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
                group: leader?.pid, leaderStart: leader?.startTicks, tag: "\(PassCommand.environmentKey)=\(pass.id)")
            stopped += tree.stop(grace: LedgerHook.grace)
        }
        if stopped > 0 {
            context.warn("stopped \(stopped) process\(stopped == 1 ? "" : "es") left running by the dead pass")
        }
        // The command of an emergency draw whose hum died, found the same way: the group its recorded leader leads
        // (trusted only while that leader runs with the start time recorded) and HUM_EMERGENCY_ID=<entry id>.
        var stoppedOfEmergencies = 0
        for run in report.endedEmergencies {
            let tree = ProcessTree(
                group: run.leader?.pid, leaderStart: run.leader?.startTicks,
                tag: "\(EmergencyCommand.environmentKey)=\(run.entryID)")
            stoppedOfEmergencies += tree.stop(grace: LedgerHook.grace)
        }
        if stoppedOfEmergencies > 0 {
            context.warn(
                "stopped \(stoppedOfEmergencies) process\(stoppedOfEmergencies == 1 ? "" : "es") left running by an "
                    + "emergency whose hum died")
        }
    }

    /// How long the reconciliation gives the processes of a dead pass between SIGTERM and SIGKILL: the command that
    /// found them waits that long at most, once.
    static let grace = 2.0
}
