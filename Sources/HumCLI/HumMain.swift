import HumCore

/// The table of top-level commands. A new command is one line here.
public enum CommandTable {
    // nonisolated(unsafe): an immutable table of metatypes; nothing ever writes to it.
    nonisolated(unsafe) public static let commands: [any HumCommand.Type] = [
        PlayCommand.self,
        RenderCommand.self,
        SoundsCommand.self,
        FocusCommand.self,
        BankCommand.self,
        SpendCommand.self,
        PassCommand.self,
        EmergencyCommand.self,
        LedgerCommand.self,
        HistoryCommand.self,
        ExportCommand.self,
        ConfigCommand.self,
        CompletionsCommand.self,
        ManpageCommand.self,
    ]

    /// What bare `hum` runs.
    public static let defaultCommandName = "play"
}

public let humVersion = "0.1.0"

/// The frontend's dispatcher: picks the command, parses, validates, runs, and maps every way out to an exit code.
/// It writes only through the context, so tests can run it in-process.
public enum HumMain {
    public static func run(arguments: [String], context: CommandContext) -> Int32 {
        var words = Array(arguments.dropFirst())
        if words.first == "--version" || words.first == "-V" {
            context.stdout.write("hum \(humVersion)\n")
            return ExitCode.success
        }
        if words.first == "help" {
            words.removeFirst()
            words.append("--help")
        }
        if words.isEmpty || words == ["--help"] || words == ["-h"] {
            if words.isEmpty,
                let command = CommandTable.commands.first(where: { $0.name == CommandTable.defaultCommandName })
            {
                LedgerHook.reconcileAtStart(context: context)  // Ledger (issue 4), as below.
                return execute(command, words: [], path: command.name, context: context)
            }
            context.stdout.write(overview())
            return ExitCode.success
        }
        // Ledger (issue 4): settle passes and interrupt rounds left behind by processes that died.
        LedgerHook.reconcileAtStart(context: context)
        let name = words.removeFirst()
        guard let command = CommandTable.commands.first(where: { $0.name == name }) else {
            let suggestion =
                Suggest.closest(to: name, in: CommandTable.commands.map { $0.name })
                .map { "did you mean '\($0)'? " } ?? ""
            return fail(HumError.usage("unknown command \"\(name)\"; \(suggestion)see 'hum --help'"), context: context)
        }
        return execute(command, words: words, path: name, context: context)
    }

    static func execute(_ command: any HumCommand.Type, words: [String], path: String, context: CommandContext) -> Int32
    {
        var words = words
        if let first = words.first, let sub = command.subcommands.first(where: { $0.name == first }) {
            words.removeFirst()
            return execute(sub, words: words, path: path + " " + sub.name, context: context)
        }
        // Help wins over everything else before `--`.
        let beforeDashes = words.prefix { $0 != "--" }
        if beforeDashes.contains("--help") || beforeDashes.contains("-h") {
            context.stdout.write(Help.text(for: command, path: path))
            return ExitCode.success
        }
        do {
            let parsed = try ArgumentParser.parse(
                words, options: command.options, commandName: path,
                takesPositionals: command.takesPositionals || !command.subcommands.isEmpty,
                takesCommandAfterDashes: command.takesCommandAfterDashes)
            if !command.subcommands.isEmpty, let first = parsed.positionals.first {
                let names = command.subcommands.map { $0.name }
                let hint = Suggest.closest(to: first, in: names).map { "did you mean '\($0)'? " } ?? ""
                throw HumError.usage("unknown command \"\(path) \(first)\"; \(hint)see 'hum \(path) --help'")
            }
            return try command.validateAndRun(parsed, context: context)
        } catch let error as any UserFacingError {
            return fail(error, context: context)
        } catch {
            // Every error hum throws says what to do; one that does not is a bug of hum's, and is named as one.
            return fail(
                HumError.failure("unexpected error (a bug in hum; please report it): \(error)"), context: context)
        }
    }

    static func fail(_ error: any UserFacingError, context: CommandContext) -> Int32 {
        // One line, whatever the message quotes of the command line or of a file: control characters escaped.
        context.stderr.write("hum: \(error.message.visible)\n")
        return ExitCode.of(error.kind)
    }

    static func overview() -> String {
        var out =
            "hum \(humVersion): a calm focus companion for the terminal\n\nUsage:\n  hum [COMMAND] [OPTIONS]\n\nCommands:\n"
        let width = CommandTable.commands.map { $0.name.count }.max() ?? 0
        for command in CommandTable.commands {
            out += "  \(command.name.padding(width))  \(command.abstract)\n"
        }
        out += "\nWithout a command, hum plays the last mix (or the default one).\n"
        out += "Run 'hum COMMAND --help' for the options of a command.\n"
        return out
    }
}

/// "Did you mean" by edit distance, for unknown commands and sound names.
public enum Suggest {
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let best = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }.min { $0.1 < $1.1 }
        guard let best, best.1 <= max(1, word.count / 3) else { return nil }
        return best.0
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
