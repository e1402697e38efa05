import HumCore
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `hum pass DUR [--forfeit] [--on LABEL] -- COMMAND [ARGS…]`: an access pass.
struct PassCommand: HumCommand {
    static let name = "pass"
    static let abstract = "hold banked time and run a command for at most that long"
    static let discussion = """
        Holds DUR from the bank when it starts (refused, exit 3, if too little is banked or another pass is open),
        runs COMMAND directly (no shell) in a process group of its own that gets the terminal, and when the time
        is used stops every process the command started: SIGTERM, then SIGKILL 5s later. The pass lasts while
        any of them runs. Then it settles: the time used is spent and the rest goes back to the bank, or is
        forfeited with --forfeit. If hum is killed, a watchdog process stops the command within seconds and
        charges the time it ran; if both are killed, the next hum command stops it and charges up to then (or up
        to the deadline). hum exits with the command's exit code (0 when hum stopped it because the time was up).
        """
    static let examples = [
        "hum pass 30m --on games -- steam",
        "hum pass 15m --forfeit -- firefox https://news.ycombinator.com",
    ]
    static let amount = Positional("DURATION", .seconds, help: "how much time to hold")
    static let label = Option("on", .words("LABEL"), help: "what the pass is for (default: the command's name)")
    static let forfeit = Flag("forfeit", help: "unused time is not returned to the bank")
    static let command = CommandAfterDashes(required: true, help: "the command to run (directly, no shell)")
    static let arguments: [any Declared] = [amount, label, forfeit, command]

    /// Seconds between heartbeats: what a crash can cost at most in unrecorded use.
    static let heartbeatInterval = 2.0
    static let grace = 5.0
    /// Set in the command's environment, so that the commands of a pass whose hum died can be found and stopped.
    static let environmentKey = "HUM_PASS_ID"

    let seconds: Int64
    let forfeit: Bool
    let label: String
    let command: [String]

    init(_ arguments: ParsedArguments) throws {
        seconds = try arguments.positional(Self.amount, at: 0)!
        command = try arguments.command(Self.command)!
        forfeit = arguments.flag(Self.forfeit)
        label =
            try arguments.value(Self.label) ?? String(command[0].split(separator: "/").last ?? Substring(command[0]))
    }

    func run(context: CommandContext) throws -> Int32 {
        if let spec = context.environment[Watchdog.environmentKey] {
            return Watchdog.run(spec, label: label, context: context)
        }
        guard ChildProcess.resolve(command[0], path: context.environment["PATH"]) != nil else {
            throw HumError.failure("cannot find the command \(command[0].quoted); nothing was held")
        }
        let db = try LedgerCLI.open(context)
        // Before any other thread exists (see EventLoop.SignalSource): SIGTERM and SIGHUP stop the command and
        // settle, also when they come before it starts.
        let loop = EventLoop()
        let signals = try Self.supervisedSignals(on: loop)
        defer { signals.close() }
        var rng = SystemRandomNumberGenerator()
        let passID = Identifier.make(using: &rng)
        let hold = try db.openPass(id: passID, seconds: seconds, label: label, forfeit: forfeit, command: command)
        let f = LedgerCLI.format
        let deadline = db.calendar.stamp(hold.entry.at.epochSeconds + seconds)
        let policy = forfeit ? "unused time is forfeited" : "unused time goes back to the bank"
        context.stderr.write(
            "hum: pass: \(f(seconds)) held for \(label.visible) until \(deadline.localClock); \(policy); then every "
                + "process of the command is stopped (SIGTERM, then SIGKILL \(Int(PassCommand.grace))s later)\n"
        )

        let tag = "\(PassCommand.environmentKey)=\(passID)"
        let start = monotonicSeconds()
        let watchdog = Watchdog.start(
            words: ["pass", "\(seconds)s", "--on", label, "--"] + command,
            spec: .init(passID: passID, tag: tag, start: start, limit: Double(seconds), grace: PassCommand.grace),
            context: context)
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
            limit: Double(seconds), grace: PassCommand.grace, interval: PassCommand.heartbeatInterval,
            heartbeat: { elapsed in (try? db.heartbeatPass(id: passID, usedSeconds: Int64(elapsed))) ?? true },
            onStop: { why in
                switch why {
                case .timeUp: context.stderr.write("hum: pass: the time is up; stopping \(label.visible)\n")
                case .asked: context.stderr.write("hum: pass: asked to stop; stopping \(label.visible)\n")
                case .settledElsewhere:
                    context.stderr.write(
                        "hum: pass: this pass was settled by another hum process; stopping \(label.visible)\n")
                }
            })
        if outcome.leftBehind > 0 {
            context.warn("\(outcome.leftBehind) process(es) of \(label) did not end even after SIGKILL")
        }
        let used = min(seconds, Int64(outcome.elapsed.rounded()))
        do {
            let settle = try db.settlePass(id: passID, usedSeconds: used).entry
            context.made("the pass was settled", see: "hum ledger --since today")
            watchdog?.done()
            let status = try db.bankStatus()
            let rest =
                (settle.forfeit ?? false)
                ? "the rest (\(f(seconds - (settle.used ?? used)))) forfeited" : "\(f(settle.amount)) back in the bank"
            context.stderr.write(
                "hum: pass settled: \(f(settle.used ?? used)) used, \(rest); \(f(status.balance)) in the bank\n")
        } catch let refusal as LedgerRefusal {
            // Settled already by a reconciliation that took this process for dead: never charged twice.
            watchdog?.done()
            let existing = try? db.settlement(ofPass: passID)
            context.warn(
                "the pass was already settled (\(existing.map { f($0.used ?? 0) } ?? "?") used): \(refusal.message)")
        } catch {
            // The time used is known but cannot be written (a full disk): the watchdog retries it.
            let reason = (error as? any UserFacingError)?.message ?? "\(error)"
            if let watchdog {
                watchdog.couldNotSettle(used: used)
                throw HumError.failure(
                    "the pass could not be settled (\(reason)); a watchdog retries for \(Int(Watchdog.retryFor / 60)) "
                        + "minutes to charge \(f(used)), then the next hum command settles it"
                )
            }
            throw HumError.failure(
                "the pass could not be settled (\(reason)); the next hum command settles it, charging up to its "
                    + "deadline or until then"
            )
        }
        if outcome.reason == .timeUp { return ExitCode.success }
        return outcome.exitCode
    }
}

extension PassCommand {
    /// The signals a supervised command's hum takes on its loop (see `Supervisor`).
    static func supervisedSignals(on loop: EventLoop) throws(HumError) -> EventLoop.SignalSource {
        do {
            return try loop.signalSource([SIGCHLD, SIGTERM, SIGHUP, SIGINT])
        } catch {
            throw HumError.failure(error.description)
        }
    }
}

/// `hum emergency DUR --reason TEXT [-- COMMAND…]`: a draw on the weekly emergency reserve.
struct EmergencyCommand: HumCommand {
    static let name = "emergency"
    static let abstract = "draw on this week's emergency reserve, even with nothing banked"
    static let discussion = """
        The reserve (emergency.weekly, default 10m) refills each ISO week, on Monday. The draw is recorded with its
        reason. With a command, it runs for at most DUR and is stopped like a pass's (all its processes, SIGTERM
        then SIGKILL 5s later, also when hum is killed, and by the next hum command when hum and its watchdog both
        are); the draw is not returned when the command ends early.
        """
    static let examples = [
        "hum emergency 5m --reason \"bank transfer due today\"",
        "hum emergency 10m --reason \"call the plumber\" -- firefox https://example.com",
    ]
    static let amount = Positional("DURATION", .seconds, help: "how much of the reserve to draw")
    static let reason = Option("reason", .words("TEXT"), required: true, help: "why")
    static let command = CommandAfterDashes(required: false, help: "a command to run for at most DURATION")
    static let arguments: [any Declared] = [amount, reason, command]

    /// Set in the command's environment (with the draw's entry id), so its processes can be found and stopped.
    static let environmentKey = "HUM_EMERGENCY_ID"

    let seconds: Int64
    let reason: String
    let command: [String]?

    init(_ arguments: ParsedArguments) throws {
        seconds = try arguments.positional(Self.amount, at: 0)!
        reason = try arguments.required(Self.reason)
        command = try arguments.command(Self.command)
    }

    func run(context: CommandContext) throws -> Int32 {
        if let spec = context.environment[Watchdog.environmentKey] {
            return Watchdog.run(spec, label: command?.first ?? "the command", context: context)
        }
        if let command, ChildProcess.resolve(command[0], path: context.environment["PATH"]) == nil {
            throw HumError.failure("cannot find the command \(command[0].quoted); nothing was drawn")
        }
        let db = try LedgerCLI.open(context)
        let loop = EventLoop()
        let signals = try command.map { _ in try PassCommand.supervisedSignals(on: loop) }
        defer { signals?.close() }
        // While a strict contract runs: a wait and a confirmation first, and the draw noted in the contract.
        let strictNote = try StrictFriction.emergency(seconds: seconds, reason: reason, db: db, context: context)
        let request = LedgerRequest.emergency(seconds: seconds, reason: reason, key: nil)
        let decision =
            try strictNote.map { try db.recordEmergency(request, strictNote: $0).decision }
            ?? db.record(request)
        context.made("the emergency draw was recorded", see: "hum ledger --since today")
        let status = try db.bankStatus()
        let f = LedgerCLI.format
        context.stderr.write(
            "hum: emergency: \(f(decision.entry.reserve ?? seconds)) drawn (\(reason.visible)); "
                + "\(f(status.emergencyLeft)) of the reserve left this week\n"
        )
        guard let command, let signals else { return ExitCode.success }
        // The same supervision as a pass: its own process group, the watchdog, SIGTERM then SIGKILL, and a row
        // owned by this process that the next hum command reconciles if this hum and its watchdog both die. Nothing
        // is settled: the draw is not returned when the command ends early.
        let entryID = decision.entry.id
        let tag = "\(EmergencyCommand.environmentKey)=\(entryID)"
        // Recorded before the command starts; if it cannot be, the command does not run (the draw stays made).
        try db.startEmergencyRun(entryID: entryID, seconds: seconds, command: command)
        let start = monotonicSeconds()
        let watchdog = Watchdog.start(
            words: ["emergency", "\(seconds)s", "--reason", reason, "--"] + command,
            spec: .init(passID: nil, tag: tag, start: start, limit: Double(seconds), grace: PassCommand.grace),
            context: context)
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
            limit: Double(seconds), grace: PassCommand.grace, interval: PassCommand.heartbeatInterval,
            heartbeat: { _ in true },
            onStop: { why in
                switch why {
                case .timeUp: context.stderr.write("hum: emergency: the time is up; stopping \(command[0].visible)\n")
                case .asked: context.stderr.write("hum: emergency: asked to stop; stopping \(command[0].visible)\n")
                case .settledElsewhere: break
                }
            })
        return outcome.reason == .timeUp ? ExitCode.success : outcome.exitCode
    }
}
