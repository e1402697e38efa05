import HumCore

/// Renders `--help` text from a command's static description, so help can never drift from the parser's table.
enum Help {
    static func text(for command: any HumCommand.Type, path: String) -> String {
        var out = "\(command.abstract)\n\nUsage:\n"
        for line in command.usage { out += "  hum \(line)\n" }
        if !command.subcommands.isEmpty {
            out += "\nCommands:\n"
            let width = command.subcommands.map { $0.name.count }.max() ?? 0
            for sub in command.subcommands {
                out += "  \(sub.name.padding(width))  \(sub.abstract)\n"
            }
        }
        let options = command.options + [OptionSpec("help", short: "h", help: "show this help")]
        out += "\nOptions:\n"
        let labels = options.map(label)
        let width = labels.map(\.count).max() ?? 0
        for (option, label) in zip(options, labels) {
            out += "  \(label.padding(width))  \(option.help)\n"
        }
        if !command.discussion.isEmpty {
            out += "\n" + command.discussion
            if !command.discussion.hasSuffix("\n") { out += "\n" }
        }
        _ = path
        return out
    }

    static func label(_ option: OptionSpec) -> String {
        var s = option.short.map { "-\($0), " } ?? "    "
        s += "--\(option.long)"
        if let v = option.value { s += " \(v)" }
        return s
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
