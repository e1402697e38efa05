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

    /// The same kind, completed with `completion`.
    public func completing(_ completion: Completion) -> ValueKind<Value> {
        ValueKind(placeholder, completion: completion, read: read)
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
        guard let v = Double(text).flatMap(Volume.checked) else {
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

/// A day, a range of days or an instant as people type it for `--since` and `--until`: resolved against the local
/// calendar when the command runs (`today` depends on the clock). `--since` takes the start of what it names,
/// `--until` its end: `--since "last week"` starts on last week's Monday, `--until "last week"` includes its Sunday.
public enum DateWord: Sendable, Equatable, CustomStringConvertible {
    case today
    case yesterday
    case day(CivilDate)
    case instant(Timestamp)
    /// The latest day with this ISO weekday (1 Monday … 7 Sunday), today included: `monday`, `mon`.
    case weekday(Int)
    /// `Nd`: the last N days, today included, as a bound: the first of them (`1d` is today, `7d` six days ago).
    case lastDays(Int)
    /// An ISO week (Monday to Sunday) counted from this one: `this week` (0), `last week` (-1).
    case week(Int)
    /// A calendar month counted from this one: `this month` (0), `last month` (-1).
    case month(Int)

    static let weekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    /// The most `Nd` takes: ten years.
    static let mostDays = 3660

    public var description: String {
        switch self {
        case .today: "today"
        case .yesterday: "yesterday"
        case .day(let day): day.description
        case .instant(let t): t.rfc3339
        case .weekday(let w): DateWord.weekdays[max(1, min(w, 7)) - 1]
        case .lastDays(let n): "\(n)d"
        case .week(let k): k == 0 ? "this week" : "last week"
        case .month(let k): k == 0 ? "this month" : "last month"
        }
    }

    /// The local days the word names, first and last (nil for an instant).
    public func days(today: CivilDate) -> (first: CivilDate, last: CivilDate)? {
        switch self {
        case .today: return (today, today)
        case .yesterday:
            let d = today.adding(days: -1)
            return (d, d)
        case .day(let day): return (day, day)
        case .instant: return nil
        case .weekday(let w):
            let d = today.adding(days: -Int64((today.isoWeekday - w + 7) % 7))
            return (d, d)
        case .lastDays(let n):
            let d = today.adding(days: -Int64(n - 1))
            return (d, d)
        case .week(let k):
            let monday = today.adding(days: -Int64(today.isoWeekday - 1) + 7 * Int64(k))
            return (monday, monday.adding(days: 6))
        case .month(let k):
            var year = today.year
            var month = today.month + k
            while month < 1 {
                month += 12
                year -= 1
            }
            let first = CivilDate(year: max(1, year), month: month, day: 1) ?? today
            let last = CivilDate(year: first.year, month: month, day: CivilDate.daysIn(month: month, year: first.year))
            return (first, last ?? first)
        }
    }

    /// Epoch seconds of the bound: the start of the first day, or for `--until` the end of the last (the next
    /// midnight).
    public func epoch(endOfDay: Bool, calendar: LocalCalendar) -> Int64 {
        if case .instant(let t) = self { return t.epochSeconds }
        guard let (first, last) = days(today: calendar.now().localDate) else { return 0 }
        let day = endOfDay ? last.adding(days: 1) : first
        // The end of 9999-12-31 is the end of what hum keeps (instants are held within the years 1970 to 9999).
        if day.year > LedgerBounds.years.upperBound { return LedgerBounds.epoch.upperBound + 1 }
        if day.year < LedgerBounds.years.lowerBound { return LedgerBounds.epoch.lowerBound }
        return calendar.startOfDay(day)
    }
}

extension ValueKind where Value == DateWord {
    public static let date = ValueKind(
        "DATE", completion: .words(["today", "yesterday", "7d", "30d"] + DateWord.weekdays)
    ) { text in
        let word = text.lowercased()
        switch word {
        case "today": return .success(.today)
        case "yesterday": return .success(.yesterday)
        case "this week": return .success(.week(0))
        case "last week": return .success(.week(-1))
        case "this month": return .success(.month(0))
        case "last month": return .success(.month(-1))
        default: break
        }
        if let i = DateWord.weekdays.firstIndex(where: { $0 == word || $0.prefix(3) == word }) {
            return .success(.weekday(i + 1))
        }
        if word.count >= 2, word.count <= 6, word.hasSuffix("d"),
            word.dropLast().allSatisfy({ $0.isASCII && $0.isNumber }),
            let n = Int(word.dropLast())
        {
            guard (1...DateWord.mostDays).contains(n) else {
                return .failure(
                    .init("is not from 1d (today) to \(DateWord.mostDays)d; try 7d for the last seven days"))
            }
            return .success(.lastDays(n))
        }
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
        return .failure(
            .init(
                "is not a date; try today, yesterday, monday, \"last week\", 7d, 2025-03-30 or "
                    + "2025-03-30T09:00:00+01:00"
            ))
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

extension ValueKind where Value == [String] {
    /// A command line, split into words as a shell would (quotes kept, nothing expanded) and run without one.
    public static let command = ValueKind("CMD") { text in
        do throws(ShellWords.Problem) {
            let words = try ShellWords.split(text)
            return words.isEmpty ? .failure(.init("is empty; give a command")) : .success(words)
        } catch {
            return .failure(.init("\(error.message); quote as a shell would, like \"notify-send 'hum says'\""))
        }
    }
}

/// A moment as people type it for `hum history record --start`: the words of `--since` with a local time of day
/// after them (`yesterday 14:00`, `monday 9:30`, `2025-03-30 08:15:30`, a bare `14:00` for today), or an RFC 3339
/// instant. A word that names several days (`last week`) means its first, as `--since` does; no time means
/// midnight.
public enum Moment: Sendable, Equatable {
    case instant(Timestamp)
    case local(DateWord, secondsOfDay: Int64)

    /// The instant, against the local calendar when the command runs.
    public func epoch(calendar: LocalCalendar) -> Int64 {
        switch self {
        case .instant(let t): return t.epochSeconds
        case .local(let word, let seconds):
            guard let (first, _) = word.days(today: calendar.now().localDate) else { return 0 }
            return calendar.instant(on: first, secondsOfDay: seconds)
        }
    }

    /// `H:MM`, `HH:MM` or `HH:MM:SS` as seconds into the day.
    static func timeOfDay(_ text: Substring) -> Int64? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count),
            parts.allSatisfy({ !$0.isEmpty && $0.count <= 2 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            parts.dropFirst().allSatisfy({ $0.count == 2 })
        else { return nil }
        let values = parts.compactMap { Int64($0) }
        guard values[0] < 24, values[1] < 60, values.count < 3 || values[2] < 60 else { return nil }
        return values[0] * 3600 + values[1] * 60 + (values.count == 3 ? values[2] : 0)
    }
}

extension ValueKind where Value == Moment {
    public static let moment = ValueKind(
        "WHEN", completion: .words(["today", "yesterday"] + DateWord.weekdays)
    ) { text in
        if let t = Timestamp(rfc3339: text) {
            guard LedgerBounds.epoch.contains(t.epochSeconds) else {
                return .failure(.init("is outside the years 1970 to 9999 that hum keeps; give a later time"))
            }
            return .success(.instant(t))
        }
        var words = text.split(separator: " ")
        var seconds: Int64 = 0
        if let last = words.last, let s = Moment.timeOfDay(last) {
            seconds = s
            words.removeLast()
        }
        let dayText = words.joined(separator: " ")
        let hint = "; try \"yesterday 14:00\", \"monday 9:30\", \"2025-03-30 08:15\" or 2025-03-30T08:15:00+01:00"
        if dayText.isEmpty { return .success(.local(.today, secondsOfDay: seconds)) }
        switch ValueKind<DateWord>.date.read(dayText) {
        case .success(.instant): return .failure(.init("is not a day and a time\(hint)"))
        case .success(let word): return .success(.local(word, secondsOfDay: seconds))
        case .failure: return .failure(.init("is not a day and a time\(hint)"))
        }
    }
}
