import HumCore

/// A command line parsed against a command's declarations. Values are read back through the declarations
/// themselves (`arguments.value(Self.volume)`), so a misspelt name does not compile, and each value is checked by
/// its kind, with an error that names the option and the bad word.
public struct ParsedArguments: Sendable, Equatable {
    /// The command path, for messages (`ledger adjust`).
    public var path: String
    /// The first example of the command, for messages about what is missing.
    var example: String?
    /// Raw values by the declaration's name, in the order given.
    var values: [String: [String]] = [:]
    /// How each value was spelled, for messages (`--duration` for `--for`).
    var spelled: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    /// The words after `--`, when the command takes a command to run.
    var command: [String]? = nil

    public init(path: String, example: String? = nil) {
        self.path = path
        self.example = example
    }

    public static func == (a: ParsedArguments, b: ParsedArguments) -> Bool {
        a.path == b.path && a.values == b.values && a.flags == b.flags && a.positionals == b.positionals
            && a.command == b.command
    }

    private func read<V>(_ kind: ValueKind<V>, _ text: String, as spelling: String) throws(HumError) -> V {
        switch kind.read(text) {
        case .success(let value): return value
        case .failure(let problem): throw .usage("\(spelling) \(text.quoted) \(problem.text)")
        }
    }

    /// What to add to "needs X": the command's first example.
    private var forExample: String { example.map { ", for example '\($0)'" } ?? "; see 'hum \(path) --help'" }

    /// The option's value, or nil when it was not given (a required option that is missing is an error).
    public func value<V>(_ option: Option<V>) throws(HumError) -> V? {
        let name = option.info.name
        guard let text = values[name]?.last else {
            if option.info.required {
                throw .usage("\(path) needs --\(name) \(option.info.placeholder)\(forExample)")
            }
            return nil
        }
        return try read(option.kind, text, as: spelled[name] ?? "--\(name)")
    }

    /// A required option's value.
    public func required<V>(_ option: Option<V>) throws(HumError) -> V {
        guard let value = try value(option) else {
            throw .usage("\(path) needs --\(option.info.name) \(option.info.placeholder)\(forExample)")
        }
        return value
    }

    /// Every value of a repeatable option, in order.
    public func values<V>(_ option: Option<V>) throws(HumError) -> [V] {
        let name = option.info.name
        var out: [V] = []
        for text in values[name] ?? [] { out.append(try read(option.kind, text, as: spelled[name] ?? "--\(name)")) }
        return out
    }

    public func flag(_ flag: Flag) -> Bool { flags.contains(flag.info.name) }

    /// Whether the option or flag was given at all.
    public func given(_ declaration: any Declared) -> Bool {
        values[declaration.info.name] != nil || flags.contains(declaration.info.name)
    }

    /// The value of a single positional (by its place among the command's single positionals).
    public func positional<V>(_ positional: Positional<V>, at index: Int) throws(HumError) -> V? {
        guard index < positionals.count else {
            if positional.info.required {
                throw .usage("\(path) needs \(positional.info.name)\(forExample)")
            }
            return nil
        }
        return try read(positional.kind, positionals[index], as: positional.info.name)
    }

    /// The words of a variadic positional, from `index` on.
    public func positionals<V>(_ positional: Positional<V>, from index: Int = 0) throws(HumError) -> [V] {
        let words = index < positionals.count ? Array(positionals[index...]) : []
        if words.isEmpty, positional.info.required {
            throw .usage("\(path) needs at least one \(positional.info.name)\(forExample)")
        }
        var out: [V] = []
        for word in words { out.append(try read(positional.kind, word, as: positional.info.name)) }
        return out
    }

    /// The command after `--`, if any (required by the declaration: an error when missing).
    public func command(_ declaration: CommandAfterDashes) throws(HumError) -> [String]? {
        guard let command, let first = command.first, !first.isEmpty else {
            if declaration.info.required { throw .usage("\(path) needs a command after --\(forExample)") }
            if command != nil { throw .usage("a command is needed after --\(forExample)") }
            return nil
        }
        return command
    }
}
