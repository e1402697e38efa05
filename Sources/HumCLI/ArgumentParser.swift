import HumCore

/// A small table-driven command-line parser: `--name value`, `--name=value`, `-x value`, flags, positionals and
/// `--`. A word that starts with `-` and a digit (`-5m`) is a positional, so negative amounts need no quoting.
public enum ArgumentParser {
    public static func parse(
        _ words: [String], options: [OptionSpec], commandName: String,
        takesPositionals: Bool, takesCommandAfterDashes: Bool
    ) throws -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        let help = "see 'hum \(commandName) --help'"
        func spec(long: String) -> OptionSpec? { options.first { $0.long == long } }
        func spec(short: Character) -> OptionSpec? { options.first { $0.short == short } }

        func store(_ option: OptionSpec, _ value: String?, word: String) throws {
            if let placeholder = option.value {
                guard let value else {
                    throw HumError.usage("option --\(option.long) needs a value (\(placeholder)); \(help)")
                }
                if !option.repeatable, result.values[option.long] != nil {
                    throw HumError.usage("option --\(option.long) is given twice; give it once")
                }
                result.values[option.long, default: []].append(value)
            } else {
                if value != nil {
                    throw HumError.usage("option --\(option.long) takes no value, but got \"\(word)\"; \(help)")
                }
                result.flags.insert(option.long)
            }
        }

        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--" {
                if takesCommandAfterDashes {
                    result.command = Array(words[index...])
                } else {
                    result.positionals.append(contentsOf: words[index...])
                }
                break
            }
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                let name: Substring
                var inline: String? = nil
                if let eq = body.firstIndex(of: "=") {
                    name = body[..<eq]
                    inline = String(body[body.index(after: eq)...])
                } else {
                    name = body
                }
                guard let option = spec(long: String(name)) else {
                    throw HumError.usage("unknown option --\(name); \(help)")
                }
                var value = inline
                if option.value != nil, value == nil, index < words.count {
                    value = words[index]
                    index += 1
                }
                try store(option, value, word: word)
                continue
            }
            if word.count >= 2, word.hasPrefix("-"), !(word.dropFirst().first?.isNumber ?? false) {
                // A cluster of short flags (-qv), or a short option with its value attached or following (-o x).
                var chars = Array(word.dropFirst())
                while !chars.isEmpty {
                    let c = chars.removeFirst()
                    guard let option = spec(short: c) else {
                        throw HumError.usage("unknown option -\(c) in \"\(word)\"; \(help)")
                    }
                    if option.value != nil {
                        var value: String? = chars.isEmpty ? nil : String(chars)
                        chars.removeAll()
                        if value == nil, index < words.count {
                            value = words[index]
                            index += 1
                        }
                        try store(option, value, word: word)
                    } else {
                        try store(option, nil, word: word)
                    }
                }
                continue
            }
            result.positionals.append(word)
        }
        if !takesPositionals, let first = result.positionals.first {
            throw HumError.usage("unexpected argument \"\(first)\"; \(help)")
        }
        return result
    }
}
