/// A calendar date with no time zone: what a person calls "a day" (`2025-03-30`).
public struct CivilDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...CivilDate.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (negative before). Proleptic Gregorian calendar.
    public init(daysSinceEpoch days: Int64) {
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        year = Int(yoe + era * 400 + (m <= 2 ? 1 : 0))
        month = Int(m)
        day = Int(d)
    }

    public var daysSinceEpoch: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let m = Int64(month)
        let d = Int64(day)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// ISO weekday: Monday 1 … Sunday 7.
    public var isoWeekday: Int {
        let r = Int(((daysSinceEpoch % 7) + 7) % 7)  // 0 = Thursday 1970-01-01
        return (r + 3) % 7 + 1
    }

    /// The ISO 8601 week this date belongs to (weeks start on Monday; week 1 holds the year's first Thursday).
    public var isoWeek: IsoWeek {
        let thursday = CivilDate(daysSinceEpoch: daysSinceEpoch - Int64(isoWeekday - 1) + 3)
        let firstOfYear =
            CivilDate(year: thursday.year, month: 1, day: 1)?.daysSinceEpoch
            ?? thursday.daysSinceEpoch
        let ordinal = thursday.daysSinceEpoch - firstOfYear
        return IsoWeek(year: thursday.year, week: Int(ordinal / 7) + 1)
    }

    public func adding(days: Int64) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + days) }

    /// `YYYY-MM-DD`.
    public var description: String {
        pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
    }

    /// Calls `body` with the bytes of `description`, written on the stack when the year has four digits (always,
    /// for a timestamp's date): no string is made.
    public func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard (0...9999).contains(year), (0...99).contains(month), (0...99).contains(day) else {
            var text = description
            return try text.withUTF8(body)
        }
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 10) { buffer in
            putDigits(year, 4, at: 0, in: buffer)
            buffer[4] = 0x2D
            putDigits(month, 2, at: 5, in: buffer)
            buffer[7] = 0x2D
            putDigits(day, 2, at: 8, in: buffer)
            return try body(UnsafeBufferPointer(buffer))
        }
    }

    /// Parses exactly `YYYY-MM-DD`.
    public init?(text: String) {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == 45, b[7] == 45,
            let y = digits(b, 0, 4), let m = digits(b, 5, 2), let d = digits(b, 8, 2)
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    public static func < (a: CivilDate, b: CivilDate) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// An ISO 8601 week, written `2025-W03`.
public struct IsoWeek: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var week: Int
    public init(year: Int, week: Int) {
        self.year = year
        self.week = week
    }
    public var description: String { pad(year, 4) + "-W" + pad(week, 2) }

    /// Calls `body` with the bytes of `description`, written on the stack when the year has four digits: no string
    /// is made.
    public func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        guard (0...9999).contains(year), (0...99).contains(week) else {
            var text = description
            return try text.withUTF8(body)
        }
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8) { buffer in
            putDigits(year, 4, at: 0, in: buffer)
            buffer[4] = 0x2D
            buffer[5] = 0x57
            putDigits(week, 2, at: 6, in: buffer)
            return try body(UnsafeBufferPointer(buffer))
        }
    }
    public static func < (a: IsoWeek, b: IsoWeek) -> Bool { (a.year, a.week) < (b.year, b.week) }
}

/// An instant with the UTC offset that was in force where it was recorded. Compared by instant only.
///
/// Whole seconds: the ledger counts seconds, and RFC 3339 output stays short. The offset is kept so that the local
/// day of an entry never changes after it was written, whatever the machine's time zone becomes later.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var epochSeconds: Int64
    /// Seconds east of UTC (`+01:00` is 3600).
    public var offsetSeconds: Int32

    /// The instants RFC 3339 can express with a four-digit year (0001-01-01 … 9999-12-31, UTC).
    public static let representable: ClosedRange<Int64> = -62_135_596_800...253_402_300_799
    /// Offsets RFC 3339 can express: ±23:59.
    public static let offsets: ClosedRange<Int32> = -86_340...86_340

    public init(epochSeconds: Int64, offsetSeconds: Int32) {
        self.epochSeconds = min(
            max(epochSeconds, Timestamp.representable.lowerBound + 86_400),
            Timestamp.representable.upperBound - 86_400)
        self.offsetSeconds = min(max(offsetSeconds, Timestamp.offsets.lowerBound), Timestamp.offsets.upperBound)
    }

    /// The calendar date on the wall clock where and when it was recorded.
    public var localDate: CivilDate { CivilDate(daysSinceEpoch: floorDiv(epochSeconds + Int64(offsetSeconds), 86_400)) }

    /// Seconds since local midnight, on the recorded wall clock.
    public var localSecondOfDay: Int64 { floorMod(epochSeconds + Int64(offsetSeconds), 86_400) }

    /// `HH:MM` on the recorded wall clock.
    public var localClock: String {
        let s = localSecondOfDay
        return pad(Int(s / 3600), 2) + ":" + pad(Int(s % 3600 / 60), 2)
    }

    /// RFC 3339 with a numeric offset, e.g. `2025-03-30T01:59:59+01:00` (UTC is written `+00:00`).
    public var rfc3339: String {
        // Built in a fixed buffer: exports format hundreds of thousands of these.
        String(unsafeUninitializedCapacity: Timestamp.rfc3339Count) { buffer in
            writeRFC3339(into: buffer)
            return Timestamp.rfc3339Count
        }
    }

    /// The length of `rfc3339`: always 25 bytes.
    public static let rfc3339Count = 25

    /// Calls `body` with the bytes of `rfc3339`, written on the stack: for a caller that copies them (SQLite binds
    /// them), no string is made.
    public func withRFC3339<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Timestamp.rfc3339Count) { buffer in
            writeRFC3339(into: buffer)
            return try body(UnsafeBufferPointer(buffer))
        }
    }

    /// Writes `rfc3339` into the first 25 bytes of `buffer`.
    func writeRFC3339(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        let date = localDate
        let s = Int(localSecondOfDay)
        let off = Int(offsetSeconds)
        let a = abs(off)
        putDigits(max(0, min(date.year, 9999)), 4, at: 0, in: buffer)
        buffer[4] = 0x2D
        putDigits(date.month, 2, at: 5, in: buffer)
        buffer[7] = 0x2D
        putDigits(date.day, 2, at: 8, in: buffer)
        buffer[10] = 0x54
        putDigits(s / 3600, 2, at: 11, in: buffer)
        buffer[13] = 0x3A
        putDigits(s % 3600 / 60, 2, at: 14, in: buffer)
        buffer[16] = 0x3A
        putDigits(s % 60, 2, at: 17, in: buffer)
        buffer[19] = off < 0 ? 0x2D : 0x2B
        putDigits(a / 3600, 2, at: 20, in: buffer)
        buffer[22] = 0x3A
        putDigits(a % 3600 / 60, 2, at: 23, in: buffer)
    }

    public var description: String { rfc3339 }

    /// Parses RFC 3339 (`2025-03-30T01:59:59+01:00`, `…Z`, `t`/space separator, fractional seconds dropped,
    /// leap second 60 read as 59). Returns nil for anything else; never traps.
    public init?(rfc3339 text: String) {
        var text = text
        guard let value = text.withUTF8({ Timestamp(rfc3339UTF8: $0) }) else { return nil }
        self = value
    }

    /// `init?(rfc3339:)` from UTF-8 bytes, without making a string.
    public init?(rfc3339UTF8 b: UnsafeBufferPointer<UInt8>) {
        guard b.count >= 20, b.count <= 64, b[4] == 45, b[7] == 45, b[10] == 84 || b[10] == 116 || b[10] == 32,
            b[13] == 58, b[16] == 58,
            let y = digits(b, 0, 4), let mo = digits(b, 5, 2), let d = digits(b, 8, 2),
            let h = digits(b, 11, 2), let mi = digits(b, 14, 2), let s = digits(b, 17, 2),
            let date = CivilDate(year: y, month: mo, day: d), h <= 23, mi <= 59, s <= 60
        else { return nil }
        var i = 19
        if i < b.count, b[i] == 46 {  // fractional seconds
            i += 1
            let start = i
            while i < b.count, (48...57).contains(b[i]) { i += 1 }
            guard i > start else { return nil }
        }
        guard i < b.count else { return nil }
        var offset = 0
        if b[i] == 90 || b[i] == 122 {  // Z
            guard i + 1 == b.count else { return nil }
        } else {
            guard b[i] == 43 || b[i] == 45, i + 6 == b.count, b[i + 3] == 58,
                let oh = digits(b, i + 1, 2), let om = digits(b, i + 4, 2), oh <= 23, om <= 59
            else { return nil }
            offset = (oh * 3600 + om * 60) * (b[i] == 45 ? -1 : 1)
        }
        let local = date.daysSinceEpoch * 86_400 + Int64(h * 3600 + mi * 60 + min(s, 59))
        let epoch = local - Int64(offset)
        guard Timestamp.representable.contains(epoch) else { return nil }
        self.epochSeconds = epoch
        self.offsetSeconds = Int32(offset)
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.epochSeconds < b.epochSeconds }
    public static func == (a: Timestamp, b: Timestamp) -> Bool {
        a.epochSeconds == b.epochSeconds && a.offsetSeconds == b.offsetSeconds
    }
}

extension Timestamp: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "not an RFC 3339 timestamp: \(text)"))
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }
}

func pad(_ value: Int, _ width: Int) -> String {
    let s = String(value)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}

/// Writes `value` (not negative, at most `width` digits) as `width` decimal digits from `index` on.
func putDigits(_ value: Int, _ width: Int, at index: Int, in buffer: UnsafeMutableBufferPointer<UInt8>) {
    var v = value
    for i in stride(from: index + width - 1, through: index, by: -1) {
        buffer[i] = 0x30 + UInt8(v % 10)
        v /= 10
    }
}

func digits(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
    guard start >= 0, start + count <= b.count else { return nil }
    var v = 0
    for i in start..<(start + count) {
        guard (48...57).contains(b[i]) else { return nil }
        v = v * 10 + Int(b[i] - 48)
    }
    return v
}

func digits(_ b: [UInt8], _ start: Int, _ count: Int) -> Int? {
    b.withUnsafeBufferPointer { digits($0, start, count) }
}

@inline(__always) func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

@inline(__always) func floorMod(_ a: Int64, _ b: Int64) -> Int64 { a - floorDiv(a, b) * b }
