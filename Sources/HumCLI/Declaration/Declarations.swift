import HumCore

/// What the shell completes for a value or a positional argument.
public enum Completion: Sendable, Equatable {
    /// Nothing to offer (a number, free text).
    case none
    /// File names.
    case files
    /// A fixed set of words (enum values, setting keys, shells).
    case words([String])
    /// Sound names, built-in and user (asked of `hum sounds --names` when completing, so new files show up), and
    /// saved mixes as `@NAME`.
    case sounds
    /// Saved mixes' names (asked of `hum mix list --names`).
    case mixes
    /// The sounds of the running player's mix (asked of `hum status --names`).
    case playing
    /// Commands on the PATH (after `--`).
    case commands
    /// The contracts' ids (asked of `hum contract list --ids`).
    case contracts
    /// The values of the setting named by the word before (`hum config set KEY VALUE`): its choices or on/off.
    case settingValues
}

/// The description of one argument of a command: everything the parser, `--help`, the man page and the
/// completions need. Typed declarations (`Option`, `Flag`, `Positional`, `CommandAfterDashes`) carry one.
public struct ArgumentInfo: Sendable {
    public enum Role: Sendable, Equatable {
        /// `--name VALUE`.
        case option
        /// `--name`.
        case flag
        /// A word that is not an option; `variadic` takes all that are left.
        case positional(variadic: Bool)
        /// Everything after `--`: a command line to run.
        case commandAfterDashes
    }

    public var role: Role
    /// The long name without dashes (options and flags), or the placeholder of a positional (`SOUND[=VOLUME]`).
    public var name: String
    public var short: Character?
    /// Older spellings still accepted (`--duration` for `--for`); shown in help, completed by the shells.
    public var aliases: [String]
    /// Flags that stand for this option with a fixed value: `--json` for `--format json`.
    public var flagAliases: [(flag: String, value: String)]
    /// What the value is called in help (`DURATION`); empty for flags.
    public var placeholder: String
    public var help: String
    public var repeatable: Bool
    public var required: Bool
    public var completion: Completion

    /// How the argument appears in a usage line: `[--for DURATION]`, `-o FILE`, `[SOUND[=VOLUME]...]`.
    public var synopsis: String {
        switch role {
        case .option:
            let body = "--\(name) \(placeholder)"
            if required { return body }
            return repeatable ? "[\(body)]..." : "[\(body)]"
        case .flag:
            let all = ["--\(name)"] + flagAliases.map { "--\($0.flag)" }
            return "[\(all.joined(separator: "|"))]"
        case .positional(let variadic):
            let body = variadic ? "\(name)..." : name
            return required ? body : "[\(body)]"
        case .commandAfterDashes:
            return required ? "-- COMMAND [ARGS...]" : "[-- COMMAND [ARGS...]]"
        }
    }

    /// The label in the options table: `-o, --output FILE`.
    public var label: String {
        switch role {
        case .option, .flag:
            var s = short.map { "-\($0), " } ?? "    "
            s += "--\(name)"
            if role == .option { s += " \(placeholder)" }
            return s
        case .positional, .commandAfterDashes:
            return role == .commandAfterDashes ? "-- COMMAND [ARGS...]" : name
        }
    }

    /// Help text with the other spellings named.
    public var fullHelp: String {
        var other = aliases.map { "--\($0)" }
        other += flagAliases.map { "--\($0.flag) for --\(name) \($0.value)" }
        return other.isEmpty ? help : help + " (also " + other.joined(separator: ", ") + ")"
    }

    /// Every spelling the shells should offer, with dashes.
    public var spellings: [String] {
        guard role == .option || role == .flag else { return [] }
        return ["--\(name)"] + aliases.map { "--\($0)" } + flagAliases.map { "--\($0.flag)" }
    }

    /// What to complete after this option (or in the place of this positional).
    public var valueWords: [String] {
        if case .words(let words) = completion { return words }
        return []
    }
}

/// A declared argument: it can describe itself.
public protocol Declared: Sendable {
    var info: ArgumentInfo { get }
}

/// `--name VALUE`, read back as a `Value` through its kind: parsing and validation happen before `run`.
public struct Option<Value: Sendable>: Declared {
    public let info: ArgumentInfo
    let kind: ValueKind<Value>

    public init(
        _ name: String, short: Character? = nil, aliases: [String] = [],
        flagAliases: [(flag: String, value: String)] = [], _ kind: ValueKind<Value>, repeatable: Bool = false,
        required: Bool = false, help: String
    ) {
        info = ArgumentInfo(
            role: .option, name: name, short: short, aliases: aliases, flagAliases: flagAliases,
            placeholder: kind.placeholder, help: help, repeatable: repeatable, required: required,
            completion: kind.completion)
        self.kind = kind
    }
}

/// `--name`, read back as a Bool.
public struct Flag: Declared {
    public let info: ArgumentInfo

    public init(_ name: String, short: Character? = nil, aliases: [String] = [], help: String) {
        info = ArgumentInfo(
            role: .flag, name: name, short: short, aliases: aliases, flagAliases: [], placeholder: "", help: help,
            repeatable: false, required: false, completion: .none)
    }

    public static let json = Flag("json", help: "print JSON for scripts")
}

/// A positional argument. A `variadic` one takes every positional word left; the others take one word each, in
/// the order they are declared.
public struct Positional<Value: Sendable>: Declared {
    public let info: ArgumentInfo
    let kind: ValueKind<Value>

    public init(
        _ placeholder: String, _ kind: ValueKind<Value>, variadic: Bool = false, required: Bool = true, help: String
    ) {
        info = ArgumentInfo(
            role: .positional(variadic: variadic), name: placeholder, short: nil, aliases: [], flagAliases: [],
            placeholder: placeholder, help: help, repeatable: variadic, required: required,
            completion: kind.completion)
        self.kind = kind
    }
}

/// `-- COMMAND [ARGS...]`: the words after `--`, run as a command.
public struct CommandAfterDashes: Declared {
    public let info: ArgumentInfo

    public init(required: Bool, help: String) {
        info = ArgumentInfo(
            role: .commandAfterDashes, name: "COMMAND", short: nil, aliases: [], flagAliases: [],
            placeholder: "COMMAND",
            help: help, repeatable: true, required: required, completion: .commands)
    }
}
