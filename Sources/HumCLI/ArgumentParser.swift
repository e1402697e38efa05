import HumCore

/// A small table-driven command-line parser over a command's declarations: `--name value`, `--name=value`,
/// `-x value`, `-xVALUE`, clusters of short flags, positionals and `--`. A word that starts with `-` and a digit
/// (`-5m`) is a positional, so negative amounts need no quoting; so is a word that starts with `-` and holds a space
/// before any `=` (no option's name holds one): a quoted list of options, such as a focus profile's value
/// (`--goal="two words"` stays an option). Values are kept as text; the declarations' kinds check them when the
/// command reads them.
public enum ArgumentParser {
    /// One spelling the parser knows: the declaration it belongs to, and the value a flag alias stands for.
    private struct Spelling {
        var info: ArgumentInfo
        var fixedValue: String?
    }

    public static func parse(
        _ words: [String], declarations: [ArgumentInfo], path: String, example: String? = nil
    ) throws(HumError) -> ParsedArguments {
        var result = ParsedArguments(path: path, example: example)
        var long: [String: Spelling] = [:]
        var short: [Character: ArgumentInfo] = [:]
        for info in declarations where info.role == .option || info.role == .flag {
            long[info.name] = Spelling(info: info)
            for alias in info.aliases { long[alias] = Spelling(info: info) }
            for alias in info.flagAliases { long[alias.flag] = Spelling(info: info, fixedValue: alias.value) }
            if let s = info.short { short[s] = info }
        }
        let takesCommand = declarations.contains { $0.role == .commandAfterDashes }
        let singles = declarations.filter { $0.role == .positional(variadic: false) }.count
        let variadic = declarations.contains { $0.role == .positional(variadic: true) }
        let help = "see 'hum \(path) --help'"

        func store(_ info: ArgumentInfo, _ value: String?, spelling: String, word: String) throws(HumError) {
            if info.role == .option {
                guard let value else {
                    throw .usage("option \(spelling) needs a value (\(info.placeholder)); \(help)")
                }
                if !info.repeatable, result.values[info.name] != nil {
                    let before = result.spelled[info.name] ?? "--\(info.name)"
                    if before != spelling, info.flagAliases.contains(where: { "--\($0.flag)" == before }) {
                        throw .usage("\(before) and \(spelling) cannot go together; choose one")
                    }
                    throw .usage("option \(spelling) is given twice; give it once")
                }
                result.values[info.name, default: []].append(value)
                result.spelled[info.name] = spelling
            } else {
                if value != nil {
                    throw .usage("option \(spelling) takes no value, but got \(word.quoted); \(help)")
                }
                result.flags.insert(info.name)
            }
        }

        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if word == "--" {
                if takesCommand {
                    result.command = Array(words[index...])
                } else {
                    result.positionals.append(contentsOf: words[index...])
                }
                break
            }
            if word.hasPrefix("-"), let space = word.firstIndex(of: " "), !word[..<space].contains("=") {
                result.positionals.append(word)
                continue
            }
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                var name = String(body)
                var inline: String? = nil
                if let eq = body.firstIndex(of: "=") {
                    name = String(body[..<eq])
                    inline = String(body[body.index(after: eq)...])
                }
                guard let spelling = long[name] else {
                    let hint =
                        Suggest.closest(to: "--" + name, in: long.keys.map { "--" + $0 })
                        .map { "did you mean \($0)? " } ?? ""
                    throw .usage("unknown option \(("--" + name).clipped); \(hint)\(help)")
                }
                if let fixed = spelling.fixedValue {
                    if inline != nil {
                        throw .usage("option --\(name) takes no value, but got \(word.quoted); \(help)")
                    }
                    try store(spelling.info, fixed, spelling: "--\(name)", word: word)
                    continue
                }
                var value = inline
                if spelling.info.role == .option, value == nil, index < words.count {
                    value = words[index]
                    index += 1
                }
                try store(spelling.info, value, spelling: "--\(name)", word: word)
                continue
            }
            if word.count >= 2, word.hasPrefix("-"), !(word.dropFirst().first?.isNumber ?? false) {
                // A cluster of short flags (-qv), or a short option with its value attached or following (-o x).
                var chars = Array(word.dropFirst())
                while !chars.isEmpty {
                    let c = chars.removeFirst()
                    guard let info = short[c] else {
                        throw .usage("unknown option -\(String(c).clipped) in \(word.quoted); \(help)")
                    }
                    if info.role == .option {
                        var value: String? = chars.isEmpty ? nil : String(chars)
                        chars.removeAll()
                        if value == nil, index < words.count {
                            value = words[index]
                            index += 1
                        }
                        try store(info, value, spelling: "-\(c)", word: word)
                    } else {
                        try store(info, nil, spelling: "-\(c)", word: word)
                    }
                }
                continue
            }
            result.positionals.append(word)
        }
        if !variadic, result.positionals.count > singles {
            throw .usage("unexpected argument \(result.positionals[singles].quoted); \(help)")
        }
        return result
    }
}
