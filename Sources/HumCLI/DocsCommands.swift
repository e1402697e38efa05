import HumCore

/// `hum completions SHELL`: shell completion scripts made from the command table, so they never drift.
struct CompletionsCommand: HumCommand {
    static let name = "completions"
    static let abstract = "print a completion script for bash, zsh or fish"
    static let usage = ["completions bash|zsh|fish"]
    static let discussion = """
        Examples:
          hum completions bash > ~/.local/share/bash-completion/completions/hum
          hum completions zsh > ~/.zfunc/_hum        (with fpath+=~/.zfunc before compinit)
          hum completions fish > ~/.config/fish/completions/hum.fish
        """
    static let takesPositionals = true

    var shell: String

    init(arguments: ParsedArguments, context: CommandContext) throws {
        guard arguments.positionals.count == 1, let shell = arguments.positionals.first,
            ["bash", "zsh", "fish"].contains(shell)
        else {
            throw HumError.usage("completions needs one shell: bash, zsh or fish, for example 'hum completions bash'")
        }
        self.shell = shell
    }

    /// Every command path (`ledger check`) with its options, the longest paths first (so a shell `case` meets
    /// `ledger check` before `ledger`).
    static func paths() -> [(path: String, options: [String], command: any HumCommand.Type)] {
        tablePaths().sorted { $0.path.count > $1.path.count }
    }

    /// Every command path in the table's order.
    static func tablePaths() -> [(path: String, options: [String], command: any HumCommand.Type)] {
        var out: [(String, [String], any HumCommand.Type)] = []
        func walk(_ command: any HumCommand.Type, _ prefix: String) {
            let path = prefix.isEmpty ? command.name : prefix + " " + command.name
            out.append((path, command.options.map { "--" + $0.long } + ["--help"], command))
            for sub in command.subcommands { walk(sub, path) }
        }
        for command in CommandTable.commands { walk(command, "") }
        return out
    }

    /// What may follow a command path: its options and its subcommands.
    static func words(_ options: [String], _ command: any HumCommand.Type) -> String {
        (options + command.subcommands.map { $0.name }).joined(separator: " ")
    }

    func run(context: CommandContext) throws -> Int32 {
        let paths = Self.paths()
        let top = CommandTable.commands.map { $0.name }.joined(separator: " ")
        var out = ""
        switch shell {
        case "bash":
            out += "# bash completion for hum (made by 'hum completions bash')\n_hum() {\n"
            out += "    local cur=${COMP_WORDS[COMP_CWORD]} words=\"\" path=\"\"\n"
            out +=
                "    local i; for ((i = 1; i < COMP_CWORD; i++)); do [[ ${COMP_WORDS[i]} == -* ]] || path=\"${path:+$path }${COMP_WORDS[i]}\"; done\n"
            out += "    case \"$path\" in\n"
            out += "        \"\") words=\"\(top) --help --version\" ;;\n"
            for (path, options, command) in paths {
                out += "        \"\(path)\"*) words=\"\(Self.words(options, command))\" ;;\n"
            }
            out +=
                "    esac\n    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\ncomplete -o default -F _hum hum\n"
        case "zsh":
            out += "#compdef hum\n# zsh completion for hum (made by 'hum completions zsh')\n_hum() {\n"
            out += "    local path=${(j: :)${(@)words[2,CURRENT-1]:#-*}}\n"
            out += "    case $path in\n"
            out += "        '') compadd -- \(top) --help --version ;;\n"
            for (path, options, command) in paths {
                out += "        '\(path)'*) compadd -- \(Self.words(options, command)); _files ;;\n"
            }
            out += "    esac\n}\n_hum \"$@\"\n"
        default:
            out += "# fish completion for hum (made by 'hum completions fish')\ncomplete -c hum -f\n"
            for command in CommandTable.commands {
                out +=
                    "complete -c hum -n __fish_use_subcommand -a \(command.name) -d '\(command.abstract.replacingOccurrences(of: "'", with: "\\'"))'\n"
            }
            for (path, options, command) in paths {
                let condition = path.split(separator: " ").map { "__fish_seen_subcommand_from \($0)" }.joined(
                    separator: "; and ")
                for option in options {
                    out += "complete -c hum -n '\(condition)' -l \(option.dropFirst(2))\n"
                }
                for sub in command.subcommands {
                    out +=
                        "complete -c hum -n '\(condition)' -a \(sub.name) -d '\(sub.abstract.replacingOccurrences(of: "'", with: "\\'"))'\n"
                }
            }
        }
        context.stdout.write(out)
        return ExitCode.success
    }
}

/// `hum manpage`: the manual page in roff, made from the same table as `--help`.
struct ManpageCommand: HumCommand {
    static let name = "manpage"
    static let abstract = "print the manual page (roff)"
    static let usage = ["manpage"]
    static let discussion = """
        Examples:
          hum manpage > ~/.local/share/man/man1/hum.1 && man hum
          hum manpage | man -l -
        """

    init(arguments: ParsedArguments, context: CommandContext) throws {}

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }.joined(separator: "\n")
    }

    func run(context: CommandContext) throws -> Int32 {
        var out =
            ".TH HUM 1 \"\" \"hum \(humVersion)\" \"User Commands\"\n.SH NAME\nhum \\- a calm focus companion for the terminal\n"
        out += ".SH SYNOPSIS\n.B hum\n[\\fICOMMAND\\fR] [\\fIOPTIONS\\fR]\n"
        out +=
            ".SH DESCRIPTION\nA mixer of looping ambient sounds played through ALSA, a Pomodoro timer that drives the mix, "
        out +=
            "a shared earn\\-and\\-spend ledger of leisure time, and a history of every round. Without a command, hum plays "
        out += "the last mix. Every command answers \\fB\\-\\-help\\fR.\n.SH COMMANDS\n"
        for (path, _, command) in CompletionsCommand.tablePaths() {
            out += ".SS \"hum \(Self.escape(path))\"\n\(Self.escape(command.abstract)).\n"
            for line in command.usage { out += ".PP\n.B hum \(Self.escape(line))\n" }
            for option in command.options {
                out +=
                    ".TP\n.B \(Self.escape(Help.label(option).trimmingCharacters(in: .whitespaces)))\n\(Self.escape(option.help))\n"
            }
            if !command.discussion.isEmpty { out += ".PP\n.nf\n\(Self.escape(command.discussion))\n.fi\n" }
        }
        out += ".SH EXIT STATUS\n0 success, 1 failure, 2 usage error, 3 refused by the ledger's rules.\n"
        out += ".SH ENVIRONMENT\n.TP\n.B HUM_DEVICE\nthe ALSA PCM to play to (default \\fIdefault\\fR)\n"
        out +=
            ".TP\n.B NO_COLOR\nno colour when set\n.TP\n.B XDG_DATA_HOME, XDG_STATE_HOME, XDG_CACHE_HOME\nwhere hum keeps its database and sounds, the last mix, and measured loudness\n"
        out +=
            ".SH FILES\n.TP\n.I $XDG_DATA_HOME/hum/hum.db\nthe ledger and the history (SQLite)\n.TP\n.I $XDG_DATA_HOME/hum/sounds/\nyour own sounds\n"
        context.stdout.write(out)
        return ExitCode.success
    }
}
