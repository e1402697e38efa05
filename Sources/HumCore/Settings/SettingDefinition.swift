/// What went wrong with a setting's key or value (`hum config set`, a stored value, an environment variable).
public enum SettingError: Error, Equatable, Sendable {
    case unknownKey(String)
    case badValue(key: String, value: String, expected: String)

    public var message: String {
        switch self {
        case .unknownKey(let key):
            return "unknown setting \(key.quoted); see 'hum config list' (profiles are profile.NAME)"
        case .badValue(let key, let value, let expected):
            return "bad value \(value.quoted) for \(key.clipped): expected \(expected)"
        }
    }
}

/// What kind of value a setting holds: how its text is read, checked and written back.
public enum SettingKind: Sendable, Equatable {
    /// A duration from `min` to `max` seconds (`25m`, `90s`, `1h30m`; a bare number is minutes), in whole seconds
    /// when `whole`.
    case duration(min: Int64, max: Int64, whole: Bool)
    /// A whole number within the range.
    case count(ClosedRange<Int>)
    /// `earn.ratio`: a number from 0.1 to 1000 with at most three decimals.
    case ratio
    /// One of these words.
    case choice([String])
    /// `on` or `off` (also read: true/false, yes/no, 1/0).
    case toggle
    /// Mix words (`rain=40 brown=25`) or a saved mix (`@night`); empty for none.
    case mix
    /// An ALSA PCM name.
    case device
    /// A command line, split on spaces and run without a shell; empty for none.
    case command
    /// `hum focus` options (a profile).
    case profile
    /// A rule of the ledger read and checked by `LedgerConfig` (the contract reviewer and strict mode's settings).
    case ledgerRule
    /// A time of day on the wall clock, `HH:MM` from 00:00 to 23:59.
    case wallTime
    /// An absolute path to a folder; empty for none.
    case folder

    /// What `hum config list` calls the type.
    public var name: String {
        switch self {
        case .duration: "duration"
        case .count: "number"
        case .ratio: "ratio"
        case .choice(let words): words.joined(separator: "|")
        case .toggle: "on|off"
        case .mix: "mix"
        case .device: "device"
        case .command: "command"
        case .profile: "focus options"
        case .ledgerRule: "ledger rule"
        case .wallTime: "HH:MM"
        case .folder: "folder"
        }
    }
}

/// One setting: its key, type, default, a one-line description and where else it can come from.
public struct SettingDefinition: Sendable, Equatable {
    public let key: String
    public let kind: SettingKind
    /// The default, in the form `hum config get` prints ("" for none).
    public let defaultText: String
    /// One line, lower-case: what it sets.
    public let summary: String
    /// The environment variable that overrides the stored value (nil: the database only, shared by every process).
    public let environment: String?

    public init(key: String, kind: SettingKind, defaultText: String, summary: String, environment: String?) {
        self.key = key
        self.kind = kind
        self.defaultText = defaultText
        self.summary = summary
        self.environment = environment
    }

    /// What `hum config list` shows when the value is empty.
    public var emptyMeaning: String {
        switch kind {
        case .mix: "the last mix played, else rain=75 brown=50"
        case .command: "none"
        case .folder: "none"
        default: ""
        }
    }

    /// Reads `text` as this setting, returning it in its one written form (`1h30m`, `on`, `4`); throws what was wrong.
    public func normalise(_ text: String) throws(SettingError) -> String {
        func bad(_ expected: String) -> SettingError { .badValue(key: key, value: text, expected: expected) }
        switch kind {
        case .ledgerRule:
            var rules = LedgerConfig()
            do throws(LedgerConfig.ConfigError) {
                try rules.set(key, to: text)
                return try rules.text(for: key)
            } catch .badValue(_, _, let expected) {
                throw bad(expected)
            } catch {
                throw .unknownKey(key)
            }
        case .duration(let low, let high, let whole):
            let range = "\(DurationText.format(seconds: low)) to \(DurationText.format(seconds: high))"
            guard let ms = try? DurationText.parseMilliseconds(text), ms >= low * 1000, ms <= high * 1000,
                !whole || ms % 1000 == 0
            else {
                throw bad((whole ? "whole seconds from " : "a duration from ") + range + ", like \(defaultText)")
            }
            return SettingDefinition.durationText(milliseconds: ms)
        case .count(let range):
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(text), range.contains(n) else {
                throw bad("a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return String(n)
        case .ratio:
            guard let milli = LedgerConfig.parseRatio(text) else {
                throw bad("a number from 0.1 to 1000 with at most 3 decimals, like 3 or 2.5")
            }
            return LedgerConfig.ratioText(milli)
        case .choice(let words):
            guard words.contains(text) else {
                throw bad("one of \(words.joined(separator: ", "))")
            }
            return text
        case .toggle:
            switch text.lowercased() {
            case "on", "true", "yes", "1": return "on"
            case "off", "false", "no", "0": return "off"
            default: throw bad("on or off")
            }
        case .mix:
            return try SettingDefinition.normaliseMix(
                text, bad: bad("mix words like \"rain=40 brown=25\" or a saved mix like @night"))
        case .device:
            guard !text.isEmpty, !text.contains(where: { $0.isWhitespace || $0.isNewline }), text.utf8.count <= 200
            else {
                throw bad("an ALSA device name like default or hw:0")
            }
            return text
        case .command:
            // Split as the command will be run (ShellWords), so a quote left open is refused here, not at the
            // next phase change; kept in one written form that splits the same way again.
            guard let words = try? ShellWords.split(text) else {
                throw bad("a command on one line with its quotes closed, like \"notify-send 'hum says'\"")
            }
            return ShellWords.join(words)
        case .folder:
            guard text.isEmpty || (text.hasPrefix("/") && !text.contains(where: \.isNewline) && text.utf8.count <= 4000)
            else {
                throw bad("an absolute path to a folder, like /home/me/Sync/hum")
            }
            return text
        case .wallTime:
            guard let time = try? WallTime.checked(text) else {
                throw bad("a time of day from 00:00 to 23:59, like 04:00")
            }
            return time.description
        case .profile:
            do throws(FocusProfile.Problem) {
                return try FocusProfile(text: text).text
            } catch {
                throw bad(error.message)
            }
        }
    }

    /// `1h30m`, `10s`, `0s`; `500ms` when the value is not whole seconds.
    static func durationText(milliseconds ms: Int64) -> String {
        ms % 1000 == 0 ? DurationText.format(seconds: ms / 1000) : "\(ms)ms"
    }

    static func normaliseMix(_ text: String, bad: SettingError) throws(SettingError) -> String {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard !text.contains(where: \.isNewline), words.count <= LedgerBounds.listCount else { throw bad }
        var out: [String] = []
        for word in words {
            if word.hasPrefix("@") {
                guard (try? Mix.checkName(String(word.dropFirst()))) != nil, words.count == 1 else { throw bad }
                out.append(word)
                continue
            }
            guard let token = try? MixSpec.parse(word) else { throw bad }
            out.append("\(token.name)=\(MixSpec.formatVolume(token.volume))")
        }
        return out.joined(separator: " ")
    }
}
