import HumCore

/// `--help` text, made from a command's declaration, so it can never drift from what the parser accepts.
enum Help {
    /// The usage lines of a command path: its own, then its subcommands'.
    static func usage(for command: CommandEntry, path: String) -> [String] {
        var lines = [(["hum", path] + command.infos.map(\.synopsis)).joined(separator: " ")]
        for sub in command.subcommands {
            lines += usage(for: sub, path: path + " " + sub.name)
        }
        return lines
    }

    static func text(for command: CommandEntry, path: String) -> String {
        var out = "\(command.abstract)\n\nUsage:\n"
        for line in usage(for: command, path: path) { out += wrap(line, indent: 4).map { "  " + $0 + "\n" }.joined() }
        if !command.subcommands.isEmpty {
            out += "\nCommands:\n"
            out += table(command.subcommands.map { ($0.name, $0.abstract) })
        }
        let positionals = command.infos.filter { $0.role != .option && $0.role != .flag }
        if !positionals.isEmpty {
            out += "\nArguments:\n"
            out += table(positionals.map { ($0.label, $0.fullHelp) })
        }
        let options = command.infos.filter { $0.role == .option || $0.role == .flag } + [helpFlag.info]
        out += "\nOptions:\n"
        out += table(options.map { ($0.label, $0.fullHelp) })
        if !command.discussion.isEmpty {
            out += "\n" + command.discussion
            if !command.discussion.hasSuffix("\n") { out += "\n" }
        }
        if !command.examples.isEmpty {
            out += "\nExamples:\n" + command.examples.map { "  \($0)\n" }.joined()
        }
        return out
    }

    static let helpFlag = Flag("help", short: "h", help: "show this help")

    /// Two columns, the second wrapped to 80 columns under itself.
    static func table(_ rows: [(String, String)]) -> String {
        let width = min(28, rows.map(\.0.count).max() ?? 0)
        var out = ""
        for (label, text) in rows {
            let lines = wrap(text, width: max(30, 80 - 4 - width), indent: 0)
            if label.count > width {
                out += "  \(label)\n"
                for line in lines { out += "  " + String(repeating: " ", count: width + 2) + line + "\n" }
            } else {
                for (i, line) in lines.enumerated() {
                    out +=
                        "  " + (i == 0 ? label.padding(width) : String(repeating: " ", count: width)) + "  " + line
                        + "\n"
                }
            }
        }
        return out
    }

    /// Breaks a line at spaces to fit `width`; lines after the first are indented by `indent`.
    static func wrap(_ text: String, width: Int = 78, indent: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if candidate.count > width, !line.isEmpty {
                lines.append(line)
                line = String(repeating: " ", count: indent) + word
            } else {
                line = candidate
            }
        }
        lines.append(line)
        return lines
    }
}

extension String {
    /// The text padded with spaces to `width` terminal columns.
    func padding(_ width: Int) -> String { DisplayWidth.padded(self, to: width) }
}
