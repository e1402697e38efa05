import HumCore

/// How a command ends when it cannot do what was asked. The frontend maps each case to an exit code and prints
/// the message as one line, `hum: ` then the message, on stderr.
public enum HumError: UserFacingError, Equatable, Sendable {
    /// Bad input on the command line (exit 2). The message names the bad token and what to try.
    case usage(String)
    /// The command could not be carried out (exit 1).
    case failure(String)
    /// The ledger's rules refused the request; nothing was changed (exit 3).
    case refused(String)

    public var kind: FailureKind {
        switch self {
        case .usage: return .usage
        case .failure: return .failure
        case .refused: return .refused
        }
    }

    public var exitCode: Int32 { ExitCode.of(kind) }

    /// The same error as a `HumError`, keeping its message and kind.
    public init(_ error: any UserFacingError) {
        switch error.kind {
        case .usage: self = .usage(error.message)
        case .failure: self = .failure(error.message)
        case .refused: self = .refused(error.message)
        }
    }

    public var message: String {
        switch self {
        case .usage(let m), .failure(let m), .refused(let m): return m
        }
    }
}

/// The process exit codes hum uses.
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
    public static let refused: Int32 = 3

    public static func of(_ kind: FailureKind) -> Int32 {
        switch kind {
        case .usage: return usage
        case .failure: return failure
        case .refused: return refused
        }
    }
}

/// One option a command accepts. `value == nil` makes it a flag; otherwise `value` is the placeholder shown in help.
public struct OptionSpec: Sendable {
    public var long: String
    public var short: Character?
    public var value: String?
    public var repeatable: Bool
    public var help: String

    public init(_ long: String, short: Character? = nil, value: String? = nil, repeatable: Bool = false, help: String) {
        self.long = long
        self.short = short
        self.value = value
        self.repeatable = repeatable
        self.help = help
    }

    public static let json = OptionSpec("json", help: "print JSON for scripts")
}

/// A command of `hum`: a type with a static description, validated on construction, then run.
///
/// `init(arguments:context:)` is `validate()`: it throws `HumError.usage` for bad input before anything happens.
/// `run` returns the exit code, or throws `HumError` for a failure or a refusal.
public protocol HumCommand {
    static var name: String { get }
    static var abstract: String { get }
    /// Usage lines without the leading "hum "; the first is the synopsis.
    static var usage: [String] { get }
    /// Longer help: what it does and examples. May be empty.
    static var discussion: String { get }
    static var options: [OptionSpec] { get }
    /// Whether positional arguments are accepted (the parser rejects them otherwise).
    static var takesPositionals: Bool { get }
    /// Whether everything after `--` is passed through as a command line to run.
    static var takesCommandAfterDashes: Bool { get }
    /// Nested commands, chosen by the first positional argument (`hum ledger check`).
    static var subcommands: [any HumCommand.Type] { get }

    init(arguments: ParsedArguments, context: CommandContext) throws
    func run(context: CommandContext) throws -> Int32
}

extension HumCommand {
    public static var discussion: String { "" }
    public static var options: [OptionSpec] { [] }
    public static var takesPositionals: Bool { false }
    public static var takesCommandAfterDashes: Bool { false }
    public static var subcommands: [any HumCommand.Type] { [] }

    /// `validate()` (the initializer) then `run()`.
    static func validateAndRun(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        try Self(arguments: arguments, context: context).run(context: context)
    }
}

/// The parsed command line of one command.
public struct ParsedArguments: Sendable, Equatable {
    public var positionals: [String] = []
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []
    /// The words after `--`, when the command takes a command to run.
    public var command: [String]? = nil

    public init() {}

    public func flag(_ name: String) -> Bool { flags.contains(name) }
    public func value(_ name: String) -> String? { values[name]?.last }
    public func all(_ name: String) -> [String] { values[name] ?? [] }
}
