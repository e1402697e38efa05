import FoundationEssentials
import HumCore
import HumStore

/// `hum bank`: what is banked, earned today against the cap, the emergency reserve left, an open pass.
struct BankCommand: HumCommand {
    static let name = "bank"
    static let abstract = "show the leisure time banked, today's earnings and the emergency reserve"
    static let examples = [
        "hum bank",
        "hum bank --json     # balance_seconds, earned_today_seconds, daily_cap_seconds, emergency_left_seconds, open_pass",
    ]
    static let format = Option.format([.text, .json])
    static let arguments: [any Declared] = [format]

    let json: Bool
    init(_ arguments: ParsedArguments) throws { json = try arguments.value(Self.format) == .json }

    struct Output: Encodable {
        var status: BankStatus
        enum Keys: String, CodingKey {
            case balance = "balance_seconds"
            case debt = "debt_seconds"
            case earnedToday = "earned_today_seconds"
            case dailyCap = "daily_cap_seconds"
            case emergencyLeft = "emergency_left_seconds"
            case emergencyWeekly = "emergency_weekly_seconds"
            case openPass = "open_pass"
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(status.balance, forKey: .balance)
            try c.encode(status.debt, forKey: .debt)
            try c.encode(status.earnedToday, forKey: .earnedToday)
            try c.encode(status.dailyCap, forKey: .dailyCap)
            try c.encode(status.emergencyLeft, forKey: .emergencyLeft)
            try c.encode(status.emergencyWeekly, forKey: .emergencyWeekly)
            try c.encode(status.openPass, forKey: .openPass)
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        let status = try LedgerCLI.open(context).bankStatus()
        if json {
            context.stdout.write(try LedgerCLI.json(Output(status: status)) + "\n")
            return ExitCode.success
        }
        let f = LedgerCLI.format
        var out = "balance         \(f(status.balance))"
        if status.debt > 0 { out += " (debt \(f(status.debt)): spending is blocked until earnings cover it)" }
        out += "\nearned today    \(f(status.earnedToday)) of \(f(status.dailyCap))\n"
        out += "emergency left  \(f(status.emergencyLeft)) of \(f(status.emergencyWeekly)) this week\n"
        if let pass = status.openPass {
            out +=
                "open pass       \(f(pass.heldSeconds))\(pass.label.map { " on \($0.visible)" } ?? ""), until \(pass.deadline.localClock)"
            out += " (\(f(pass.usedSeconds)) used\(pass.forfeit ? ", unused time forfeited" : ""))\n"
        } else {
            out += "open pass       none\n"
        }
        context.stdout.write(out)
        return ExitCode.success
    }
}

/// `hum spend DUR --on LABEL [--key KEY]`.
struct SpendCommand: HumCommand {
    static let name = "spend"
    static let abstract = "take leisure time from the bank"
    static let discussion = """
        Refuses (exit 3, nothing taken) when too little is banked or the bank is in debt. With --key, running the
        same spend again changes nothing; the same key with another amount or label is refused.
        """
    static let examples = [
        "hum spend 15m --on youtube",
        "hum spend 30m --on games --key games-2025-03-30",
    ]
    static let amount = Positional("DURATION", .seconds, help: "how much time to take")
    static let label = Option("on", .words("LABEL"), required: true, help: "what the time is spent on")
    static let key = Option("key", .key, help: "an idempotency key: the same spend is recorded once")
    static let arguments: [any Declared] = [amount, label, key]

    let seconds: Int64
    let label: String
    let key: String?

    init(_ arguments: ParsedArguments) throws {
        seconds = try arguments.positional(Self.amount, at: 0)!
        label = try arguments.required(Self.label)
        key = try arguments.value(Self.key)
    }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context)
        let (decision, status) = (try db.record(.spend(seconds: seconds, label: label, key: key)), try db.bankStatus())
        let f = LedgerCLI.format
        switch decision {
        case .record:
            context.stdout.write("spent \(f(seconds)) on \(label.visible); \(f(status.balance)) left in the bank\n")
        case .exists(let e):
            context.stdout.write(
                "already recorded with key \((key ?? "").visible): \(f(-e.amount)) on \((e.label ?? label).visible) at \(e.at.rfc3339); nothing changed\n"
            )
        }
        return ExitCode.success
    }
}

/// `hum config set|get|list`: the ledger's settings, stored in the database so every process sees the same.
struct ConfigCommand: HumCommand {
    static let name = "config"
    static let abstract = "show or change settings (earn.ratio, earn.daily-cap, emergency.weekly, review.*, …)"
    static let discussion = """
        Settings live in the database ($XDG_DATA_HOME/hum/hum.db), shared by every hum process.
          earn.ratio        focused seconds per earned second (default 3: 25m of focus earns 8m20s)
          earn.daily-cap    the most a local calendar day can earn (default 3h)
          emergency.weekly  the emergency reserve per ISO week (default 10m)
          review.command    who reviews contracts' proofs: local (default), or a command (see 'hum proof --help')
          review.timeout    how long that command has to answer (default 60s)
          strict.emergency-wait  the wait before an emergency draw while a strict contract runs (default 10s)
        While a strict contract runs, a change that loosens the rules is refused (see 'hum contract --help').
        """
    static let examples = [
        "hum config set earn.ratio 4",
        "hum config get earn.daily-cap",
    ]
    static var subcommands: [any HumCommand.Type] { [List.self, Get.self, Set.self] }
    static let arguments: [any Declared] = List.arguments

    let list: List
    init(_ arguments: ParsedArguments) throws { list = try List(arguments) }
    func run(context: CommandContext) throws -> Int32 { try list.run(context: context) }

    /// A setting's name, completed by the shells.
    static let key = Positional(
        "KEY", ValueKind<String>.oneOf(LedgerConfig.keys, placeholder: "KEY"), help: "the setting")

    struct List: HumCommand {
        static let name = "list"
        static let abstract = "list every setting with its value"
        static let format = Option.format([.text, .json])
        static let arguments: [any Declared] = [format]
        let json: Bool
        init(_ arguments: ParsedArguments) throws { json = try arguments.value(Self.format) == .json }
        func run(context: CommandContext) throws -> Int32 {
            let config = try LedgerCLI.open(context).config()
            var pairs: [(String, String)] = []
            for key in LedgerConfig.keys { pairs.append((key, try config.text(for: key))) }
            if json {
                var object: [String: String] = [:]
                for (k, v) in pairs { object[k] = v }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                context.stdout.write(String(decoding: try encoder.encode(object), as: UTF8.self) + "\n")
            } else {
                for (k, v) in pairs { context.stdout.write("\(k.padding(17)) \(v)\n") }
            }
            return ExitCode.success
        }
    }

    struct Get: HumCommand {
        static let name = "get"
        static let abstract = "print one setting"
        static let examples = ["hum config get earn.ratio"]
        static let arguments: [any Declared] = [ConfigCommand.key]
        let key: String
        init(_ arguments: ParsedArguments) throws { key = try arguments.positional(ConfigCommand.key, at: 0)! }
        func run(context: CommandContext) throws -> Int32 {
            let value = try LedgerCLI.open(context).config().text(for: key)
            context.stdout.write(value + "\n")
            return ExitCode.success
        }
    }

    struct Set: HumCommand {
        static let name = "set"
        static let abstract = "change one setting"
        static let examples = ["hum config set earn.ratio 4"]
        static let value = Positional("VALUE", .text, help: "the new value, in the form 'hum config get' prints")
        static let arguments: [any Declared] = [ConfigCommand.key, value]
        let key: String
        let value: String
        init(_ arguments: ParsedArguments) throws {
            key = try arguments.positional(ConfigCommand.key, at: 0)!
            value = try arguments.positional(Self.value, at: 1)!
            var probe = LedgerConfig()
            try probe.set(key, to: value)
        }
        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context)
            try db.setConfig(key, to: value)
            context.stdout.write("\(key) = \(try db.config().text(for: key))\n")
            return ExitCode.success
        }
    }
}
