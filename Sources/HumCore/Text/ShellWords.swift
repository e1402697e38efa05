/// A command line split into words as a POSIX shell splits it, without running one: blanks separate words,
/// 'single quotes' keep everything literally, "double quotes" keep blanks and take a backslash before `"`, `\`,
/// `$` and `` ` ``, and outside quotes a backslash keeps the next character. Nothing is expanded (no `$VAR`,
/// globs or `~`): the words are run directly. `--on-event 'notify-send "hum says" $HUM_EVENT'` runs
/// notify-send with the two words `hum says` and `$HUM_EVENT`.
public enum ShellWords {
    public struct Problem: Error, Equatable, Sendable {
        public let message: String
        init(_ message: String) { self.message = message }
    }

    /// The most a command line may hold: a setting is one line of a small file, not a script.
    public static let mostBytes = 4096

    public static func split(_ text: String) throws(Problem) -> [String] {
        guard text.utf8.count <= mostBytes else { throw Problem("is longer than \(mostBytes) bytes") }
        guard !text.contains(where: \.isNewline) else { throw Problem("is not on one line") }
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character? = nil
        var escaped = false
        for c in text {
            if escaped {
                // Inside double quotes a backslash keeps only these four special; before anything else it stays.
                if quote == "\"", !"\"\\$`".contains(c) { current.append("\\") }
                current.append(c)
                escaped = false
            } else if quote == "'" {
                if c == "'" { quote = nil } else { current.append(c) }
            } else if c == "\\" {
                escaped = true
                inWord = true
            } else if quote == "\"" {
                if c == "\"" { quote = nil } else { current.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
                inWord = true
            } else if c == " " || c == "\t" {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(c)
                inWord = true
            }
        }
        if escaped { throw Problem("ends in a lone backslash") }
        if let quote { throw Problem("has a \(quote) with no closing \(quote)") }
        if inWord { words.append(current) }
        return words
    }

    /// The words written back so that `split` gives them again: a word with anything a shell would treat
    /// specially is single-quoted (a single quote inside as `'\''`).
    public static func join(_ words: [String]) -> String {
        words.map(quoted).joined(separator: " ")
    }

    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { !" \t\"'\\$`".unicodeScalars.contains($0) }
        if plain { return word }
        return "'" + word.replacing("'", with: "'\\''") + "'"
    }
}
