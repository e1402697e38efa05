import HumCore
import HumPlayer
import HumTerminal

/// The table of top-level commands. A new command is one line here.
public enum CommandTable {
    public static var commands: [any HumCommand.Type] {
        [
            PlayCommand.self,
            UICommand.self,
            RenderCommand.self,
            SoundsCommand.self,
            FocusCommand.self,
            StatusCommand.self,
            CtlCommand.self,
            BankCommand.self,
            SpendCommand.self,
            PassCommand.self,
            EmergencyCommand.self,
            ShieldCommand.self,
            ShieldHostCommand.self,
            ScheduleCommand.self,
            LedgerCommand.self,
            HistoryCommand.self,
            ContractCommand.self,
            ProofCommand.self,
            ReportCommand.self,
            LogCommand.self,
            ExportCommand.self,
            MixCommand.self,
            DaemonCommand.self,
            ConfigCommand.self,
            SyncCommand.self,
            CompletionsCommand.self,
            ManpageCommand.self,
        ]
    }
}

/// The version: the one place it is written (scripts/dist.sh and scripts/deb.sh read it from `hum --version`).
public let humVersion = "0.1.0"
/// The date of this version (CHANGELOG.md), which the man page carries: it moves with `humVersion`.
public let humVersionDate = "2026-12-02"

/// The commit hum was built from. `make` (scripts/stamp-commit.sh) writes BuildStamp.swift, gitignored, whose
/// `BuildStamp.commit` shadows this default; a plain `swift build` without it still compiles, and says so.
public protocol BuildStampDefault {}
extension BuildStampDefault {
    public static var commit: String { "commit unknown" }
}
public enum BuildStamp: BuildStampDefault {}

/// The frontend's dispatcher: picks the command, parses, validates, runs, and maps every way out to an exit code.
/// It writes only through the context, so tests can run it in-process.
public enum HumMain {
    public static func run(arguments: [String], context: CommandContext) -> Int32 {
        var words = Array(arguments.dropFirst())
        if words.first == "--version" || words.first == "-V" {
            context.stdout.write("hum \(humVersion) (\(BuildStamp.commit))\n")
            return ExitCode.success
        }
        if words.first == "help" {
            words.removeFirst()
            words.append("--help")
        }
        if words == ["--help"] || words == ["-h"] {
            context.stdout.write(overview())
            return ExitCode.success
        }
        let play = CommandEntry(PlayCommand.self)
        guard let name = words.first else {
            // Bare `hum` on a terminal is the full screen; elsewhere (and on a terminal that cannot show a screen,
            // or of no known type) it plays, as it always did.
            if context.stdinIsTerminal && context.stdoutIsTerminal, CursesScreen.canShow() {
                return execute(CommandEntry(UICommand.self), words: [], path: UICommand.name, context: context)
            }
            return execute(play, words: [], path: play.name, context: context)
        }
        if let command = CommandTable.commands.first(where: { $0.name == name }) {
            return execute(CommandEntry(command), words: Array(words.dropFirst()), path: name, context: context)
        }
        // `hum rain=40`, `hum rain`, `hum @night`, `hum --for 30m`: without a command, the words are play's.
        let catalog = MixSetup.catalog(context.runtime)
        if name.hasPrefix("-") || name.hasPrefix("@") || name.contains("=") || catalog.resolve(name) != nil {
            return execute(play, words: words, path: play.name, context: context)
        }
        let suggestion =
            Suggest.closest(to: name, in: CommandTable.commands.map { $0.name } + catalog.all.map(\.name))
            .map { "did you mean '\($0)'? " } ?? ""
        return fail(
            HumError.usage("unknown command or sound \(name.quoted); \(suggestion)see 'hum --help'"), context: context)
    }

    static func execute(_ command: CommandEntry, words: [String], path: String, context: CommandContext) -> Int32 {
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
            let takesPositionals = command.infos.contains { if case .positional = $0.role { true } else { false } }
            if !command.subcommands.isEmpty, !takesPositionals, let first = words.first, !first.hasPrefix("-") {
                let hint =
                    Suggest.closest(to: first, in: command.subcommands.map { $0.name })
                    .map { "did you mean '\($0)'? " } ?? ""
                throw HumError.usage("unknown command \("\(path) \(first)".quoted); \(hint)see 'hum \(path) --help'")
            }
            let parsed = try ArgumentParser.parse(
                words, declarations: command.infos, path: path, example: command.firstExample)
            // Without a home, only the commands that write no file run (never a fallback to a shared directory).
            if let problem = context.paths.problem, path != CompletionsCommand.name, path != ManpageCommand.name {
                throw HumError.failure(problem)
            }
            return try command.prepare(parsed)(context)
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
        var out = "hum \(humVersion): a calm focus companion for the terminal\n\nUsage:\n  hum [COMMAND] [OPTIONS]\n\n"
        out += "Commands:\n" + Help.table(CommandTable.commands.map { ($0.name, $0.abstract) })
        out += "\nWithout a command, hum plays: 'hum rain=40' is 'hum play rain=40', and bare 'hum' plays the last mix"
        out += "\n(or the default one); on a terminal, bare 'hum' is 'hum ui', the full screen."
        out += "\nRun 'hum COMMAND --help' for the options of a command.\n"
        return out
    }
}
