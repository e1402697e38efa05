import HumCore
import HumPlayer
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
            return Watchdog.run(spec, label: label, environment: context.runtime)
        }
        guard ChildProcess.resolve(command[0], path: context.environment["PATH"]) != nil else {
            throw HumError.failure("cannot find the command \(command[0].quoted); nothing was held")
        }
        // The loop is made before any other thread exists (see EventLoop.SignalSource).
        return try PassRun.run(
            seconds: seconds, label: label, forfeit: forfeit, command: command, environment: context.runtime,
            loop: EventLoop())
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
            return Watchdog.run(spec, label: command?.first ?? "the command", environment: context.runtime)
        }
        if let command, ChildProcess.resolve(command[0], path: context.environment["PATH"]) == nil {
            throw HumError.failure("cannot find the command \(command[0].quoted); nothing was drawn")
        }
        let db = try LedgerCLI.open(context)
        let loop = EventLoop()
        let signals = try command.map { _ in try PassRun.supervisedSignals(on: loop) }
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
        return try EmergencyRun.supervise(
            entryID: decision.entry.id, seconds: seconds, reason: reason, command: command, db: db,
            environment: context.runtime, loop: loop, signals: signals)
    }
}
