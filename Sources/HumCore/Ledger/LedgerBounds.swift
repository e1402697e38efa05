/// The ranges every number from outside must fall in, defined once: what an import, the command line or a row of
/// the database may hold. A value outside its range is refused where it enters (an import names its line), so the
/// arithmetic done on stored values stays far from the edges of `Int64`; the sums formed over many stored values
/// are saturating as well, so that even a database written by hand cannot make hum trap.
public enum LedgerBounds {
    /// The largest amount of one entry, and of each of its seconds fields: ten years of seconds.
    public static let entrySeconds: Int64 = 10 * 366 * 86_400
    /// An entry's amount: at most ten years either way.
    public static let amount: ClosedRange<Int64> = -entrySeconds...entrySeconds
    /// An entry's `requested`, `cut`, `cap`, `used`, `reserve` and `allowance`.
    public static let entryField: ClosedRange<Int64> = 0...entrySeconds
    /// A round's planned, active, paused and earned seconds: within a year.
    public static let roundSeconds: ClosedRange<Int64> = 0...(366 * 86_400)
    /// A round's length brought within `roundSeconds`.
    public static func clampRound(_ seconds: Int64) -> Int64 {
        min(max(seconds, roundSeconds.lowerBound), roundSeconds.upperBound)
    }
    /// Instants: 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
    public static let epoch: ClosedRange<Int64> = 0...253_402_300_799
    /// The years a date may name (`--since 2025-03-30`).
    public static let years: ClosedRange<Int> = 1970...9999
    /// A round's mix volume, as a fraction.
    public static let volume: ClosedRange<Double> = 0...1
    /// The sounds of one round's mix, and its tags.
    public static let listCount = 256
    /// Ids and keys, in bytes.
    public static let idBytes = 200

    /// The problem with an instant, or nil when it is within `epoch` (its offset is always within ±23:59).
    public static func problem(_ t: Timestamp, _ what: String) -> String? {
        epoch.contains(t.epochSeconds) ? nil : "\(what) \(t.rfc3339) is outside 1970 to 9999"
    }
}

extension Int64 {
    /// `self + other`, held at `Int64.min` or `Int64.max` instead of trapping: for sums of stored values.
    public func adding(saturating other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, held at the ends instead of trapping.
    public func subtracting(saturating other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }

    /// `-self`, with `-Int64.min` held at `Int64.max`.
    public var negatedSaturating: Int64 { self == .min ? .max : -self }
}

extension Sequence where Element == Int64 {
    /// The sum, saturating at the ends of `Int64`.
    public func saturatingSum() -> Int64 { reduce(0) { $0.adding(saturating: $1) } }
}
