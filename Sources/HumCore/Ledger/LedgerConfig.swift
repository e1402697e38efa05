/// The ledger's settings (`hum config set KEY VALUE`), with their defaults.
public struct LedgerConfig: Sendable, Equatable {
    /// Focused seconds per earned second, in thousandths (3000 = a ratio of 3: 25 minutes earn 8 min 20 s).
    public var earnRatioMilli: Int64 = 3000
    /// The most a local calendar day can earn.
    public var dailyCapSeconds: Int64 = 180 * 60
    /// The emergency reserve per ISO week.
    public var emergencyWeeklySeconds: Int64 = 10 * 60
    /// The reviewer of contracts' proofs: nil for hum's own (local, deterministic), or a command line (split on
    /// spaces, run directly) that reads the request as JSON on stdin and answers with the decision.
    public var reviewCommand: String? = nil
    /// How long an external reviewer has to answer.
    public var reviewTimeoutSeconds: Int64 = 60
    /// While a strict contract runs, how long an emergency draw waits before it asks for its confirmation.
    public var strictEmergencyWaitSeconds: Int64 = 10

    public init() {}

    public static let keys = [
        "earn.ratio", "earn.daily-cap", "emergency.weekly", "review.command", "review.timeout",
        "strict.emergency-wait",
    ]

    /// A bad key or value: the same error as every setting's (`SettingCatalog`).
    public typealias ConfigError = SettingError

    /// The ratios `earn.ratio` accepts, in thousandths: 0.1 to 1000, with at most three decimals.
    public static let ratioMilli: ClosedRange<Int64> = 100...1_000_000
    /// The daily caps `earn.daily-cap` accepts: 0 to 24 hours, in seconds. A grant never records a cap beyond.
    public static let dailyCapRange: ClosedRange<Int64> = 0...86_400
    /// The weekly reserves `emergency.weekly` accepts: 0 to 168 hours, in seconds.
    public static let emergencyWeeklyRange: ClosedRange<Int64> = 0...(7 * 86_400)

    /// Seconds earned by a completed focus round of `activeSeconds`: floor(active / ratio).
    public func earned(activeSeconds: Int64) -> Int64 {
        guard activeSeconds > 0 else { return 0 }
        let active = min(activeSeconds, LedgerBounds.roundSeconds.upperBound)
        let ratio = min(max(earnRatioMilli, LedgerConfig.ratioMilli.lowerBound), LedgerConfig.ratioMilli.upperBound)
        return active * 1000 / ratio
    }

    /// The most any ratio can earn for `activeSeconds` (the smallest ratio, 0.1): what a grant can never exceed.
    public static func mostEarned(activeSeconds: Int64) -> Int64 {
        max(0, min(activeSeconds, LedgerBounds.roundSeconds.upperBound)) * 1000 / ratioMilli.lowerBound
    }

    /// The value of a setting as text, in the form `set` accepts.
    public func text(for key: String) throws(ConfigError) -> String {
        switch key {
        case "earn.ratio": return LedgerConfig.ratioText(earnRatioMilli)
        case "earn.daily-cap": return DurationText.format(seconds: dailyCapSeconds)
        case "emergency.weekly": return DurationText.format(seconds: emergencyWeeklySeconds)
        case "review.command": return reviewCommand ?? "local"
        case "review.timeout": return DurationText.format(seconds: reviewTimeoutSeconds)
        case "strict.emergency-wait": return DurationText.format(seconds: strictEmergencyWaitSeconds)
        default: throw .unknownKey(key)
        }
    }

    /// Sets a setting from text, validating it.
    public mutating func set(_ key: String, to value: String) throws(ConfigError) {
        switch key {
        case "earn.ratio":
            guard let milli = LedgerConfig.parseRatio(value) else {
                throw .badValue(
                    key: key, value: value, expected: "a number from 0.1 to 1000 with at most 3 decimals, like 3 or 2.5"
                )
            }
            earnRatioMilli = milli
        case "earn.daily-cap":
            dailyCapSeconds = try LedgerConfig.parseDuration(
                key, value, max: LedgerConfig.dailyCapRange.upperBound,
                expected: "whole seconds from 0s to 24h, like 180m")
        case "emergency.weekly":
            emergencyWeeklySeconds = try LedgerConfig.parseDuration(
                key, value, max: LedgerConfig.emergencyWeeklyRange.upperBound,
                expected: "whole seconds from 0s to 168h, like 10m")
        case "review.command":
            guard !value.isEmpty, value.utf8.count <= 1000, value.contains(where: { !$0.isWhitespace }),
                !value.unicodeScalars.contains(where: VisibleText.needsEscape)
            else {
                throw .badValue(
                    key: key, value: value, expected: "local, or a command line of at most 1000 bytes on one line")
            }
            reviewCommand = value == "local" ? nil : value
        case "review.timeout":
            let seconds = try LedgerConfig.parseDuration(
                key, value, max: 600, expected: "whole seconds from 1s to 10m, like 60s")
            guard seconds >= 1 else {
                throw .badValue(key: key, value: value, expected: "whole seconds from 1s to 10m, like 60s")
            }
            reviewTimeoutSeconds = seconds
        case "strict.emergency-wait":
            strictEmergencyWaitSeconds = try LedgerConfig.parseDuration(
                key, value, max: 600, expected: "whole seconds from 0s to 10m, like 10s")
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

    /// Parses `3`, `2.5`, `0.125`, `.5`, `3.` into thousandths; nil for anything that is not such a number from 0.1
    /// to 1000 with at most three decimals (trailing zeros beyond them are fine: `0.1000` is 0.1). Never traps.
    static func parseRatio(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            !(parts[0].isEmpty && (parts.count == 1 || parts[1].isEmpty))
        else { return nil }
        let whole = parts[0].drop { $0 == "0" }
        guard whole.count <= 4, let w = whole.isEmpty ? 0 : Int64(whole) else { return nil }
        var milli = w * 1000
        if parts.count == 2 {
            let frac = parts[1]
            guard frac.dropFirst(3).allSatisfy({ $0 == "0" }) else { return nil }
            let three = String(frac.prefix(3))
            milli += Int64(three + String(repeating: "0", count: 3 - three.count)) ?? 0
        }
        return ratioMilli.contains(milli) ? milli : nil
    }

    static func ratioText(_ milli: Int64) -> String {
        if milli % 1000 == 0 { return String(milli / 1000) }
        var frac = pad(Int(milli % 1000), 3)
        while frac.hasSuffix("0") { frac.removeLast() }
        return "\(milli / 1000).\(frac)"
    }
}
