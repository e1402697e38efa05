import FoundationEssentials
import HumCore
import HumPlayer
import HumStore

/// `hum bank`: what is banked, earned today against the cap, the emergency reserve left, an open pass.
struct BankCommand: HumCommand {
    static let name = "bank"
    static let abstract = "show the leisure time banked, today's earnings and the emergency reserve"
    static let examples = [
        "hum bank",
        "hum bank --json     # balance_seconds, earned_today_seconds, daily_cap_seconds, emergency_left_seconds, "
            + "open_pass",
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
        let status = try LedgerCLI.open(context, reading: true).bankStatus()
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
                "open pass       \(f(pass.heldSeconds))\(pass.label.map { " on \($0.visible)" } ?? ""), until "
                + "\(pass.deadline.localClock)"
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
        let decision = try db.record(.spend(seconds: seconds, label: label, key: key))
        context.made("the spend was recorded", see: "hum ledger --since today")
        let status = try db.bankStatus()
        let f = LedgerCLI.format
        switch decision {
        case .record:
            context.stdout.write("spent \(f(seconds)) on \(label.visible); \(f(status.balance)) left in the bank\n")
        case .exists(let e):
            context.stdout.write(
                "already recorded with key \((key ?? "").visible): \(f(-e.amount)) on \((e.label ?? label).visible) "
                    + "at \(e.at.rfc3339); nothing changed\n"
            )
        }
        return ExitCode.success
    }
}

/// `hum config set|get|unset|list`: every default of hum, stored in the database so every process sees the same.
struct ConfigCommand: HumCommand {
    static let name = "config"
    static let abstract =
        "show or change settings: hum's defaults, the ledger's rules, contracts' review, focus profiles"
    static var discussion: String {
        var out = """
            Settings live in the database ($XDG_DATA_HOME/hum/hum.db), shared by every hum process. A setting's
            environment variable wins over the stored value, and an option on the command line over both.
            'hum config list' shows where each value came from.

            """
        out += "\n"
        for d in SettingCatalog.definitions {
            let shown = d.defaultText.isEmpty ? d.emptyMeaning : d.defaultText
            out += "  \(d.key.padding(19)) \(shown) (\(d.kind.name)\(d.environment.map { "; $" + $0 } ?? ""))\n"
            out += "  \("".padding(19)) \(d.summary)\n"
        }
        out += """
              profile.NAME        (focus options) used as 'hum focus --profile NAME'

            A profile holds --focus, --short-break, --long-break, --long-every, --rounds, --fade, --auto-advance,
            --goal, --tag, --no-sound and mix words, written as on the command line ("quote" values with spaces).
            While a strict contract runs, a change that loosens the ledger's rules is refused (see 'hum contract --help').
            """
        return out
    }
    static let examples = [
        "hum config set earn.ratio 4",
        "hum config set focus.length 50m",
        "hum config set play.mix @night",
        "hum config set play.speakers small",
        "hum config set profile.deep \"--focus 50m --short-break 10m --rounds 3 brown=30\"",
        "hum config unset focus.length",
    ]
    static var subcommands: [any HumCommand.Type] { [List.self, Get.self, Set.self, Unset.self] }
    static let arguments: [any Declared] = List.arguments

    let list: List
    init(_ arguments: ParsedArguments) throws { list = try List(arguments) }
    func run(context: CommandContext) throws -> Int32 { try list.run(context: context) }

    /// A setting's name, completed by the shells: a fixed key, or profile.NAME.
    static let key = Positional(
        "KEY",
        ValueKind<String>("KEY", completion: .words(SettingCatalog.keys + ["profile."])) { text in
            do throws(SettingError) {
                _ = try SettingCatalog.definition(text)
                return .success(text)
            } catch .unknownKey {
                let hint = Suggest.closest(to: text, in: SettingCatalog.keys).map { "; did you mean \($0)?" } ?? ""
                return .failure(.init("is not a setting\(hint) (see 'hum config list'; profiles are profile.NAME)"))
            } catch {
                return .failure(.init("is not a profile name: use 1 to 64 letters, digits, '-' or '_'"))
            }
        }, help: "the setting")

    /// The settings in force for this process: stored, then the environment's over them.
    static func settings(_ db: HumDatabase, context: CommandContext) throws -> Settings {
        try db.settings(environment: context.environment)
    }

    struct List: HumCommand {
        static let name = "list"
        static let abstract = "list every setting with its value and where it came from"
        static let format = Option.format([.text, .json])
        static let arguments: [any Declared] = [format]
        let json: Bool
        init(_ arguments: ParsedArguments) throws { json = try arguments.value(Self.format) == .json }

        struct Row: Encodable {
            var key: String
            var value: String
            var source: String
            var type: String
            var defaultValue: String
            var environment: String?
            var description: String
            enum CodingKeys: String, CodingKey {
                case key, value, source, type, environment, description
                case defaultValue = "default"
            }
        }

        func run(context: CommandContext) throws -> Int32 {
            let settings = try ConfigCommand.settings(LedgerCLI.open(context, reading: true), context: context)
            var rows: [Row] = []
            for value in settings.all {
                guard let d = try? SettingCatalog.definition(value.key) else { continue }
                rows.append(
                    Row(
                        key: value.key, value: value.text, source: value.source.description, type: d.kind.name,
                        defaultValue: d.defaultText, environment: d.environment, description: d.summary))
            }
            for (name, profile) in settings.profiles {
                rows.append(
                    Row(
                        key: SettingCatalog.profilePrefix + name, value: profile.text, source: "setting",
                        type: SettingKind.profile.name, defaultValue: "", environment: nil,
                        description: "the focus profile \(name) (hum focus --profile \(name))"))
            }
            if json {
                context.stdout.write(try LedgerCLI.json(["settings": rows]) + "\n")
                return ExitCode.success
            }
            let width = max(18, rows.map(\.key.count).max() ?? 0)
            var out = ""
            for row in rows {
                let d = try? SettingCatalog.definition(row.key)
                let value = row.value.isEmpty ? "(\(d?.emptyMeaning ?? "none"))" : row.value.visible
                out +=
                    row.source == "setting" && row.type == SettingKind.profile.name
                    ? "\(row.key.visible.padding(width)) \(value)\n"
                    : "\(row.key.padding(width)) \(value.padding(10)) \(row.source)\n"
            }
            for problem in settings.ignored { context.warn(problem) }
            context.stdout.write(out)
            return ExitCode.success
        }
    }

    struct Get: HumCommand {
        static let name = "get"
        static let abstract = "print one setting's value (the one in force)"
        static let examples = ["hum config get earn.ratio"]
        static let arguments: [any Declared] = [ConfigCommand.key]
        let key: String
        init(_ arguments: ParsedArguments) throws { key = try arguments.positional(ConfigCommand.key, at: 0)! }
        func run(context: CommandContext) throws -> Int32 {
            let settings = try ConfigCommand.settings(LedgerCLI.open(context, reading: true), context: context)
            if key.hasPrefix(SettingCatalog.profilePrefix) {
                let name = String(key.dropFirst(SettingCatalog.profilePrefix.count))
                guard let profile = settings.profile(name) else {
                    throw HumError.failure("there is no profile \(name.quoted); see 'hum config list'")
                }
                context.stdout.write(profile.text + "\n")
            } else {
                context.stdout.write(settings.text(key) + "\n")
            }
            return ExitCode.success
        }
    }

    struct Set: HumCommand {
        static let name = "set"
        static let abstract = "change one setting"
        static let examples = ["hum config set earn.ratio 4"]
        static let value = Positional(
            "VALUE", ValueKind<String>.text.completing(.settingValues),
            help: "the new value, in the form 'hum config get' prints")
        static let arguments: [any Declared] = [ConfigCommand.key, value]
        let key: String
        let value: String
        init(_ arguments: ParsedArguments) throws {
            key = try arguments.positional(ConfigCommand.key, at: 0)!
            value = try arguments.positional(Self.value, at: 1)!
            _ = try SettingCatalog.normalise(key, value)
        }
        func run(context: CommandContext) throws -> Int32 {
            if key == SettingCatalog.syncDir {  // the same as 'hum sync init DIR'
                try SyncInitCommand.start(SyncInitCommand.absolute(value), context: context)
                return ExitCode.success
            }
            let unsaved = try Self.checkMix(key, SettingCatalog.normalise(key, value), context: context)
            let db = try LedgerCLI.open(context)
            try db.setConfig(key, to: value)
            context.made("\(key) was set", see: "hum config get \(key)")
            let settings = try ConfigCommand.settings(db, context: context)
            let stored = settings.stored[key] ?? value
            context.stdout.write("\(key) = \(stored.visible)\(ConfigCommand.consequence(of: key, settings))\n")
            if let d = try? SettingCatalog.definition(key), let env = d.environment,
                case .environment = settings.value(key).source
            {
                context.warn("\(env) is set in this environment and wins over this setting here")
            }
            for name in unsaved {
                context.warn("there is no saved mix \(name.quoted) yet; save it with 'hum mix save \(name.clipped)'")
            }
            // The running player reads it now: the guard its shields' settings, the nudges their interval.
            if key.hasPrefix("shield.") || key == SettingCatalog.nudgeEvery { ShieldGuardLink.tell(context) }
            return ExitCode.success
        }

        /// A value that holds a mix (play.mix, a profile's mix words) is checked as it will be played, before it is
        /// stored: every sound must be in the library, as 'hum play' finds it (a mix that names a sound that does
        /// not exist would make every bare 'hum' fail). Returns the saved mixes it names that are not saved yet.
        static func checkMix(_ key: String, _ normalised: String, context: CommandContext) throws -> [String] {
            let words: [String]
            switch try SettingCatalog.definition(key).kind {
            case .mix: words = MixSetup.settingWords(normalised)
            case .profile: words = try FocusProfile(text: normalised).mix
            default: return []
            }
            do {
                return try MixSetup.checkSetting(
                    words, catalog: MixSetup.catalog(context.runtime), environment: context.runtime)
            } catch let error as PlayerError where error.kind == .usage {
                throw HumError.usage("\(key) \(normalised.quoted): \(error.message); nothing was changed")
            }
        }
    }

    struct Unset: HumCommand {
        static let name = "unset"
        static let abstract = "remove a setting, back to its default (or a profile)"
        static let examples = ["hum config unset focus.length", "hum config unset profile.deep"]
        static let arguments: [any Declared] = [ConfigCommand.key]
        let key: String
        init(_ arguments: ParsedArguments) throws { key = try arguments.positional(ConfigCommand.key, at: 0)! }
        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context)
            if key == SettingCatalog.syncDir { try db.stopSync() }
            let removed = try db.removeConfig(key)
            context.made(
                "\(key) was unset",
                see: key.hasPrefix(SettingCatalog.profilePrefix) ? "hum config list" : "hum config get \(key)")
            if key.hasPrefix(SettingCatalog.profilePrefix) {
                context.stdout.write(removed ? "removed \(key)\n" : "there was no \(key); nothing changed\n")
            } else {
                let value = try ConfigCommand.settings(db, context: context).value(key)
                context.stdout.write(
                    "\(key) = \(value.text.visible) (\(value.source))\(removed ? "" : "; it was not set")\n")
            }
            // The running player reads it now: the guard its shields' settings, the nudges their interval.
            if key.hasPrefix("shield.") || key == SettingCatalog.nudgeEvery { ShieldGuardLink.tell(context) }
            return ExitCode.success
        }
    }

    /// What a change means, after the new value: what a focus round now earns, how to use a profile.
    static func consequence(of key: String, _ settings: Settings) -> String {
        let f = LedgerCLI.format
        switch key {
        case SettingCatalog.earnRatio:
            let round = max(1, settings.seconds(SettingCatalog.focusLength))
            return ": \(f(round)) of focus now earns \(f(settings.ledger.earned(activeSeconds: round)))"
        case SettingCatalog.earnDailyCap:
            let round = max(1, settings.seconds(SettingCatalog.focusLength))
            let earned = settings.ledger.earned(activeSeconds: round)
            guard earned > 0 else { return "" }
            let rounds = (settings.ledger.dailyCapSeconds + earned - 1) / earned
            return ": a day stops earning after about \(rounds) round\(rounds == 1 ? "" : "s") of \(f(round))"
        case SettingCatalog.focusDailyGoal:
            let goal = settings.dailyGoalSeconds
            let round = max(1, settings.seconds(SettingCatalog.focusLength))
            guard goal > 0 else { return ": any focused time meets the day's goal" }
            let rounds = (goal + round - 1) / round
            return ": \(rounds) focus round\(rounds == 1 ? "" : "s") of \(f(round)) a day"
        default:
            if key.hasPrefix(SettingCatalog.profilePrefix) {
                return "; use it with 'hum focus --profile \(key.dropFirst(SettingCatalog.profilePrefix.count))'"
            }
            return ""
        }
    }
}
