/// A time on the local wall clock, in whole minutes since midnight: `09:00` is 540. `24:00` (1440) is allowed where
/// a window ends, so that a window can reach the end of its day (`--from 18:00 --to 24:00`).
public struct WallTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var minutes: Int

    /// The last minute a wall time can name: the end of the day.
    public static let endOfDay = 1440

    public init?(minutes: Int) {
        guard (0...WallTime.endOfDay).contains(minutes) else { return nil }
        self.minutes = minutes
    }

    /// Seconds since local midnight.
    public var seconds: Int64 { Int64(minutes) * 60 }

    /// `HH:MM`.
    public var description: String { pad(minutes / 60, 2) + ":" + pad(minutes % 60, 2) }

    /// Reads `HH:MM` (or `H:MM`): 00:00 to 23:59, and 24:00 only when `allowsEndOfDay`.
    public static func checked(_ text: String, allowsEndOfDay: Bool = false) throws(RuleProblem) -> WallTime {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        let end = allowsEndOfDay ? " or 24:00 for the end of the day" : ""
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
            parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let h = Int(parts[0]), let m = Int(parts[1]), m < 60,
            h < 24 || (allowsEndOfDay && h == 24 && m == 0),
            let time = WallTime(minutes: h * 60 + m)
        else {
            throw RuleProblem("\(text.quoted) is not a time of day: write HH:MM from 00:00 to 23:59\(end), like 09:00")
        }
        return time
    }

    public static func < (a: WallTime, b: WallTime) -> Bool { a.minutes < b.minutes }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { self = try WallTime.checked(text, allowsEndOfDay: true) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// A set of ISO weekdays (Monday 1 … Sunday 7), written as `mon-fri`, `sat,sun`, `fri-mon` or `daily`.
public struct Weekdays: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Bit `d - 1` for ISO weekday `d`.
    public private(set) var bits: UInt8

    public static let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    public static let every = Weekdays(bits: 0x7F)

    public init(bits: UInt8) { self.bits = bits & 0x7F }

    public init(isoWeekdays: some Sequence<Int>) {
        var b: UInt8 = 0
        for d in isoWeekdays where (1...7).contains(d) { b |= 1 << UInt8(d - 1) }
        bits = b
    }

    public func contains(isoWeekday day: Int) -> Bool { (1...7).contains(day) && bits & (1 << UInt8(day - 1)) != 0 }

    public var isEmpty: Bool { bits == 0 }

    /// The days, Monday first.
    public var isoWeekdays: [Int] { (1...7).filter { contains(isoWeekday: $0) } }

    /// The shortest written form: `daily`, `mon-fri`, `sat,sun`, `mon,wed-fri`.
    public var description: String {
        if self == .every { return "daily" }
        var parts: [String] = []
        var day = 1
        while day <= 7 {
            guard contains(isoWeekday: day) else {
                day += 1
                continue
            }
            var last = day
            while last < 7, contains(isoWeekday: last + 1) { last += 1 }
            let name = Weekdays.names[day - 1]
            switch last - day {
            case 0: parts.append(name)
            case 1: parts += [name, Weekdays.names[last - 1]]
            default: parts.append(name + "-" + Weekdays.names[last - 1])
            }
            day = last + 1
        }
        return parts.joined(separator: ",")
    }

    /// Reads a list of days and ranges separated by commas (`mon-fri`, `sat,sun`, `fri-mon` wraps over the week
    /// end), or `daily`. Names are the first three letters of the English day, in any case.
    public static func checked(_ text: String) throws(RuleProblem) -> Weekdays {
        let problem = RuleProblem(
            "\(text.quoted) is not a list of days: write days or ranges of mon tue wed thu fri sat sun separated by "
                + "commas, like mon-fri or sat,sun, or daily")
        let lower = text.lowercased()
        if lower == "daily" || lower == "every-day" { return .every }
        guard !lower.isEmpty, lower.utf8.count <= 64 else { throw problem }
        var days: [Int] = []
        for part in lower.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = part.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard (1...2).contains(ends.count),
                let first = names.firstIndex(of: ends[0]).map({ $0 + 1 }),
                let last = names.firstIndex(of: ends[ends.count - 1]).map({ $0 + 1 })
            else { throw problem }
            var d = first
            days.append(d)
            while d != last {
                d = d % 7 + 1
                days.append(d)
            }
        }
        return Weekdays(isoWeekdays: days)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { self = try Weekdays.checked(text) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

/// Why a rule's words cannot be taken (a usage error: the words say what to write instead).
public struct RuleProblem: Error, Sendable, Equatable, UserFacingError {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var kind: FailureKind { .usage }
}
