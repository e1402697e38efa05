import FoundationEssentials
import HumCore
import HumStore

/// `hum bank`: what is banked, earned today against the cap, the emergency reserve left, an open pass.
struct BankCommand: HumCommand {
    static let name = "bank"
    static let abstract = "show the leisure time banked, today's earnings and the emergency reserve"
    static let usage = ["bank [--json]"]
    static let discussion = """
        Examples:
          hum bank
          hum bank --json     # balance_seconds, earned_today_seconds, daily_cap_seconds, emergency_left_seconds, open_pass
        """
    static let options = [OptionSpec.json]

    let json: Bool
    init(arguments: ParsedArguments, context: CommandContext) throws { json = arguments.flag("json") }

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
        let status = try LedgerCLI.run { try LedgerCLI.open(context).bankStatus() }
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
    static let usage = ["spend DUR --on LABEL [--key KEY]"]
    static let discussion = """
        Refuses (exit 3, nothing taken) when too little is banked or the bank is in debt. With --key, running the
        same spend again changes nothing; the same key with another amount or label is refused.

        Examples:
          hum spend 15m --on youtube
          hum spend 30m --on games --key games-2025-03-30
        """
    static let options = [
        OptionSpec("on", value: "LABEL", help: "what the time is spent on"),
        OptionSpec("key", value: "KEY", help: "an idempotency key: the same spend is recorded once"),
    ]
    static let takesPositionals = true

    let seconds: Int64
    let label: String
    let key: String?

    init(arguments: ParsedArguments, context: CommandContext) throws {
        guard arguments.positionals.count == 1 else {
            throw HumError.usage("spend needs one duration, like 'hum spend 15m --on youtube'")
        }
        seconds = try LedgerCLI.seconds(arguments.positionals[0], what: "duration")
        guard let label = arguments.value("on"), !label.isEmpty else {
            throw HumError.usage("spend needs --on LABEL, what the time is for; like 'hum spend 15m --on youtube'")
        }
        self.label = label
        key = try LedgerCommand.key(arguments)
    }

    func run(context: CommandContext) throws -> Int32 {
        let (decision, status) = try LedgerCLI.run {
            let db = try LedgerCLI.open(context)
            return (try db.record(.spend(seconds: seconds, label: label, key: key)), try db.bankStatus())
        }
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
    static let abstract = "show or change settings (earn.ratio, earn.daily-cap, emergency.weekly)"
    static let usage = ["config list", "config get KEY", "config set KEY VALUE"]
    static let discussion = """
        Settings live in the database ($XDG_DATA_HOME/hum/hum.db), shared by every hum process.
          earn.ratio        focused seconds per earned second (default 3: 25m of focus earns 8m20s)
          earn.daily-cap    the most a local calendar day can earn (default 3h)
          emergency.weekly  the emergency reserve per ISO week (default 10m)

        Examples:
          hum config set earn.ratio 4
          hum config get earn.daily-cap
        """
    static var subcommands: [any HumCommand.Type] { [List.self, Get.self, Set.self] }

    init(arguments: ParsedArguments, context: CommandContext) throws {}
    func run(context: CommandContext) throws -> Int32 {
        try List(arguments: ParsedArguments(), context: context).run(context: context)
    }

    struct List: HumCommand {
        static let name = "list"
        static let abstract = "list every setting with its value"
        static let usage = ["config list [--json]"]
        static let options = [OptionSpec.json]
        let json: Bool
        init(arguments: ParsedArguments, context: CommandContext) throws { json = arguments.flag("json") }
        func run(context: CommandContext) throws -> Int32 {
            let config = try LedgerCLI.run { try LedgerCLI.open(context).config() }
            var pairs: [(String, String)] = []
            for key in LedgerConfig.keys { pairs.append((key, try LedgerCLI.run { try config.text(for: key) })) }
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
        static let usage = ["config get KEY"]
        static let takesPositionals = true
        let key: String
        init(arguments: ParsedArguments, context: CommandContext) throws {
            guard arguments.positionals.count == 1 else {
                throw HumError.usage("config get needs one KEY; see 'hum config list'")
            }
            key = arguments.positionals[0]
            guard LedgerConfig.keys.contains(key) else {
                throw HumError.usage(LedgerConfig.ConfigError.unknownKey(key).message)
            }
        }
        func run(context: CommandContext) throws -> Int32 {
            let value = try LedgerCLI.run { try LedgerCLI.open(context).config().text(for: key) }
            context.stdout.write(value + "\n")
            return ExitCode.success
        }
    }

    struct Set: HumCommand {
        static let name = "set"
        static let abstract = "change one setting"
        static let usage = ["config set KEY VALUE"]
        static let takesPositionals = true
        let key: String
        let value: String
        init(arguments: ParsedArguments, context: CommandContext) throws {
            guard arguments.positionals.count == 2 else {
                throw HumError.usage("config set needs KEY and VALUE, like 'hum config set earn.ratio 4'")
            }
            key = arguments.positionals[0]
            value = arguments.positionals[1]
            var probe = LedgerConfig()
            do { try probe.set(key, to: value) } catch { throw HumError.usage(error.message) }
        }
        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context)
            try LedgerCLI.run { try db.setConfig(key, to: value) }
            context.stdout.write("\(key) = \(try LedgerCLI.run { try db.config().text(for: key) })\n")
            return ExitCode.success
        }
    }
}
