import HumCore

/// `hum completions SHELL`: a completion script made from the commands' declarations, so it never drifts. It
/// completes commands and subcommands, every option, and values: the words of enum options, setting keys, shells,
/// files where a file is expected, commands after `--`, and sound names (asked of `hum sounds --names` at the
/// moment of completing, so new user sounds show up).
struct CompletionsCommand: HumCommand {
    static let name = "completions"
    static let abstract = "print a completion script for bash, zsh or fish"
    static let examples = [
        "hum completions --install          # all three shells, in their per-user places",
        "hum completions bash > ~/.local/share/bash-completion/completions/hum",
        "hum completions zsh > ~/.zfunc/_hum   # with fpath+=~/.zfunc before compinit",
        "hum completions fish > ~/.config/fish/completions/hum.fish",
    ]
    static let shell = Positional(
        "SHELL", .oneOf(["bash", "zsh", "fish"], placeholder: "SHELL"), required: false,
        help: "the shell (with --install: only this one)")
    static let install = Flag(
        "install",
        help: "write the scripts where each shell reads a user's completions, making the folders, and say where")
    static let arguments: [any Declared] = [shell, install]

    let shell: String?
    let install: Bool

    init(_ arguments: ParsedArguments) throws {
        shell = try arguments.positional(Self.shell, at: 0)
        install = arguments.flag(Self.install)
        if shell == nil && !install {
            throw HumError.usage("completions needs a SHELL (bash, zsh or fish) or --install")
        }
    }

    static func script(for shell: String) -> String {
        let table = CompletionTable()
        switch shell {
        case "bash": return table.bash()
        case "zsh": return table.zsh()
        default: return table.fish()
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        guard install else {
            context.stdout.write(Self.script(for: shell ?? "bash"))
            return ExitCode.success
        }
        let places = try UserFiles(context: context)
        for shell in shell.map({ [$0] }) ?? ["bash", "zsh", "fish"] {
            let path = places.completionPath(shell: shell)
            try places.install(Self.script(for: shell), at: path, context: context)
            let hint = places.completionHint(shell: shell).map { " (\($0))" } ?? ""
            context.stdout.write("\(shell): \(path.clippedPath)\(hint)\n")
        }
        return ExitCode.success
    }
}

/// Every command path with what may follow it, read from the declarations.
struct CompletionTable {
    struct Entry {
        var path: String
        var abstract: String
        var subcommands: [(name: String, abstract: String)]
        var options: [ArgumentInfo]
        /// Single positionals in order, then the variadic one if any.
        var positionals: [ArgumentInfo]
        var takesCommand: Bool
    }

    let entries: [Entry]

    init(commands: [any HumCommand.Type] = CommandTable.commands) {
        var entries: [Entry] = []
        // Bare `hum` takes a command, or play's sounds.
        entries.append(
            Entry(
                path: "", abstract: "", subcommands: commands.map { ($0.name, $0.abstract) },
                options: [Help.helpFlag.info, Flag("version", short: "V", help: "print the version").info],
                positionals: PlayCommand.infos.filter { $0.role == .positional(variadic: true) }, takesCommand: false))
        func walk(_ command: CommandEntry, _ prefix: String) {
            let path = prefix.isEmpty ? command.name : prefix + " " + command.name
            let infos = command.infos
            entries.append(
                Entry(
                    path: path, abstract: command.abstract,
                    subcommands: command.subcommands.map { ($0.name, $0.abstract) },
                    options: infos.filter { $0.role == .option || $0.role == .flag } + [Help.helpFlag.info],
                    positionals: infos.filter { $0.role == .positional(variadic: false) }
                        + infos.filter { $0.role == .positional(variadic: true) },
                    takesCommand: infos.contains { $0.role == .commandAfterDashes }))
            for sub in command.subcommands { walk(sub, path) }
        }
        for command in commands { walk(CommandEntry(command), "") }
        self.entries = entries
    }

    /// Every spelling of an option, short ones included (`-o`, `--output`).
    /// The spellings after which a value follows: the option's name, its aliases and its short form, not the flags
    /// that stand for one of its values (`--json` for `--format json` takes nothing after it).
    static func spellings(_ info: ArgumentInfo) -> [String] {
        ["--\(info.name)"] + info.aliases.map { "--\($0)" } + (info.short.map { ["-\($0)"] } ?? [])
    }

    static func quoted(_ text: String) -> String { "'" + text.replacing("'", with: "'\\''") + "'" }

    /// `case` patterns shared by bash and zsh: which words are subcommands, which options take a value.
    private func caseFunctions() -> String {
        var subs: [String] = []
        var valued: [String] = []
        for entry in entries {
            subs += entry.subcommands.map { Self.quoted("\(entry.path)|\($0.name)") }
            for option in entry.options where option.role == .option {
                valued += Self.spellings(option).map { Self.quoted("\(entry.path)|\($0)") }
            }
        }
        return """
            _hum_is_sub() {
                case "$1|$2" in
                    \(subs.joined(separator: "|"))) return 0 ;;
                esac
                return 1
            }
            _hum_takes_value() {
                case "$1|$2" in
                    \(valued.joined(separator: "|"))) return 0 ;;
                esac
                return 1
            }

            """
    }

    /// The loop that walks the words before the cursor, shared by bash and zsh (given the words' array and the
    /// first and current index): it finds the command path, the number of positionals typed, the option whose value
    /// is being completed, and whether the cursor is inside a command after `--`.
    private func walker(words: String, first: Int, current: String) -> String {
        """
            local cmdpath="" w i n=0 skip=0 pending="" dashes=0
            for ((i = \(first); i < \(current); i++)); do
                w=${\(words)[i]}
                if ((skip)); then skip=0; pending=""; continue; fi
                if [[ $w == -- ]]; then dashes=$i; break; fi
                if [[ $w == -* ]]; then
                    if [[ $w != *=* ]] && _hum_takes_value "$cmdpath" "$w"; then skip=1; pending=$w; fi
                    continue
                fi
                if ((n == 0)) && _hum_is_sub "$cmdpath" "$w"; then cmdpath=${cmdpath:+$cmdpath }$w; else n=$((n + 1)); fi
            done

        """
    }

    /// A shell `case` body that sets the candidates for option values (`path|--option`) or positionals
    /// (`path|index`), through `emit` for words, `files` and `sounds` actions.
    private func valueCases(
        words: (String, [String]) -> String, files: String, sounds: String, mixes: String, playing: String,
        commands: String, contracts: String, settingValues: String
    ) -> (options: String, positionals: String) {
        func action(_ completion: Completion, _ pattern: String) -> String? {
            switch completion {
            case .none: return nil
            case .contracts: return "\(pattern)) \(contracts) ;;"
            case .settingValues: return "\(pattern)) \(settingValues) ;;"
            case .files: return "\(pattern)) \(files) ;;"
            case .words(let list): return "\(pattern)) \(words(pattern, list)) ;;"
            case .sounds: return "\(pattern)) \(sounds) ;;"
            case .mixes: return "\(pattern)) \(mixes) ;;"
            case .playing: return "\(pattern)) \(playing) ;;"
            case .commands: return "\(pattern)) \(commands) ;;"
            }
        }
        var options: [String] = []
        var positionals: [String] = []
        for entry in entries {
            for option in entry.options where option.role == .option {
                let pattern = Self.spellings(option).map { Self.quoted("\(entry.path)|\($0)") }.joined(separator: "|")
                if let line = action(option.completion, pattern) { options.append(line) }
            }
            for (index, positional) in entry.positionals.enumerated() {
                let variadic = positional.role == .positional(variadic: true)
                let pattern = Self.quoted("\(entry.path)|" + (variadic ? "" : "\(index)")) + (variadic ? "*" : "")
                if let line = action(positional.completion, pattern) { positionals.append(line) }
            }
        }
        return (options.joined(separator: "\n            "), positionals.joined(separator: "\n            "))
    }

    func bash() -> String {
        let cases = valueCases(
            words: { _, list in "words=\(Self.quoted(list.joined(separator: "\n")))" },
            files: "COMPREPLY=($(compgen -f -- \"$cur\")); return",
            // After `rain=` (bash splits it: `rain`, `=`, the volume) a volume follows: nothing, not file names.
            sounds:
                "if [[ $cur == *=* || ${COMP_WORDS[COMP_CWORD-1]} == = ]]; then compopt +o default 2>/dev/null; "
                + "return; fi; words=$(\"${COMP_WORDS[0]}\" sounds --names 2>/dev/null; \"${COMP_WORDS[0]}\" mix list "
                + "--names 2>/dev/null | sed 's/^/@/')",
            mixes: "words=$(\"${COMP_WORDS[0]}\" mix list --names 2>/dev/null)",
            playing: "words=$(\"${COMP_WORDS[0]}\" status --names 2>/dev/null)",
            commands: "COMPREPLY=($(compgen -c -- \"$cur\")); return",
            contracts: "words=$(\"${COMP_WORDS[0]}\" contract list --ids 2>/dev/null)",
            settingValues:
                "compopt +o default 2>/dev/null; case \"${COMP_WORDS[COMP_CWORD-1]}\" in "
                + Self.settingChoices.map {
                    "\(Self.quoted($0.key))) words=\(Self.quoted($0.values.joined(separator: "\n"))) ;; "
                }
                .joined() + "esac")
        var optionWords: [String] = []
        var subWords: [String] = []
        for entry in entries {
            let spellings = entry.options.flatMap(\.spellings)
            optionWords.append("\(Self.quoted(entry.path))) words=\(Self.quoted(spellings.joined(separator: "\n"))) ;;")
            if !entry.subcommands.isEmpty {
                let names = entry.subcommands.map(\.name).joined(separator: "\n")
                subWords.append("\(Self.quoted(entry.path + "|0"))) subs=\(Self.quoted(names)) ;;")
            }
        }
        return """
            # bash completion for hum (made by 'hum completions bash')
            \(caseFunctions())_hum() {
                local cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\\n' words="" subs=""
            \(walker(words: "COMP_WORDS", first: 1, current: "COMP_CWORD"))    if ((dashes)); then
                    # The command to run after --: a program name, then its own words (files, by -o default).
                    if ((dashes == COMP_CWORD - 1)); then COMPREPLY=($(compgen -c -- "$cur")); fi
                    return
                fi
                if ((skip)); then
                    case "$cmdpath|$pending" in
                        \(cases.options)
                    esac
                elif [[ $cur == -* ]]; then
                    case "$cmdpath" in
                        \(optionWords.joined(separator: "\n            "))
                    esac
                else
                    case "$cmdpath|$n" in
                        \(subWords.joined(separator: "\n            "))
                    esac
                    case "$cmdpath|$n" in
                        \(cases.positionals)
                    esac
                    words=${subs:+$subs$'\\n'}$words
                fi
                COMPREPLY=($(compgen -W "$words" -- "$cur"))
            }
            complete -o default -F _hum hum

            """
    }

    /// zsh, natively: the same walk over `words`, then `_describe` with each command's and option's help.
    func zsh() -> String {
        func describe(_ name: String, _ help: String) -> String {
            Self.quoted(name.replacing(":", with: "\\:") + ":" + help)
        }
        let cases = valueCases(
            words: { _, list in "compadd -- \(list.map(Self.quoted).joined(separator: " "))" },
            files: "_files",
            sounds:
                "[[ $cur == *=* ]] && return; local -a sounds; sounds=(${(f)\"$(${words[1]} sounds --names "
                + "2>/dev/null; ${words[1]} mix list --names 2>/dev/null | sed 's/^/@/')\"}); compadd -a sounds",
            mixes: "local -a mixes; mixes=(${(f)\"$(${words[1]} mix list --names 2>/dev/null)\"}); compadd -a mixes",
            playing:
                "local -a playing; playing=(${(f)\"$(${words[1]} status --names 2>/dev/null)\"}); compadd -a playing",
            commands: "_command_names -e",
            contracts:
                "local -a ids; ids=(${(f)\"$(${words[1]} contract list --ids 2>/dev/null)\"}); compadd -a ids",
            settingValues:
                "case ${words[CURRENT-1]} in "
                + Self.settingChoices.map {
                    "\(Self.quoted($0.key))) compadd -- \($0.values.map(Self.quoted).joined(separator: " ")) ;; "
                }.joined() + "esac")
        var optionCases: [String] = []
        var subCases: [String] = []
        for entry in entries {
            let described = entry.options.flatMap { option in option.spellings.map { describe($0, option.help) } }
            optionCases.append(
                "\(Self.quoted(entry.path))) opts=(\(described.joined(separator: " "))) ;;")
            if !entry.subcommands.isEmpty {
                let subs = entry.subcommands.map { describe($0.name, $0.abstract) }
                subCases.append("\(Self.quoted(entry.path + "|0"))) subs=(\(subs.joined(separator: " "))) ;;")
            }
        }
        return """
            #compdef hum
            # zsh completion for hum (made by 'hum completions zsh')
            \(caseFunctions())_hum() {
                local cur=${words[CURRENT]}
                local -a opts subs
            \(walker(words: "words", first: 2, current: "CURRENT"))    if ((dashes)); then
                    if ((dashes == CURRENT - 1)); then _command_names -e; else _files; fi
                    return
                fi
                if ((skip)); then
                    case "$cmdpath|$pending" in
                        \(cases.options)
                    esac
                    return
                fi
                if [[ $cur == -* ]]; then
                    case "$cmdpath" in
                        \(optionCases.joined(separator: "\n            "))
                    esac
                    _describe -t options option opts
                    return
                fi
                case "$cmdpath|$n" in
                    \(subCases.joined(separator: "\n        "))
                esac
                (($#subs)) && _describe -t commands command subs
                case "$cmdpath|$n" in
                    \(cases.positionals)
                esac
            }
            compdef _hum hum

            """
    }

    static let fishSounds =
        "'(hum sounds --names 2>/dev/null; hum mix list --names 2>/dev/null | string replace -r \"^\" \"@\")'"
    static let fishMixes = "'(hum mix list --names 2>/dev/null)'"
    static let fishPlaying = "'(hum status --names 2>/dev/null)'"
    static let fishContracts = "'(hum contract list --ids 2>/dev/null)'"
    static let fishSettingValues = "'(__hum_setting_values)'"

    /// The settings whose values are words: their choices, or on/off (`hum config set KEY ` completes them).
    static let settingChoices: [(key: String, values: [String])] = SettingCatalog.definitions.compactMap {
        switch $0.kind {
        case .choice(let words): return ($0.key, words)
        case .toggle: return ($0.key, ["on", "off"])
        default: return nil
        }
    }

    /// fish, natively: a function tells the command path before the cursor; each option, subcommand and value is
    /// one `complete` line under the condition that the path matches.
    func fish() -> String {
        func q(_ text: String) -> String {
            "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
        }
        var subs: [String] = []
        var valued: [String] = []
        for entry in entries {
            subs += entry.subcommands.map { q("\(entry.path)|\($0.name)") }
            for option in entry.options where option.role == .option {
                valued += Self.spellings(option).map { q("\(entry.path)|\($0)") }
            }
        }
        var out = """
            # fish completion for hum (made by 'hum completions fish')
            function __hum_is_sub
                contains -- "$argv[1]|$argv[2]" \(subs.joined(separator: " "))
            end
            function __hum_takes_value
                contains -- "$argv[1]|$argv[2]" \(valued.joined(separator: " "))
            end
            # The command path before the cursor, then the number of positional words typed after it.
            function __hum_state
                set -l tokens (commandline -opc)
                set -e tokens[1]
                set -l p ''
                set -l n 0
                set -l skip 0
                for w in $tokens
                    if test $skip = 1
                        set skip 0
                        continue
                    end
                    if test "$w" = '--'
                        echo -- '--'
                        return
                    end
                    if string match -q -- '-*' $w
                        if not string match -q -- '*=*' $w; and __hum_takes_value "$p" $w
                            set skip 1
                        end
                        continue
                    end
                    if test $n = 0; and __hum_is_sub "$p" $w
                        set p (string trim -- "$p $w")
                    else
                        set n (math $n + 1)
                    end
                end
                echo -- "$p|$n"
            end
            function __hum_at
                string match -q -- "$argv[1]|*" (__hum_state)
            end
            function __hum_pos
                set -l state (__hum_state)
                test "$state" = "$argv[1]|$argv[2]"
            end
            function __hum_setting_values
                switch (commandline -opc)[-1]
            \(Self.settingChoices.map { "        case \(q($0.key))\n            printf '%s\\n' \($0.values.map(q).joined(separator: " "))\n" }.joined())    end
            end
            complete -c hum -f
            complete -c hum -n 'test (__hum_state) = --' -F -a '(__fish_complete_command)'

            """
        for entry in entries {
            let at = "-n \(q("__hum_at \(q(entry.path))"))"
            for sub in entry.subcommands {
                let condition = q("__hum_pos \(q(entry.path)) 0")
                out += "complete -c hum -n \(condition) -a \(q(sub.name)) -d \(q(sub.abstract))\n"
            }
            for option in entry.options {
                var value = ""
                if option.role == .option {
                    switch option.completion {
                    case .files: value = " -r -F"
                    case .words(let list): value = " -x -a \(q(list.joined(separator: " ")))"
                    case .sounds: value = " -x -a \(Self.fishSounds)"
                    case .mixes: value = " -x -a \(Self.fishMixes)"
                    case .playing: value = " -x -a \(Self.fishPlaying)"
                    case .contracts: value = " -x -a \(Self.fishContracts)"
                    case .settingValues: value = " -x -a \(Self.fishSettingValues)"
                    case .none, .commands: value = " -x"
                    }
                }
                let short = option.short.map { " -s \($0)" } ?? ""
                out += "complete -c hum \(at) -l \(option.name)\(short)\(value) -d \(q(option.help))\n"
                for alias in option.aliases {
                    out += "complete -c hum \(at) -l \(alias)\(value) -d \(q("same as --\(option.name)"))\n"
                }
                for alias in option.flagAliases {
                    out += "complete -c hum \(at) -l \(alias.flag) -d \(q("same as --\(option.name) \(alias.value)"))\n"
                }
            }
            for (index, positional) in entry.positionals.enumerated() {
                let variadic = positional.role == .positional(variadic: true)
                let condition = variadic ? at : "-n \(q("__hum_pos \(q(entry.path)) \(index)"))"
                switch positional.completion {
                case .files: out += "complete -c hum \(condition) -F\n"
                case .words(let list): out += "complete -c hum \(condition) -a \(q(list.joined(separator: " ")))\n"
                case .sounds: out += "complete -c hum \(condition) -a \(Self.fishSounds)\n"
                case .mixes: out += "complete -c hum \(condition) -a \(Self.fishMixes)\n"
                case .playing: out += "complete -c hum \(condition) -a \(Self.fishPlaying)\n"
                case .contracts: out += "complete -c hum \(condition) -a \(Self.fishContracts)\n"
                case .settingValues: out += "complete -c hum \(condition) -a \(Self.fishSettingValues)\n"
                case .none, .commands: break
                }
            }
        }
        return out
    }
}
