/// A named set of `hum focus` options (`hum config set profile.deep "--focus 50m --short-break 10m --rounds 3"`),
/// used as `hum focus --profile deep`. Written as the options are typed on the command line: `--focus`,
/// `--short-break`, `--long-break`, `--long-every`, `--rounds`, `--fade`, `--auto-advance`, `--goal`, `--tag`
/// (repeatable), `--no-sound`, and mix words (`brown=30`, `@night`). A value with spaces is quoted, "like this" or
/// 'like this'. Options the command line gives win over the profile's; the profile's win over the settings.
public struct FocusProfile: Sendable, Equatable {
    /// Durations in milliseconds.
    public var focus: Int64?
    public var shortBreak: Int64?
    public var longBreak: Int64?
    public var fade: Int64?
    public var longEvery: Int?
    public var rounds: Int?
    public var autoAdvance: FocusPlan.AutoAdvance?
    public var goal: String?
    public var tags: [String] = []
    public var noSound = false
    /// Mix words, in their written form.
    public var mix: [String] = []

    public struct Problem: Error, Equatable, Sendable {
        public var message: String
        init(_ message: String) { self.message = message }
    }

    /// The options a profile takes, as `hum focus` spells them.
    public static let options = [
        "focus", "short-break", "long-break", "long-every", "rounds", "fade", "auto-advance", "goal", "tag", "no-sound",
    ]

    public init() {}

    /// Reads a profile from its text; the problem says what is wrong (after "expected").
    public init(text: String) throws(Problem) {
        let words = try FocusProfile.split(text)
        var i = 0
        while i < words.count {
            var word = words[i]
            i += 1
            guard word.hasPrefix("--") else {
                if word.hasPrefix("@") {
                    guard (try? Mix.checkName(String(word.dropFirst()))) != nil else {
                        throw Problem("hum focus options; \(word.quoted) is not a saved mix's name")
                    }
                    mix.append(word)
                } else {
                    guard let token = try? MixSpec.parse(word) else {
                        throw Problem(
                            "hum focus options; \(word.quoted) is neither an option nor a mix word")
                    }
                    mix.append("\(token.name)=\(MixSpec.formatVolume(token.volume))")
                }
                continue
            }
            var value: String? = nil
            if let eq = word.firstIndex(of: "=") {
                value = String(word[word.index(after: eq)...])
                word = String(word[..<eq])
            }
            let name = String(word.dropFirst(2))
            guard FocusProfile.options.contains(name) else {
                throw Problem(
                    "hum focus options like \"--focus 50m --short-break 10m --rounds 3\"; \(word.quoted) "
                        + "is not one a profile takes"
                )
            }
            if name == "no-sound" {
                guard value == nil else { throw Problem("--no-sound without a value") }
                noSound = true
                continue
            }
            if value == nil {
                guard i < words.count else { throw Problem("a value after \(word.quoted)") }
                value = words[i]
                i += 1
            }
            try set(name, value ?? "")
        }
        if noSound, !mix.isEmpty { throw Problem("either --no-sound or sounds, not both") }
    }

    private mutating func set(_ name: String, _ value: String) throws(Problem) {
        func ms(min: Int64) throws(Problem) -> Int64 {
            guard let ms = try? DurationText.parseMilliseconds(value), ms >= min else {
                throw Problem("a duration after --\(name), like 25m or 90s (\(min > 0 ? "1s" : "0s") to a year)")
            }
            return ms
        }
        func number(_ range: ClosedRange<Int>) throws(Problem) -> Int {
            guard value.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(value), range.contains(n) else {
                throw Problem("a whole number from \(range.lowerBound) to \(range.upperBound) after --\(name)")
            }
            return n
        }
        switch name {
        case "focus": focus = try ms(min: 1000)
        case "short-break": shortBreak = try ms(min: 1000)
        case "long-break": longBreak = try ms(min: 1000)
        case "fade": fade = try ms(min: 0)
        case "long-every": longEvery = try number(0...1000)
        case "rounds": rounds = try number(1...1000)
        case "auto-advance":
            guard let mode = FocusPlan.AutoAdvance(rawValue: value) else {
                let words = FocusPlan.AutoAdvance.allCases.map(\.rawValue).joined(separator: ", ")
                throw Problem("one of \(words) after --auto-advance")
            }
            autoAdvance = mode
        case "goal":
            guard value.contains(where: { !$0.isWhitespace }) else { throw Problem("some text after --goal") }
            goal = value
        default:  // tag
            guard value.contains(where: { !$0.isWhitespace }) else { throw Problem("some text after --tag") }
            tags.append(value)
        }
    }

    /// The profile written back as options, in one canonical order.
    public var text: String {
        var words: [String] = []
        func duration(_ ms: Int64) -> String { SettingDefinition.durationText(milliseconds: ms) }
        if let focus { words += ["--focus", duration(focus)] }
        if let shortBreak { words += ["--short-break", duration(shortBreak)] }
        if let longBreak { words += ["--long-break", duration(longBreak)] }
        if let longEvery { words += ["--long-every", String(longEvery)] }
        if let rounds { words += ["--rounds", String(rounds)] }
        if let fade { words += ["--fade", duration(fade)] }
        if let autoAdvance { words += ["--auto-advance", autoAdvance.rawValue] }
        if let goal { words += ["--goal", FocusProfile.quoted(goal)] }
        for tag in tags { words += ["--tag", FocusProfile.quoted(tag)] }
        if noSound { words.append("--no-sound") }
        words += mix
        return words.joined(separator: " ")
    }

    /// A word quoted when it holds a space or a quote.
    static func quoted(_ word: String) -> String {
        guard word.isEmpty || word.contains(where: { $0 == " " || $0 == "\"" || $0 == "'" || $0 == "\t" }) else {
            return word
        }
        return word.contains("\"") ? "'" + word + "'" : "\"" + word + "\""
    }

    /// Splits on spaces, keeping "double" and 'single' quoted parts together (no escapes).
    static func split(_ text: String) throws(Problem) -> [String] {
        guard !text.contains(where: \.isNewline) else { throw Problem("hum focus options on one line") }
        guard text.utf8.count <= 4096 else { throw Problem("at most 4096 bytes of options") }
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character? = nil
        for c in text {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
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
        if quote != nil { throw Problem("a closing quote") }
        if inWord { words.append(current) }
        // A quoted value that holds both kinds of quote cannot be written back: refused rather than changed.
        for word in words where word.contains("\"") && word.contains("'") {
            throw Problem("a value with only one kind of quote in it")
        }
        return words
    }
}
