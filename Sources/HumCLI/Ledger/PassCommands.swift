import HumCore
import HumStore

#if canImport(Glibc)
    import Glibc
#endif

/// `hum pass DUR [--forfeit] [--on LABEL] -- COMMAND [ARGS…]`: an access pass.
struct PassCommand: HumCommand {
    static let name = "pass"
    static let abstract = "hold banked time and run a command for at most that long"
    static let usage = ["pass DUR [--forfeit] [--on LABEL] -- COMMAND [ARGS...]"]
    static let discussion = """
        Holds DUR from the bank when it starts (refused, exit 3, if too little is banked or another pass is open),
        runs COMMAND directly (no shell), and stops it when the time is used: SIGTERM, then SIGKILL 5s later.
        Then it settles: the time used is spent and the rest goes back to the bank, or is forfeited with
        --forfeit. If hum dies, the next hum command settles the pass from its last heartbeat.
        hum exits with the command's exit code (0 when hum stopped it because the time was up).

        Examples:
          hum pass 30m --on games -- steam
          hum pass 15m --forfeit -- firefox https://news.ycombinator.com
        """
    static let options = [
        OptionSpec("on", value: "LABEL", help: "what the pass is for (default: the command's name)"),
        OptionSpec("forfeit", help: "unused time is not returned to the bank"),
    ]
    static let takesPositionals = true
    static let takesCommandAfterDashes = true

    /// Seconds between heartbeats: what a crash can cost at most in unrecorded use.
    static let heartbeatInterval = 2.0
    static let grace = 5.0
    /// Set in the command's environment, so that the commands of a pass whose hum died can be found and stopped.
    static let environmentKey = "HUM_PASS_ID"

    let seconds: Int64
    let forfeit: Bool
    let label: String
    let command: [String]

    init(arguments: ParsedArguments, context: CommandContext) throws {
        guard arguments.positionals.count == 1 else {
            throw HumError.usage("pass needs one duration, then -- and a command, like 'hum pass 30m -- steam'")
        }
        seconds = try LedgerCLI.seconds(arguments.positionals[0], what: "duration")
        guard let command = arguments.command, let first = command.first, !first.isEmpty else {
            throw HumError.usage("pass needs a command after --, like 'hum pass 30m -- steam'")
        }
        self.command = command
        forfeit = arguments.flag("forfeit")
        label = arguments.value("on") ?? String(first.split(separator: "/").last ?? Substring(first))
    }

    func run(context: CommandContext) throws -> Int32 {
        guard ChildProcess.resolve(command[0], path: context.environment["PATH"]) != nil else {
            throw HumError.failure("cannot find the command \"\(command[0])\"; nothing was held")
        }
        let db = try LedgerCLI.open(context)
        ChildProcess.installSignalHandlers()
        var rng = SystemRandomNumberGenerator()
        let passID = Identifier.make(using: &rng)
        let hold = try LedgerCLI.run {
            try db.openPass(id: passID, seconds: seconds, label: label, forfeit: forfeit, command: command)
        }
        let f = LedgerCLI.format
        let deadline = db.calendar.stamp(hold.entry.at.epochSeconds + seconds)
        let policy = forfeit ? "unused time is forfeited" : "unused time goes back to the bank"
        context.stderr.write(
            "hum: pass: \(f(seconds)) held for \(label.visible) until \(deadline.localClock); \(policy); the command is stopped then (SIGTERM, then SIGKILL \(Int(PassCommand.grace))s later)\n"
        )

        let child: ChildProcess
        do {
            child = try ChildProcess(argv: command, extraEnvironment: ["\(PassCommand.environmentKey)=\(passID)"])
        } catch {
            _ = try? db.settlePass(id: passID, usedSeconds: 0)
            throw error
        }
        let probe = LinuxProcessProbe()
        _ = try? db.heartbeatPass(id: passID, usedSeconds: 0, child: probe.owner(of: child.pid))
        var lastBeat = 0.0
        var reason: ChildProcess.StopReason? = nil
        let elapsed = child.supervise(
            limit: Double(seconds), grace: PassCommand.grace,
            tick: { elapsed in
                guard elapsed - lastBeat >= PassCommand.heartbeatInterval else { return true }
                lastBeat = elapsed
                return (try? db.heartbeatPass(id: passID, usedSeconds: Int64(elapsed))) ?? true
            },
            onStop: { why in
                reason = why
                switch why {
                case .timeUp: context.stderr.write("hum: pass: the time is up; stopping \(label.visible)\n")
                case .asked: context.stderr.write("hum: pass: asked to stop; stopping \(label.visible)\n")
                case .settledElsewhere:
                    context.stderr.write(
                        "hum: pass: this pass was settled by another hum process; stopping \(label.visible)\n")
                }
            })
        let used = min(seconds, Int64(elapsed.rounded()))
        do {
            let settle = try db.settlePass(id: passID, usedSeconds: used).entry
            let status = try db.bankStatus()
            let rest =
                (settle.forfeit ?? false)
                ? "the rest (\(f(seconds - (settle.used ?? used)))) forfeited" : "\(f(settle.amount)) back in the bank"
            context.stderr.write(
                "hum: pass settled: \(f(settle.used ?? used)) used, \(rest); \(f(status.balance)) in the bank\n")
        } catch let refusal as LedgerRefusal {
            // Settled already by a reconciliation that took this process for dead: never charged twice.
            let existing = try? db.settlement(ofPass: passID)
            context.warn(
                "the pass was already settled (\(existing.map { f($0.used ?? 0) } ?? "?") used): \(refusal.message)")
        } catch {
            throw LedgerCLI.map(error)
        }
        if reason == .timeUp { return ExitCode.success }
        return child.exitCode
    }
}

/// `hum emergency DUR --reason TEXT [-- COMMAND…]`: a draw on the weekly emergency reserve.
struct EmergencyCommand: HumCommand {
    static let name = "emergency"
    static let abstract = "draw on this week's emergency reserve, even with nothing banked"
    static let usage = ["emergency DUR --reason TEXT [-- COMMAND [ARGS...]]"]
    static let discussion = """
        The reserve (emergency.weekly, default 10m) refills each ISO week, on Monday. The draw is recorded with its
        reason. With a command, it runs for at most DUR, then is stopped like a pass; the draw is not returned
        when the command ends early.

        Examples:
          hum emergency 5m --reason "bank transfer due today"
          hum emergency 10m --reason "call the plumber" -- firefox https://example.com
        """
    static let options = [OptionSpec("reason", value: "TEXT", help: "why (required)")]
    static let takesPositionals = true
    static let takesCommandAfterDashes = true

    let seconds: Int64
    let reason: String
    let command: [String]?

    init(arguments: ParsedArguments, context: CommandContext) throws {
        guard arguments.positionals.count == 1 else {
            throw HumError.usage("emergency needs one duration, like 'hum emergency 5m --reason \"why\"'")
        }
        seconds = try LedgerCLI.seconds(arguments.positionals[0], what: "duration")
        guard let reason = arguments.value("reason"), reason.contains(where: { !$0.isWhitespace }) else {
            throw HumError.usage("emergency needs --reason TEXT, saying why")
        }
        self.reason = reason
        if let command = arguments.command {
            guard let first = command.first, !first.isEmpty else {
                throw HumError.usage("a command is needed after --")
            }
            self.command = command
        } else {
            command = nil
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        if let command, ChildProcess.resolve(command[0], path: context.environment["PATH"]) == nil {
            throw HumError.failure("cannot find the command \"\(command[0])\"; nothing was drawn")
        }
        let db = try LedgerCLI.open(context)
        let (decision, status) = try LedgerCLI.run {
            (try db.record(.emergency(seconds: seconds, reason: reason, key: nil)), try db.bankStatus())
        }
        let f = LedgerCLI.format
        context.stderr.write(
            "hum: emergency: \(f(decision.entry.reserve ?? seconds)) drawn (\(reason.visible)); \(f(status.emergencyLeft)) of the reserve left this week\n"
        )
        guard let command else { return ExitCode.success }
        ChildProcess.installSignalHandlers()
        let child = try ChildProcess(argv: command)
        var timeUp = false
        _ = child.supervise(
            limit: Double(seconds), grace: PassCommand.grace, tick: { _ in true },
            onStop: { why in
                if why == .timeUp {
                    timeUp = true
                    context.stderr.write("hum: emergency: the time is up; stopping \(command[0].visible)\n")
                }
            })
        return timeUp ? ExitCode.success : child.exitCode
    }
}
