import HumCore

/// `hum manpage`: the manual page in roff, made from the same table as `--help`.
struct ManpageCommand: HumCommand {
    static let name = "manpage"
    static let abstract = "print the manual page (roff)"
    static let examples = [
        "hum manpage > ~/.local/share/man/man1/hum.1 && man hum",
        "hum manpage | man -l -",
    ]

    init(_ arguments: ParsedArguments) throws {}

    /// Every command path in the table's order.
    static func paths(_ commands: [any HumCommand.Type] = CommandTable.commands) -> [(
        path: String, command: CommandEntry
    )] {
        var out: [(String, CommandEntry)] = []
        func walk(_ command: CommandEntry, _ prefix: String) {
            let path = prefix.isEmpty ? command.name : prefix + " " + command.name
            out.append((path, command))
            for sub in command.subcommands { walk(sub, path) }
        }
        for command in commands { walk(CommandEntry(command), "") }
        return out
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }.joined(separator: "\n")
    }

    func run(context: CommandContext) throws -> Int32 {
        var out =
            ".TH HUM 1 \"\" \"hum \(humVersion)\" \"User Commands\"\n.SH NAME\nhum \\- a calm focus companion for the "
            + "terminal\n"
        out += ".SH SYNOPSIS\n.B hum\n[\\fICOMMAND\\fR] [\\fIOPTIONS\\fR]\n"
        out +=
            ".SH DESCRIPTION\nA mixer of looping ambient sounds played through ALSA, a Pomodoro timer that drives "
            + "the mix, "
        out +=
            "a shared earn\\-and\\-spend ledger of leisure time, and a history of every round. Without a command, "
            + "hum plays "
        out += "the last mix. Every command answers \\fB\\-\\-help\\fR.\n.SH COMMANDS\n"
        for (path, command) in Self.paths() {
            out += ".SS \"hum \(Self.escape(path))\"\n\(Self.escape(command.abstract)).\n"
            out += ".PP\n.B \(Self.escape(Help.usage(for: command, path: path)[0]))\n"
            for argument in command.infos {
                var label = argument.label
                while label.first == " " { label.removeFirst() }
                out += ".TP\n.B \(Self.escape(label))\n\(Self.escape(argument.fullHelp))\n"
            }
            if !command.discussion.isEmpty { out += ".PP\n.nf\n\(Self.escape(command.discussion))\n.fi\n" }
            if !command.examples.isEmpty {
                out += ".PP\nExamples:\n.nf\n\(Self.escape(command.examples.joined(separator: "\n")))\n.fi\n"
            }
        }
        out += ".SH EXIT STATUS\n0 success, 1 failure, 2 usage error, 3 refused by the ledger's rules.\n"
        out += ".SH ENVIRONMENT\n.TP\n.B HUM_DEVICE\nthe ALSA PCM to play to (default \\fIdefault\\fR)\n"
        out +=
            ".TP\n.B NO_COLOR\nno colour when set\n.TP\n.B XDG_DATA_HOME, XDG_STATE_HOME, XDG_CACHE_HOME\nwhere hum "
            + "keeps its database and sounds, the last mix, and measured loudness\n"
        out +=
            ".SH FILES\n.TP\n.I $XDG_DATA_HOME/hum/hum.db\nthe ledger and the history (SQLite)\n.TP\n.I "
            + "$XDG_DATA_HOME/hum/sounds/\nyour own sounds\n"
        context.stdout.write(out)
        return ExitCode.success
    }
}
