import HumCore
import HumStore

/// `hum shield off NAME --for DURATION` and `hum shield on NAME`: a pause of a shield on the record, and its end.
struct ShieldOffCommand: HumCommand {
    static let name = "off"
    static let abstract = "turn a shield off for a while, on the record"
    static let discussion = """
        The shield's programs are thawed and stay free until the time is over, then it is up again by itself. The off
        is kept with its reason. --all turns every shield off (for --for, or a year, the longest hum takes, until
        'hum shield on --all'). Refused while a strict contract runs (exit 3).
        """
    static let examples = [
        "hum shield off games --for 1h --reason \"friends over\"",
        "hum shield off --all",
    ]
    static let all = Flag("all", help: "every shield")
    static let duration = Option("for", .seconds, help: "how long (90s, 25m, 1h30m); needed with NAME")
    static let reason = Option("reason", .words("TEXT"), help: "why (kept on the record)")
    static let optionalName = Positional(
        "NAME", ShieldCommand.shieldName.kind, required: false, help: "the shield (or --all)")
    static let arguments: [any Declared] = [optionalName, all, duration, reason]

    /// The longest off: a year, as long as any duration hum takes.
    static let longest: Int64 = 366 * 86_400

    let names: [String]?
    let seconds: Int64
    let reason: String?
    init(_ arguments: ParsedArguments) throws {
        let name = try arguments.positional(Self.optionalName, at: 0)
        names = try ShieldOnCommand.names(name, all: arguments.flag(Self.all), verb: "off")
        reason = try arguments.value(Self.reason)
        if let given = try arguments.value(Self.duration) {
            seconds = given
        } else if names == nil {
            seconds = Self.longest
        } else {
            throw HumError.usage(
                "shield off needs --for DURATION, for example 'hum shield off \(name ?? "games") --for 1h'")
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context)
        let offs = try db.turnShieldsOff(names, seconds: seconds, reason: reason)
        guard let first = offs.first else {
            context.stdout.write("no shields to turn off\n")
            return ExitCode.success
        }
        context.made("the off was recorded", see: "hum shield list")
        let until = db.calendar.stamp(first.end)
        let when = seconds >= Self.longest ? "until 'hum shield on'" : "until \(until.localClock)"
        let which = offs.count == 1 ? "shield \(first.shield) is" : "\(offs.count) shields are"
        context.stdout.write("\(which) off \(when) (\(DurationText.format(seconds: first.end - first.start)))\n")
        ShieldGuardLink.tell(context)
        return ExitCode.success
    }
}

/// `hum shield on NAME|--all`: ends an off early. It tightens, so a strict contract allows it.
struct ShieldOnCommand: HumCommand {
    static let name = "on"
    static let abstract = "end a shield's off early: it is up again"
    static let examples = ["hum shield on games", "hum shield on --all"]
    static let arguments: [any Declared] = [ShieldOffCommand.optionalName, ShieldOffCommand.all]

    /// NAME or --all, never both nor neither: `[NAME]`, or nil for every shield.
    static func names(_ name: String?, all: Bool, verb: String) throws -> [String]? {
        switch (name, all) {
        case (let name?, false): return [name]
        case (nil, true): return nil
        case (_?, true): throw HumError.usage("shield \(verb) takes NAME or --all, not both")
        case (nil, false):
            throw HumError.usage("shield \(verb) needs NAME or --all, for example 'hum shield \(verb) games'")
        }
    }

    let names: [String]?
    init(_ arguments: ParsedArguments) throws {
        names = try Self.names(
            try arguments.positional(ShieldOffCommand.optionalName, at: 0), all: arguments.flag(ShieldOffCommand.all),
            verb: "on")
    }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context)
        let names = try self.names ?? db.shields().map(\.name)
        var ended = 0
        for name in names { ended += try db.turnShieldOn(named: name) }
        if ended > 0 { context.made("the off was ended", see: "hum shield list") }
        let which = names.count == 1 ? "shield \(names[0]) is" : "the shields are"
        context.stdout.write(ended > 0 ? "\(which) up again\n" : "\(which) not off; nothing was changed\n")
        if ended > 0 { ShieldGuardLink.tell(context) }
        return ExitCode.success
    }
}
