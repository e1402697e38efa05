import HumCore
import HumPlayer
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `hum pass DUR [--forfeit] [--on LABEL] -- COMMAND [ARGS…]`: an access pass; `hum pass DUR --on SHIELD` (no
/// command) lifts a shield for at most DUR.
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

        With no command, --on names a shield (see 'hum shield'): the running player's guard lifts the shield for at
        most DUR, thawing its programs at once, and freezes them again at the end. A shield with a daily quota
        ('hum shield set NAME --quota 30m') takes DUR from what is left of today's quota first (the day begins at
        day.starts-at) and only the rest from the bank; hum says which (--json: quota_seconds, bank_seconds).
        What the lift does not run goes back where it came from: the bank's part first, then today's quota (the
        quota's minutes are never forfeited). The pass is settled when the lift ends. Refused (exit 3, nothing
        held) when no player runs, the shield does not exist, is not up, is locked by a schedule, or too little is
        left in the quota and the bank together.
        If the player dies during the lift, its watchdog freezes the programs again at the deadline and settles.
        'hum pass end' ends a lift early: the shield is up again at once and the unused rest goes back to the bank
        (unless the pass was opened with --forfeit).
        """
    static let examples = [
        "hum pass 30m --on games -- steam",
        "hum pass 15m --forfeit -- firefox https://news.ycombinator.com",
        "hum pass 15m --on games     # lift the shield games for 15 minutes",
        "hum pass 10m --on video --json   # from the quota first; says what paid",
        "hum pass end                # end that lift early; the rest goes back to the bank",
    ]
    static let amount = Positional("DURATION", .seconds, help: "how much time to hold")
    static let label = Option(
        "on", .words("LABEL"),
        help: "what the pass is for (default: the command's name); without a command, the shield to lift")
    static let forfeit = Flag("forfeit", help: "unused time is not returned to the bank")
    static let command = CommandAfterDashes(
        required: false, help: "the command to run (directly, no shell); none with --on SHIELD lifts that shield")
    static let format = Option.format([.text, .json])
    static let arguments: [any Declared] = [amount, label, forfeit, format, command]
    static var subcommands: [any HumCommand.Type] { [PassEndCommand.self] }

    let seconds: Int64
    let forfeit: Bool
    let label: String
    /// Nil: a lift of the shield named by `label`.
    let command: [String]?
    /// `--json`: what a lift did, as one JSON object on stdout.
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        seconds = try arguments.positional(Self.amount, at: 0)!
        command = try arguments.command(Self.command)
        forfeit = arguments.flag(Self.forfeit)
        json = try arguments.value(Self.format) == .json
        if json, command != nil {
            throw HumError.usage(
                "--json goes with --on SHIELD and no command: a pass that runs a command prints nothing")
        }
        if let command {
            label =
                try arguments.value(Self.label)
                ?? String(command[0].split(separator: "/").last ?? Substring(command[0]))
        } else if let shield = try arguments.value(Self.label) {
            guard (try? Shield.checkedName(shield)) != nil else {
                throw HumError.usage("--on \(shield.quoted) is not a shield's name; see 'hum shield list'")
            }
            guard ShieldLiftRequest.secondsRange.contains(seconds) else {
                throw HumError.usage("a lift lasts 1s to 24h; \(DurationText.format(seconds: seconds)) is out of that")
            }
            label = shield
        } else {
            throw HumError.usage(
                "pass needs a command after --, or --on SHIELD to lift a shield, for example "
                    + "'hum pass 15m -- steam' or 'hum pass 15m --on games'")
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        if let spec = context.environment[Watchdog.environmentKey] {
            return Watchdog.run(spec, label: label, environment: context.runtime)
        }
        guard let command else { return try lift(context: context) }
        guard ChildProcess.resolve(command[0], path: context.environment["PATH"]) != nil else {
            throw HumError.failure("cannot find the command \(command[0].quoted); nothing was held")
        }
        // The loop is made before any other thread exists (see EventLoop.SignalSource).
        return try PassRun.run(
            seconds: seconds, label: label, forfeit: forfeit, command: command, environment: context.runtime,
            loop: EventLoop())
    }

    /// `hum pass DUR --on SHIELD`: the running player's guard holds and lifts; this process only asks and says.
    func lift(context: CommandContext) throws -> Int32 {
        guard let client = try PlayerLink.connectLive(context) else {
            throw HumError.refused(
                "no hum player runs, so nothing guards the shield \(label); nothing was held (start one with "
                    + "'hum daemon --no-sound', or add a shield with 'hum shield add')")
        }
        let status = try PlayerLink.send(
            .lift(ShieldLiftRequest(shield: label, seconds: seconds, forfeit: forfeit)), to: client)
        context.made("the pass was opened", see: "hum status")
        let line = status.shields?.first { $0.name == label }
        let until = line?.until.map { " until \($0.localClock)" } ?? ""
        // An older player says nothing of the quota: the bank paid.
        let fromQuota = line?.quotaSeconds ?? 0
        let fromBank = line?.bankSeconds ?? (seconds - fromQuota)
        if json {
            let document = LiftDocument(
                shield: label, seconds: seconds, quotaSeconds: fromQuota, bankSeconds: fromBank,
                until: line?.until?.rfc3339, forfeit: forfeit)
            var bytes = try CompactJSONEncoder().encode(document)
            bytes.append(10)
            context.stdout.write(String(decoding: bytes, as: UTF8.self))
            return ExitCode.success
        }
        let f = DurationText.format(seconds:)
        let paid =
            fromQuota == 0
            ? "\(f(seconds)) held from the bank"
            : fromBank == 0
                ? "\(f(seconds)) from today's quota of \(label)"
                : "\(f(fromQuota)) from today's quota of \(label), \(f(fromBank)) held from the bank"
        let bankPolicy = forfeit ? "unused banked time is forfeited" : "unused banked time goes back to the bank"
        let policy =
            fromQuota == 0
            ? (forfeit ? "unused time is forfeited" : "unused time goes back to the bank")
            : fromBank == 0 ? "unused time goes back to today's quota" : bankPolicy + ", then to today's quota"
        context.stderr.write(
            "hum: pass: \(paid); the shield \(label) is lifted\(until); \(policy); then it is up again\n")
        return ExitCode.success
    }

    /// `hum pass DUR --on SHIELD --json`.
    struct LiftDocument: Encodable {
        var shield: String
        var seconds: Int64
        var quotaSeconds: Int64
        var bankSeconds: Int64
        var until: String?
        var forfeit: Bool

        enum CodingKeys: String, CodingKey {
            case shield, seconds, until, forfeit
            case quotaSeconds = "quota_seconds"
            case bankSeconds = "bank_seconds"
        }
    }
}

/// `hum pass end [--on SHIELD]`: ends the running player's lift early (the pass's unused rest goes back to the
/// bank, unless it was opened with --forfeit).
struct PassEndCommand: HumCommand {
    static let name = "end"
    static let abstract = "end a lift early: the shield is up again and the unused rest goes back to the bank"
    static let discussion = """
        Ends the lift the running player's guard holds ('hum pass DUR --on SHIELD'): the shield's programs are frozen
        again at once and the pass is settled for the time the lift ran; the rest goes back to the bank, or is
        forfeited when the pass was opened with --forfeit. Refused (exit 3) when no lift runs.
        """
    static let examples = ["hum pass end", "hum pass end --on games"]
    static let shield = Option("on", .words("SHIELD"), help: "only the lift of this shield")
    static let arguments: [any Declared] = [shield]

    let shield: String?

    init(_ arguments: ParsedArguments) throws {
        shield = try arguments.value(Self.shield)
        if let shield, (try? Shield.checkedName(shield)) == nil {
            throw HumError.usage("--on \(shield.quoted) is not a shield's name; see 'hum shield list'")
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        guard let client = try PlayerLink.connectLive(context) else {
            throw HumError.refused("no hum player runs, so no lift runs; nothing was ended")
        }
        _ = try PlayerLink.send(.endLift(shield: shield), to: client)
        context.made("the lift was ended and its pass settled", see: "hum ledger --since today")
        context.stderr.write(
            "hum: pass: the lift ended; \(shield.map { "the shield \($0)" } ?? "the shield") is up again; "
                + "see 'hum bank' for the rest\n")
        return ExitCode.success
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
        are); the draw is not returned when the command ends early. With --on SHIELD instead of a command, the
        running player's guard lifts that shield for at most DUR, as 'hum pass DUR --on SHIELD' does ('hum pass end'
        ends it early; the draw is not returned).
        """
    static let examples = [
        "hum emergency 5m --reason \"bank transfer due today\"",
        "hum emergency 10m --reason \"call the plumber\" -- firefox https://example.com",
        "hum emergency 5m --reason \"the bank's form\" --on social",
    ]
    static let amount = Positional("DURATION", .seconds, help: "how much of the reserve to draw")
    static let reason = Option("reason", .words("TEXT"), required: true, help: "why")
    static let command = CommandAfterDashes(required: false, help: "a command to run for at most DURATION")
    static let shield = Option(
        "on", .words("SHIELD"), help: "lift this shield for at most DURATION instead of running a command")
    static let arguments: [any Declared] = [amount, reason, shield, command]

    let seconds: Int64
    let reason: String
    let command: [String]?
    /// The shield to lift (`hum emergency 5m --on games`), or nil.
    let shield: String?

    init(_ arguments: ParsedArguments) throws {
        seconds = try arguments.positional(Self.amount, at: 0)!
        reason = try arguments.required(Self.reason)
        command = try arguments.command(Self.command)
        shield = try arguments.value(Self.shield)
        if let shield {
            guard command == nil else {
                throw HumError.usage("emergency takes --on SHIELD or a command after --, not both")
            }
            guard (try? Shield.checkedName(shield)) != nil else {
                throw HumError.usage("--on \(shield.quoted) is not a shield's name; see 'hum shield list'")
            }
            guard ShieldLiftRequest.secondsRange.contains(seconds) else {
                throw HumError.usage("a lift lasts 1s to 24h; \(DurationText.format(seconds: seconds)) is out of that")
            }
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        if let spec = context.environment[Watchdog.environmentKey] {
            return Watchdog.run(spec, label: command?.first ?? "the command", environment: context.runtime)
        }
        if let command, ChildProcess.resolve(command[0], path: context.environment["PATH"]) == nil {
            throw HumError.failure("cannot find the command \(command[0].quoted); nothing was drawn")
        }
        let db = try LedgerCLI.open(context)
        if let shield { return try lift(shield, db: db, context: context) }
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

    /// `hum emergency DUR --reason TEXT --on SHIELD`: the running player's guard draws from the reserve and lifts,
    /// as for a pass's lift; a strict contract's wait and confirmation happen here first, on this terminal.
    func lift(_ shield: String, db: HumDatabase, context: CommandContext) throws -> Int32 {
        guard try PlayerLink.connectLive(context) != nil else {
            throw HumError.refused(
                "no hum player runs, so nothing guards the shield \(shield); nothing was drawn (start one with "
                    + "'hum daemon --no-sound')")
        }
        let strictNote = try StrictFriction.emergency(seconds: seconds, reason: reason, db: db, context: context)
        // Connected again after the wait: the strict wait can outlast a connection.
        guard let client = try PlayerLink.connectLive(context) else {
            throw HumError.refused("the hum player stopped meanwhile; nothing was drawn")
        }
        let request = ShieldLiftRequest(
            shield: shield, seconds: seconds, forfeit: false, emergency: reason, strictNote: strictNote)
        let status = try PlayerLink.send(.lift(request), to: client)
        context.made("the emergency draw was recorded", see: "hum ledger --since today")
        let until = status.shields?.first { $0.name == shield }?.until.map { " until \($0.localClock)" } ?? ""
        let left = try db.bankStatus().emergencyLeft
        context.stderr.write(
            "hum: emergency: \(DurationText.format(seconds: seconds)) drawn (\(reason.visible)); the shield \(shield) "
                + "is lifted\(until); \(LedgerCLI.format(left)) of the reserve left this week\n")
        return ExitCode.success
    }
}
