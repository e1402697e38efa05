/// Durations as people type them on a command line, and as hum prints them.
///
/// Accepted: `90s`, `25m`, `1h`, `1h30m`, `1h30m15s`, `500ms`, `1.5h`, and a bare number, which means minutes
/// (`25` is 25 minutes). Units may repeat only in decreasing order (h, m, s, ms). Whitespace is not allowed.
public enum DurationText {
    public enum ParseError: Error, Equatable, Sendable {
        case empty
        case malformed(String)
        case tooLarge(String)
    }

    /// The longest duration accepted: a year, far beyond any sensible timer, well within Int64 milliseconds.
    public static let maximumMilliseconds: Int64 = 366 * 24 * 3600 * 1000

    /// Parses a duration into whole milliseconds (rounded to nearest).
    public static func parseMilliseconds(_ text: String) throws(ParseError) -> Int64 {
        if text.isEmpty { throw .empty }
        let scalars = Array(text.unicodeScalars)
        // A bare number is minutes.
        if scalars.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }) {
            guard let minutes = number(text) else { throw .malformed(text) }
            return try checked(minutes * 60_000, text)
        }
        var total = 0.0
        var index = 0
        var lastRank = Int.max
        while index < scalars.count {
            var end = index
            while end < scalars.count, ("0"..."9").contains(scalars[end]) || scalars[end] == "." { end += 1 }
            guard end > index, let value = number(String(String.UnicodeScalarView(scalars[index..<end]))) else {
                throw .malformed(text)
            }
            var unitEnd = end
            while unitEnd < scalars.count, ("a"..."z").contains(scalars[unitEnd]) { unitEnd += 1 }
            let unit = String(String.UnicodeScalarView(scalars[end..<unitEnd]))
            let (rank, factor): (Int, Double)
            switch unit {
            case "h": (rank, factor) = (3, 3_600_000)
            case "m", "min": (rank, factor) = (2, 60_000)
            case "s": (rank, factor) = (1, 1_000)
            case "ms": (rank, factor) = (0, 1)
            default: throw .malformed(text)
            }
            guard rank < lastRank else { throw .malformed(text) }
            lastRank = rank
            total += value * factor
            index = unitEnd
        }
        return try checked(total, text)
    }

    /// Parses a duration into seconds (fractions allowed, `500ms` is 0.5).
    public static func parseSeconds(_ text: String) throws(ParseError) -> Double {
        Double(try parseMilliseconds(text)) / 1000
    }

    private static func number(_ text: String) -> Double? {
        guard text.first != ".", text.last != ".", text.filter({ $0 == "." }).count <= 1,
            let value = Double(text), value.isFinite, value >= 0
        else { return nil }
        return value
    }

    private static func checked(_ milliseconds: Double, _ text: String) throws(ParseError) -> Int64 {
        guard milliseconds <= Double(maximumMilliseconds) else { throw .tooLarge(text) }
        return Int64(milliseconds.rounded())
    }

    /// Formats whole seconds compactly: `8m20s`, `1h5m`, `45s`, `0s`. Negative values get a leading `-`.
    public static func format(seconds: Int64) -> String {
        let sign = seconds < 0 ? "-" : ""
        let seconds = seconds.magnitude  // Int64.min has no positive Int64
        let h = seconds / 3600
        let m = seconds % 3600 / 60
        let s = seconds % 60
        var out = ""
        if h > 0 { out += "\(h)h" }
        if m > 0 { out += "\(m)m" }
        if s > 0 || out.isEmpty { out += "\(s)s" }
        return sign + out
    }

    /// Formats a countdown as a clock: `24:59`, `1:02:03`.
    public static func clock(seconds: Int64) -> String {
        let s = max(0, seconds).magnitude
        let h = s / 3600
        let m = s % 3600 / 60
        let sec = s % 60
        func two(_ v: UInt64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return h > 0 ? "\(h):\(two(m)):\(two(sec))" : "\(two(m)):\(two(sec))"
    }
}
