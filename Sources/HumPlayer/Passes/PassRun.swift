import HumCore
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// An access pass at run time (`hum pass`): DUR held from the bank, the command supervised in a process group of
/// its own with a watchdog process beside it, and the time used settled when it ends. HumCLI's `PassCommand`
/// declares and reads the words; this runs them.
public enum PassRun {
    /// Seconds between heartbeats: what a crash can cost at most in unrecorded use.
    public static let heartbeatInterval = 2.0
    /// Seconds between SIGTERM and SIGKILL when the time is up.
    public static let grace = 5.0
    /// Set in the command's environment, so that the commands of a pass whose hum died can be found and stopped.
    public static let environmentKey = "HUM_PASS_ID"

    /// The signals a supervised command's hum takes on its loop (see `Supervisor`).
    public static func supervisedSignals(on loop: EventLoop) throws(PlayerError) -> EventLoop.SignalSource {
        do {
            return try loop.signalSource([SIGCHLD, SIGTERM, SIGHUP, SIGINT])
        } catch {
            throw PlayerError.failure(error.description)
        }
    }

    /// Holds `seconds`, runs `command` on `loop` (made before any other thread exists) until it ends or the time
    /// is up, and settles. Returns the exit code: the command's, or 0 when hum stopped it because the time was up.
    public static func run(
        seconds: Int64, label: String, forfeit: Bool, command: [String], environment: PlayerEnvironment,
        loop: EventLoop
    ) throws -> Int32 {
        let db = try LedgerAccess.open(environment)
        // Before any other thread exists (see EventLoop.SignalSource): SIGTERM and SIGHUP stop the command and
        // settle, also when they come before it starts.
        let signals = try supervisedSignals(on: loop)
        defer { signals.close() }
        var rng = SystemRandomNumberGenerator()
        let passID = Identifier.make(using: &rng)
        let hold = try db.openPass(id: passID, seconds: seconds, label: label, forfeit: forfeit, command: command)
        let f = DurationText.format(seconds:)
        let deadline = db.calendar.stamp(hold.entry.at.epochSeconds + seconds)
        let policy = forfeit ? "unused time is forfeited" : "unused time goes back to the bank"
        environment.stderr.write(
            "hum: pass: \(f(seconds)) held for \(label.visible) until \(deadline.localClock); \(policy); then every "
                + "process of the command is stopped (SIGTERM, then SIGKILL \(Int(PassRun.grace))s later)\n"
        )

        let tag = "\(PassRun.environmentKey)=\(passID)"
        let start = environment.monotonic()
        let watchdog = Watchdog.start(
            words: ["pass", "\(seconds)s", "--on", label, "--"] + command,
            spec: .init(passID: passID, tag: tag, start: start, limit: Double(seconds), grace: PassRun.grace),
            environment: environment)
        let supervisor: Supervisor
        do {
            supervisor = try Supervisor(
                argv: command, environment: [tag], removing: [Watchdog.environmentKey], start: start, loop: loop,
                signals: signals)
        } catch {
            _ = try? db.settlePass(id: passID, usedSeconds: 0)
            watchdog?.done()
            throw error
        }
        let probe = LinuxProcessProbe()
        let leader = probe.owner(of: supervisor.child.pid)
        if let watchdog {
            supervisor.spare(watchdog.process.pid)
            watchdog.commandStarted(group: supervisor.child.group, leaderStart: leader?.startTicks)
        }
        _ = try? db.heartbeatPass(id: passID, usedSeconds: 0, child: leader)
        let outcome = supervisor.run(
            limit: Double(seconds), grace: PassRun.grace, interval: PassRun.heartbeatInterval,
            heartbeat: { elapsed in (try? db.heartbeatPass(id: passID, usedSeconds: Int64(elapsed))) ?? true },
            onStop: { why in
                switch why {
                case .timeUp: environment.stderr.write("hum: pass: the time is up; stopping \(label.visible)\n")
                case .asked: environment.stderr.write("hum: pass: asked to stop; stopping \(label.visible)\n")
                case .settledElsewhere:
                    environment.stderr.write(
                        "hum: pass: this pass was settled by another hum process; stopping \(label.visible)\n")
                }
            })
        if outcome.leftBehind > 0 {
            environment.warn("\(outcome.leftBehind) process(es) of \(label) did not end even after SIGKILL")
        }
        let used = min(seconds, Int64(outcome.elapsed.rounded()))
        do {
            let settle = try db.settlePass(id: passID, usedSeconds: used).entry
            environment.made("the pass was settled", "hum ledger --since today")
            watchdog?.done()
            let status = try db.bankStatus()
            let rest =
                (settle.forfeit ?? false)
                ? "the rest (\(f(seconds - (settle.used ?? used)))) forfeited" : "\(f(settle.amount)) back in the bank"
            environment.stderr.write(
                "hum: pass settled: \(f(settle.used ?? used)) used, \(rest); \(f(status.balance)) in the bank\n")
        } catch let refusal as LedgerRefusal {
            // Settled already by a reconciliation that took this process for dead: never charged twice.
            watchdog?.done()
            let existing = try? db.settlement(ofPass: passID)
            environment.warn(
                "the pass was already settled (\(existing.map { f($0.used ?? 0) } ?? "?") used): \(refusal.message)")
        } catch {
            // The time used is known but cannot be written (a full disk): the watchdog retries it.
            let reason = (error as? any UserFacingError)?.message ?? "\(error)"
            if let watchdog {
                watchdog.couldNotSettle(used: used)
                throw PlayerError.failure(
                    "the pass could not be settled (\(reason)); a watchdog retries for \(Int(Watchdog.retryFor / 60)) "
                        + "minutes to charge \(f(used)), then the next hum command settles it"
                )
            }
            throw PlayerError.failure(
                "the pass could not be settled (\(reason)); the next hum command settles it, charging up to its "
                    + "deadline or until then"
            )
        }
        if outcome.reason == .timeUp { return ExitCode.success }
        return outcome.exitCode
    }
}

/// An emergency draw's command at run time (`hum emergency DUR --reason TEXT -- COMMAND`): supervised as a pass's
/// is, with nothing to settle (the draw is not returned when the command ends early).
public enum EmergencyRun {
    /// Set in the command's environment (with the draw's entry id), so its processes can be found and stopped.
    public static let environmentKey = "HUM_EMERGENCY_ID"

    /// Runs the command of the draw `entryID`, already recorded, on `loop` with its `signals` (made before any
    /// other thread existed).
    public static func supervise(
        entryID: String, seconds: Int64, reason: String, command: [String], db: HumDatabase,
        environment: PlayerEnvironment, loop: EventLoop, signals: EventLoop.SignalSource
    ) throws -> Int32 {
        // The same supervision as a pass: its own process group, the watchdog, SIGTERM then SIGKILL, and a row
        // owned by this process that the next hum command reconciles if this hum and its watchdog both die. Nothing
        // is settled: the draw is not returned when the command ends early.
        let tag = "\(EmergencyRun.environmentKey)=\(entryID)"
        // Recorded before the command starts; if it cannot be, the command does not run (the draw stays made).
        try db.startEmergencyRun(entryID: entryID, seconds: seconds, command: command)
        let start = environment.monotonic()
        let watchdog = Watchdog.start(
            words: ["emergency", "\(seconds)s", "--reason", reason, "--"] + command,
            spec: .init(passID: nil, tag: tag, start: start, limit: Double(seconds), grace: PassRun.grace),
            environment: environment)
        defer {
            try? db.endEmergencyRun(entryID: entryID)
            watchdog?.done()
        }
        let supervisor = try Supervisor(
            argv: command, environment: [tag], removing: [Watchdog.environmentKey], start: start, loop: loop,
            signals: signals)
        let leader = LinuxProcessProbe().owner(of: supervisor.child.pid)
        if let watchdog {
            supervisor.spare(watchdog.process.pid)
            watchdog.commandStarted(group: supervisor.child.group, leaderStart: leader?.startTicks)
        }
        if let leader { try? db.emergencyRunStarted(entryID: entryID, leader: leader) }
        let outcome = supervisor.run(
            limit: Double(seconds), grace: PassRun.grace, interval: PassRun.heartbeatInterval,
            heartbeat: { _ in true },
            onStop: { why in
                switch why {
                case .timeUp:
                    environment.stderr.write("hum: emergency: the time is up; stopping \(command[0].visible)\n")
                case .asked: environment.stderr.write("hum: emergency: asked to stop; stopping \(command[0].visible)\n")
                case .settledElsewhere: break
                }
            })
        return outcome.reason == .timeUp ? ExitCode.success : outcome.exitCode
    }
}
