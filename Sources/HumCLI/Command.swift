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

/// A command of `hum`, declared once: its name, its words for people, and its arguments as typed declarations.
/// Usage lines, `--help`, the man page and the shell completions are all made from this declaration.
///
/// `init(_:)` is validation, in the style of swift-argument-parser's `validate()`: it reads every value through its
/// declaration (so a bad value is a usage error before anything happens) and does no I/O. `run` returns the exit
/// code, or throws a `UserFacingError`.
public protocol HumCommand {
    static var name: String { get }
    /// One line, lower-case, no full stop: what the command does.
    static var abstract: String { get }
    /// What help adds after the options: how it behaves. May be empty.
    static var discussion: String { get }
    /// Whole command lines, each optionally followed by `  # a comment`; the first is quoted in errors about a
    /// missing argument.
    static var examples: [String] { get }
    /// Options, flags, positionals and the command after `--`, in the order the usage line shows them.
    static var arguments: [any Declared] { get }
    /// Nested commands, chosen by the first word (`hum ledger check`).
    static var subcommands: [any HumCommand.Type] { get }
    /// Nested commands given as values, after `subcommands`: the rows of a table of like commands, each with no
    /// type of its own (the requests of `hum ctl`).
    static var subcommandRows: [CommandEntry] { get }

    init(_ arguments: ParsedArguments) throws
    func run(context: CommandContext) throws -> Int32
}

extension HumCommand {
    public static var discussion: String { "" }
    public static var examples: [String] { [] }
    public static var arguments: [any Declared] { [] }
    public static var subcommands: [any HumCommand.Type] { [] }
    public static var subcommandRows: [CommandEntry] { [] }

    static var infos: [ArgumentInfo] { arguments.map(\.info) }
}

/// A command as a value: all that `--help`, the man page, the completions and the dispatcher read of it. A
/// `HumCommand` type is one (`CommandEntry(PlayCommand.self)`); so is a row of a table, declared by values alone.
public struct CommandEntry {
    public let name: String
    public let abstract: String
    public let discussion: String
    public let examples: [String]
    public let arguments: [any Declared]
    public let subcommands: [CommandEntry]
    /// Validation (a bad value is a usage error, and no I/O happens), then what runs the command.
    let prepare: (ParsedArguments) throws -> (CommandContext) throws -> Int32

    public init(
        name: String, abstract: String, discussion: String = "", examples: [String] = [],
        arguments: [any Declared] = [], subcommands: [CommandEntry] = [],
        prepare: @escaping (ParsedArguments) throws -> (CommandContext) throws -> Int32
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.examples = examples
        self.arguments = arguments
        self.subcommands = subcommands
        self.prepare = prepare
    }

    /// The command a type declares: `init(_:)` validates, `run` runs.
    public init(_ command: any HumCommand.Type) {
        self.init(
            name: command.name, abstract: command.abstract, discussion: command.discussion,
            examples: command.examples, arguments: command.arguments,
            subcommands: command.subcommands.map(CommandEntry.init) + command.subcommandRows
        ) { parsed in
            let ready = try command.init(parsed)
            return { context in try ready.run(context: context) }
        }
    }

    var infos: [ArgumentInfo] { arguments.map(\.info) }

    /// The first example without its comment, for error messages.
    var firstExample: String? {
        examples.first.map { line in
            guard let hash = line.firstRange(of: "  #") else { return line }
            var head = line[..<hash.lowerBound]
            while head.last == " " { head.removeLast() }
            return String(head)
        }
    }
}
