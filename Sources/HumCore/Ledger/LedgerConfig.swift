/// The ledger's settings (`hum config set KEY VALUE`), with their defaults.
public struct LedgerConfig: Sendable, Equatable {
    /// Focused seconds per earned second, in thousandths (3000 = a ratio of 3: 25 minutes earn 8 min 20 s).
    public var earnRatioMilli: Int64 = 3000
    /// The most a local calendar day can earn.
    public var dailyCapSeconds: Int64 = 180 * 60
    /// The emergency reserve per ISO week.
    public var emergencyWeeklySeconds: Int64 = 10 * 60

    public init() {}

    public static let keys = ["earn.ratio", "earn.daily-cap", "emergency.weekly"]

    public enum ConfigError: Error, Equatable, Sendable {
        case unknownKey(String)
        case badValue(key: String, value: String, expected: String)

        public var message: String {
            switch self {
            case .unknownKey(let key):
                return "unknown setting \"\(key)\"; the settings are \(LedgerConfig.keys.joined(separator: ", "))"
            case .badValue(let key, let value, let expected):
                return "bad value \"\(value)\" for \(key): expected \(expected)"
            }
        }
    }

    /// Seconds earned by a completed focus round of `activeSeconds`: floor(active / ratio).
    public func earned(activeSeconds: Int64) -> Int64 {
        guard activeSeconds > 0 else { return 0 }
        let active = min(activeSeconds, 366 * 86_400)
        return active * 1000 / earnRatioMilli
    }

    /// The value of a setting as text, in the form `set` accepts.
    public func text(for key: String) throws(ConfigError) -> String {
        switch key {
        case "earn.ratio": return LedgerConfig.ratioText(earnRatioMilli)
        case "earn.daily-cap": return DurationText.format(seconds: dailyCapSeconds)
        case "emergency.weekly": return DurationText.format(seconds: emergencyWeeklySeconds)
        default: throw .unknownKey(key)
        }
    }

    /// Sets a setting from text, validating it.
    public mutating func set(_ key: String, to value: String) throws(ConfigError) {
        switch key {
        case "earn.ratio":
            guard let milli = LedgerConfig.parseRatio(value) else {
                throw .badValue(key: key, value: value, expected: "a number from 0.1 to 1000, like 3 or 2.5")
            }
            earnRatioMilli = milli
        case "earn.daily-cap":
            dailyCapSeconds = try LedgerConfig.parseDuration(
                key, value, max: 86_400, expected: "a duration from 0 to 24h, like 180m")
        case "emergency.weekly":
            emergencyWeeklySeconds = try LedgerConfig.parseDuration(
                key, value, max: 7 * 86_400, expected: "a duration from 0 to 168h, like 10m")
        default:
            throw .unknownKey(key)
        }
    }

    static func parseDuration(_ key: String, _ value: String, max: Int64, expected: String) throws(ConfigError) -> Int64
    {
        guard let ms = try? DurationText.parseMilliseconds(value), ms % 1000 == 0, ms / 1000 <= max else {
            throw .badValue(key: key, value: value, expected: expected)
        }
        return ms / 1000
    }

    /// Parses `3`, `2.5`, `0.125` into thousandths; nil outside 0.1 … 1000 or with more than three decimals.
    static func parseRatio(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 4,
            parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let whole = Int64(parts[0])
        else { return nil }
        var milli = whole * 1000
        if parts.count == 2 {
            let frac = parts[1]
            guard !frac.isEmpty, frac.count <= 3, frac.allSatisfy({ $0.isASCII && $0.isNumber }),
                let f = Int64(frac + String(repeating: "0", count: 3 - frac.count))
            else { return nil }
            milli += f
        }
        return (100...1_000_000).contains(milli) ? milli : nil
    }

    static func ratioText(_ milli: Int64) -> String {
        if milli % 1000 == 0 { return String(milli / 1000) }
        var frac = pad(Int(milli % 1000), 3)
        while frac.hasSuffix("0") { frac.removeLast() }
        return "\(milli / 1000).\(frac)"
    }
}
