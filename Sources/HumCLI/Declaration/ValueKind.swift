import HumCore

/// What is wrong with a word: the end of a sentence that begins `--name "text" `.
public struct ValueProblem: Error, Sendable {
    public var text: String
    public init(_ text: String) { self.text = text }
}

/// What a value on the command line is: how it reads, what it is called in help, what the shells complete.
/// Parsing is pure (no I/O), so a command is validated before it runs.
public struct ValueKind<Value: Sendable>: Sendable {
    /// What help calls the value: `DURATION`, `N`, `FILE`.
    public let placeholder: String
    public let completion: Completion
    /// The value, or what is wrong with the text: the rest of a sentence that begins `--name "text" `, such as
    /// `is not a duration; write for example 90s, 25m, 1h or 1h30m`.
    let read: @Sendable (String) -> Result<Value, ValueProblem>

    public init(
        _ placeholder: String, completion: Completion = .none,
        read: @escaping @Sendable (String) -> Result<Value, ValueProblem>
    ) {
        self.placeholder = placeholder
        self.completion = completion
        self.read = read
    }

    /// The same value, checked further or turned into another type.
    public func map<T>(
        _ transform: @escaping @Sendable (Value) -> Result<T, ValueProblem>
    ) -> ValueKind<T> {
        let read = self.read
        return ValueKind<T>(placeholder, completion: completion) { text in
            switch read(text) {
            case .success(let value): return transform(value)
            case .failure(let problem): return .failure(.init(problem.text))
            }
        }
    }

    /// The same kind under another placeholder.
    public func named(_ placeholder: String) -> ValueKind<Value> {
        ValueKind(placeholder, completion: completion, read: read)
    }
}

extension ValueKind where Value == String {
    /// Any text but the empty one.
    public static let text = ValueKind("TEXT") { text in
        text.isEmpty ? .failure(.init("is empty; give some text")) : .success(text)
    }

    /// Text that must say something: not empty, not only spaces (a reason, a label).
    public static func words(_ placeholder: String) -> ValueKind<String> {
        ValueKind(placeholder) { text in
            text.contains(where: { !$0.isWhitespace }) ? .success(text) : .failure(.init("is empty; say something"))
        }
    }

    /// A path to a file (not checked here: that is I/O, done when the command runs).
    public static let file = ValueKind("FILE", completion: .files) { text in
        text.isEmpty ? .failure(.init("is not a file name")) : .success(text)
    }

    /// An ALSA PCM name.
    public static let device = ValueKind("PCM") { text in
        text.isEmpty ? .failure(.init("is not an ALSA device; try default or hw:0")) : .success(text)
    }

    /// An idempotency key: 1 to 200 bytes on one line, not in hum's own key spaces.
    public static let key = ValueKind("KEY") { key in
        guard !key.isEmpty, key.utf8.count <= 200, !key.contains(where: { $0.isNewline }) else {
            return .failure(.init("is not a key: use 1 to 200 bytes on one line"))
        }
        for reserved in ["round:", "pass:", "settle:", "contract:"] where key.hasPrefix(reserved) {
            return .failure(.init("starts with \"\(reserved)\", which hum uses itself; choose another key"))
        }
        return .success(key)
    }

    /// One of a fixed set of words.
    public static func oneOf(_ words: [String], placeholder: String) -> ValueKind<String> {
        ValueKind(shown(words, placeholder), completion: .words(words)) { text in
            words.contains(text) ? .success(text) : .failure(.init(notOneOf(text, words)))
        }
    }

    /// A mix word, `SOUND[=VOLUME]` (resolved against the sounds when the command runs).
    public static let mixWord = ValueKind("SOUND[=VOLUME]", completion: .sounds) { text in
        text.isEmpty ? .failure(.init("names no sound; write SOUND=VOLUME, for example rain=40")) : .success(text)
    }
}

extension ValueKind {
    /// `is not one of a, b or c`, with the nearest word when the text looks like a typo of one.
    static func notOneOf(_ text: String, _ words: [String]) -> String {
        let hint = Suggest.closest(to: text, in: words).map { "; did you mean \($0)?" } ?? ""
        return "is not one of \(list(words))\(hint)"
    }

    /// A short set of words is shown as itself (`s16|s24|f32`), a longer one by its placeholder.
    static func shown(_ words: [String], _ placeholder: String) -> String {
        let joined = words.joined(separator: "|")
        return words.count <= 4 && joined.count <= 28 ? joined : placeholder
    }

    /// `a, b or c`.
    static func list(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
    }
}

extension ValueKind where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
    /// The cases of an enum, by their raw values.
    public static func choice(_ placeholder: String) -> ValueKind<Value> {
        let words = Value.allCases.map(\.rawValue)
        return ValueKind(shown(words, placeholder), completion: .words(words)) { text in
            Value(rawValue: text).map { .success($0) } ?? .failure(.init(notOneOf(text, words)))
        }
    }
}

extension ValueKind where Value == Double {
    /// A duration in seconds (`90s`, `25m`, `1h30m`, `500ms`; a bare number is minutes), from 0 to a year.
    public static let duration = ValueKind("DURATION") { text in
        do throws(DurationText.ParseError) {
            return .success(try DurationText.parseSeconds(text))
        } catch .tooLarge {
            return .failure(.init("is longer than a year, the longest hum takes; write for example 25m or 2h"))
        } catch {
            return .failure(.init("is not a duration; write for example 90s, 25m, 1h or 1h30m"))
        }
    }

    /// A duration longer than zero.
    public static let positiveDuration = duration.map { seconds in
        seconds > 0 ? .success(seconds) : .failure(.init("is not longer than 0s; give a positive duration"))
    }

    /// A volume on hum's 0–100 scale.
    public static let volume = ValueKind("N") { text in
        guard let v = Double(text), v.isFinite, Volume.range.contains(v) else {
            return .failure(.init("is not a volume from 0 to 100"))
        }
        return .success(v)
    }
}

extension ValueKind where Value == Int64 {
    /// An amount of time in whole seconds, at least 1s (`25m`, `90s`, `1h30m`; a bare number is minutes).
    public static let seconds = ValueKind("DURATION") { text in
        signedSeconds(text, allowSign: false)
    }

    /// A signed amount of time (`+5m`, `-90s`, `5m`), at least 1s either way.
    public static let signedSeconds = ValueKind("±DURATION") { text in
        signedSeconds(text, allowSign: true)
    }

    /// Time that has passed, in whole seconds, 0 allowed (`--paused 0s`).
    public static let elapsedSeconds = ValueKind("DURATION") { text in
        if let ms = try? DurationText.parseMilliseconds(text), ms < 500 { return .success(0) }
        return signedSeconds(text, allowSign: false)
    }

    private static func signedSeconds(_ text: String, allowSign: Bool) -> Result<Int64, ValueProblem> {
        var body = Substring(text)
        var sign: Int64 = 1
        if allowSign {
            if body.first == "+" {
                body.removeFirst()
            } else if body.first == "-" {
                body.removeFirst()
                sign = -1
            }
        }
        let ms: Int64
        do throws(DurationText.ParseError) {
            ms = try DurationText.parseMilliseconds(String(body))
        } catch .tooLarge {
            return .failure(.init("is longer than a year, the longest hum takes; write for example 25m or 2h"))
        } catch {
            return .failure(.init("is not a duration; try 25m, 90s or 1h30m"))
        }
        let s = (ms + 500) / 1000
        guard s >= 1 else { return .failure(.init("is shorter than 1s; give at least 1s")) }
        return .success(sign * s)
    }
}

extension ValueKind where Value == Int {
    /// A whole number within `range`.
    public static func count(_ range: ClosedRange<Int>, placeholder: String = "N") -> ValueKind<Int> {
        ValueKind(placeholder) { text in
            guard text.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(text), range.contains(n) else {
                return .failure(
                    .init("is not a whole number from \(range.lowerBound) to \(range.upperBound)"))
            }
            return .success(n)
        }
    }
}

/// A day or an instant as people type it for `--since` and `--until`: resolved against the local calendar when the
/// command runs (`today` depends on the clock).
public enum DateWord: Sendable, Equatable, CustomStringConvertible {
    case today
    case yesterday
    case day(CivilDate)
    case instant(Timestamp)

    public var description: String {
        switch self {
        case .today: "today"
        case .yesterday: "yesterday"
        case .day(let day): day.description
        case .instant(let t): t.rfc3339
        }
    }

    /// Epoch seconds of the bound: the start of the day, or for `--until` the end of it (the next midnight).
    public func epoch(endOfDay: Bool, calendar: LocalCalendar) -> Int64 {
        let today = calendar.now().localDate
        let date: CivilDate
        switch self {
        case .today: date = today
        case .yesterday: date = today.adding(days: -1)
        case .day(let day): date = day
        case .instant(let t): return t.epochSeconds
        }
        let day = endOfDay ? date.adding(days: 1) : date
        // The end of 9999-12-31 is the end of what hum keeps (instants are held within the years 1970 to 9999).
        if day.year > LedgerBounds.years.upperBound { return LedgerBounds.epoch.upperBound + 1 }
        return calendar.startOfDay(day)
    }
}

extension ValueKind where Value == DateWord {
    public static let date = ValueKind("DATE", completion: .words(["today", "yesterday"])) { text in
        switch text {
        case "today": return .success(.today)
        case "yesterday": return .success(.yesterday)
        default:
            if let day = CivilDate(text: text) {
                guard LedgerBounds.years.contains(day.year) else {
                    return .failure(.init("is outside the years 1970 to 9999 that hum keeps; try a later date"))
                }
                return .success(.day(day))
            }
            if let t = Timestamp(rfc3339: text) {
                guard LedgerBounds.epoch.contains(t.epochSeconds) else {
                    return .failure(.init("is outside the years 1970 to 9999 that hum keeps; try a later date"))
                }
                return .success(.instant(t))
            }
            return .failure(.init("is not a date; try 2025-03-30, today, yesterday or 2025-03-30T09:00:00+01:00"))
        }
    }
}

extension ValueKind where Value == Timestamp {
    public static let instant = ValueKind("TIME") { text in
        guard let t = Timestamp(rfc3339: text) else {
            return .failure(.init("is not an RFC 3339 time like 2025-03-30T09:00:00+01:00"))
        }
        guard LedgerBounds.epoch.contains(t.epochSeconds) else {
            return .failure(.init("is outside the years 1970 to 9999 that hum keeps; give a later time"))
        }
        return .success(t)
    }
}

extension ValueKind where Value == MixItem {
    /// A sound of a recorded mix: `rain=60` (the command line's volume, 0–100), or the older `rain:0.6` (0–1).
    public static let mixItem = ValueKind("SOUND=VOLUME") { text in
        if text.contains("=") {
            guard let token = try? MixSpec.parse(text) else {
                return .failure(.init("is not SOUND=VOLUME with a volume from 0 to 100, like rain=60"))
            }
            return .success(MixItem(sound: token.name, volume: token.volume / 100))
        }
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex,
            let volume = Double(text[text.index(after: colon)...]), volume.isFinite, (0...1).contains(volume)
        else {
            return .failure(.init("is not SOUND=VOLUME with a volume from 0 to 100, like rain=60"))
        }
        return .success(MixItem(sound: String(text[..<colon]), volume: volume))
    }
}
