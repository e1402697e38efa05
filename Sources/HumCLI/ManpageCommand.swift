import HumCore

/// `hum manpage`: the manual page in roff, made from the same table as `--help`.
struct ManpageCommand: HumCommand {
    static let name = "manpage"
    static let abstract = "print the manual page (roff)"
    static let examples = [
        "hum manpage --install && man hum",
        "hum manpage | man -l -",
    ]
    static let install = Flag(
        "install", help: "write the page to $XDG_DATA_HOME/man/man1/hum.1 (where man finds it), making the folders")
    static let arguments: [any Declared] = [install]

    let install: Bool

    init(_ arguments: ParsedArguments) throws { install = arguments.flag(Self.install) }

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

    /// Text as roff reads it: backslashes and hyphens escaped, a line starting with a control character kept as
    /// text, and every character beyond ASCII written as its named escape (`\[u2026]`), which plain `groff -man`
    /// reads without a warning whatever the locale.
    static func escape(_ text: String) -> String {
        var ascii = ""
        for scalar in text.unicodeScalars {
            if scalar.isASCII {
                ascii.unicodeScalars.append(scalar)
            } else {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                ascii += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            }
        }
        return ascii.replacing("\\", with: "\\e").replacing("\\e[u", with: "\\[u")
            .replacing("-", with: "\\-")
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : String($0) }.joined(separator: "\n")
    }

    /// What a character beyond ASCII reads as where the output device has no glyph for it (groff's PostScript and
    /// ASCII devices lack the shades and arrows the help draws with): one `.char` line per character the page
    /// uses, defined only where the device lacks it, so the page renders without a warning on any of them.
    static func fallbacks(for page: String) -> String {
        let known: [String: String] = [
            "2591": ".", "2592": ":", "2593": "*", "2588": "#", "2191": "^", "2193": "v", "2192": "->",
            "2190": "<-", "00B7": ".", "2026": "...", "2014": "--", "2013": "-", "2018": "'", "2019": "'",
            "201C": "\\(dq", "201D": "\\(dq", "00D7": "x", "2212": "-", "00B1": "+-",
        ]
        var seen: [String] = []
        var rest = page[...]
        while let start = rest.firstRange(of: "\\[u") {
            let after = rest[start.upperBound...]
            guard let end = after.firstIndex(of: "]") else { break }
            let code = String(after[..<end])
            if !seen.contains(code) { seen.append(code) }
            rest = after[end...]
        }
        return seen.map { ".if !c\\[u\($0)] .char \\[u\($0)] \(known[$0] ?? "?")\n" }.joined()
    }

    /// The variables hum reads, besides each setting's own (`hum config list` names those): name and meaning.
    static let readVariables: [(String, String)] = [
        ("HUM_SOUNDS_DIR", "the folder of the built\\-in sounds, instead of the one installed beside hum"),
        (
            "HUM_MACHINE_ID_PATH",
            "the file the machine id is read from for sync's device id, instead of /etc/machine\\-id (containers, tests)"
        ),
        (
            "XDG_DATA_DIRS",
            "where the built\\-in sounds are looked for (DIR/hum/sounds) when they are not beside hum; "
                + "/usr/local/share:/usr/share when unset"
        ),
        (
            "HUM_AUDIO",
            "alsa: play the device 'default' through ALSA (its pulse plugin, or whatever it is configured to) "
                + "instead of as a native stream to the sound server"
        ),
        ("HUM_DITHER", "off: round 16\\-bit output instead of dithering it (as render --no-dither)"),
        (
            "HUM_SEED",
            "a whole number: the seed the sounds' one\\-shot events are drawn from, so a play is the same each time "
                + "and the same as 'hum render --seed N'; a new one each session when unset"
        ),
        ("NO_COLOR", "no colour when set to anything"),
        ("XDG_DATA_HOME, XDG_STATE_HOME, XDG_CACHE_HOME, XDG_RUNTIME_DIR", "where hum keeps its files (see FILES)"),
    ]

    /// The variables hum sets for what it runs: hooks (focus.on-event), a pass's command, its own children.
    static let setVariables: [(String, String)] = [
        (
            "HUM_EVENT, HUM_PHASE, HUM_ROUND, HUM_ROUNDS, HUM_REMAINING_SECONDS, HUM_SESSION_ID",
            "given to an \\-\\-on\\-event hook: what happened, the phase, the round of how many, the seconds left, the session"
        ),
        (
            "HUM_PASS_ID, HUM_EMERGENCY_ID",
            "given to the command a pass or an emergency runs: the ledger entry that holds its time"
        ),
        (
            "HUM_READY_FD, HUM_WATCHDOG, HUM_SHIELD_LIFT",
            "hum's own, between a hum and the hum it starts (a detached player, the watchdog of a pass or a lift); not for users"
        ),
    ]

    func run(context: CommandContext) throws -> Int32 {
        var out =
            ".TH HUM 1 \(humVersionDate) \"hum \(humVersion)\" \"User Commands\"\n.SH NAME\nhum \\- a calm focus companion for the "
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
        out +=
            ".SH EXIT STATUS\n0 success, 1 failure, 2 usage error, 3 refused by the rules (the ledger's, a contract's).\n"
        out += ".SH ENVIRONMENT\n"
        for (name, meaning) in Self.readVariables {
            out += ".TP\n.B \(Self.escape(name))\n\(meaning)\n"
        }
        for setting in SettingCatalog.definitions {
            guard let variable = setting.environment else { continue }
            out +=
                ".TP\n.B \(Self.escape(variable))\nthe setting \\fB\(Self.escape(setting.key))\\fR: \(Self.escape(setting.summary))\n"
        }
        out += ".PP\nhum sets these for what it runs:\n"
        for (name, meaning) in Self.setVariables {
            out += ".TP\n.B \(Self.escape(name))\n\(meaning)\n"
        }
        out += ".SH FILES\n"
        for (file, meaning) in [
            ("$XDG_DATA_HOME/hum/hum.db", "the ledger, the history, contracts, shields and settings (SQLite)"),
            ("$XDG_DATA_HOME/hum/sounds/", "your own sounds, played by their file names"),
            ("$XDG_STATE_HOME/hum/last-mix.json", "the mix a bare hum plays next"),
            ("$XDG_STATE_HOME/hum/player.log", "what a detached player (play \\-\\-detach, hum daemon) says"),
            (
                "$XDG_STATE_HOME/hum/focus.lock",
                "held while focus rounds run, so two sessions cannot record the same time"
            ),
            ("$XDG_CACHE_HOME/hum/loudness.json", "the measured loudness of your own sounds"),
            (
                "$XDG_CACHE_HOME/hum/loops/",
                "the loops made of the sounds played, read from here while they play (kept under 512 MB; "
                    + "deleting them costs the next play the time to make them again)"
            ),
            (
                "$XDG_RUNTIME_DIR/hum/control.sock",
                "the player's control socket (/tmp/hum\\-UID/ without XDG_RUNTIME_DIR)"
            ),
        ] {
            out += ".TP\n.I \(Self.escape(file))\n\(meaning)\n"
        }
        out += ".SH SEE ALSO\n.BR systemd.unit (5),\n.BR playerctl (1),\n.BR sqlite3 (1)\n"
        // The fallbacks follow the title line, which stays first (man and the tests read it there).
        let title = out.prefix { $0 != "\n" }
        let page = title + "\n" + Self.fallbacks(for: out) + out.dropFirst(title.count + 1)
        guard install else {
            context.stdout.write(page)
            return ExitCode.success
        }
        let places = try UserFiles(context: context)
        try places.install(page, at: places.manPagePath, context: context)
        context.stdout.write(
            "\(places.manPagePath.clippedPath) (man finds it when PATH holds ~/.local/bin, or with MANPATH)\n")
        return ExitCode.success
    }
}
