/// A shield's daily quota (`hum shield set video --quota 30m --reduce 10%/week --floor 10m`): lifted time a day
/// that costs nothing from the bank, shrinking week by week by a rule. The week's quota is computed from the date
/// (whole weeks since the quota was set), never from a stored counter that could drift. docs/rules.md.
public struct ShieldQuota: Sendable, Hashable, Codable {
    /// The quota of the first week, in seconds.
    public var dailySeconds: Int64
    public var reduction: QuotaReduction?
    /// The least the quota shrinks to.
    public var floorSeconds: Int64
    /// When it was set: week 0 starts on that day (by the day boundary).
    public var since: Timestamp

    public init(dailySeconds: Int64, reduction: QuotaReduction? = nil, floorSeconds: Int64 = 0, since: Timestamp) {
        self.dailySeconds = dailySeconds
        self.reduction = reduction
        self.floorSeconds = floorSeconds
        self.since = since
    }

    /// The largest quota: a day.
    public static let largest: Int64 = 86_400

    /// A quota made from words, each in range: 1 second to a day, a floor not above the quota, a reduction that
    /// leaves something (a percentage below 100, a step not above the quota).
    public static func checked(
        dailySeconds: Int64, reduction: QuotaReduction?, floorSeconds: Int64?, since: Timestamp
    ) throws(RuleProblem) -> ShieldQuota {
        guard (1...largest).contains(dailySeconds) else {
            throw RuleProblem("--quota must be from 1s to 24h, like 30m; to drop a quota use --no-quota")
        }
        if let floorSeconds {
            guard reduction != nil else { throw RuleProblem("--floor goes with --reduce: the quota shrinks to it") }
            guard (0...dailySeconds).contains(floorSeconds) else {
                throw RuleProblem(
                    "--floor \(DurationText.format(seconds: floorSeconds)) is above the quota "
                        + "\(DurationText.format(seconds: dailySeconds)): give a floor from 0s to the quota")
            }
        }
        if case .absolute(let step) = reduction, step > dailySeconds {
            throw RuleProblem(
                "--reduce \(DurationText.format(seconds: step))/week is more than the quota "
                    + "\(DurationText.format(seconds: dailySeconds)): give a smaller step, like 5m/week")
        }
        return ShieldQuota(
            dailySeconds: dailySeconds, reduction: reduction, floorSeconds: floorSeconds ?? 0, since: since)
    }

    /// The quota in week `n` after it was set (week 0 is the first), in seconds.
    public func seconds(inWeek n: Int) -> Int64 {
        let n = max(0, n)
        switch reduction {
        case nil:
            return dailySeconds
        case .percent(let basisPoints):
            // Week by week, stopping once under the floor (or under a second): the same steps on every machine.
            let keep = 1 - Double(basisPoints) / 10_000
            var quota = Double(dailySeconds)
            var week = 0
            while week < n, quota >= Double(max(floorSeconds, 1)) {
                quota *= keep
                week += 1
            }
            // Whole minutes: a quota people read.
            let minutes = (quota / 60).rounded()
            let exact = dailySeconds < 60 ? dailySeconds : Int64(minutes) * 60
            return max(floorSeconds, min(dailySeconds, exact))
        case .absolute(let step):
            let cut = step.multipliedReportingOverflow(by: Int64(n))
            return cut.overflow ? floorSeconds : max(floorSeconds, dailySeconds - cut.partialValue)
        }
    }

    /// Whole weeks from the day it was set to the day of `now` (0 when the clock reads before it was set).
    public func week(at now: Int64, zone: any TimeZoneSeam, boundary: DayBoundary) -> Int {
        let days = boundary.day(of: now, zone: zone).daysSinceEpoch - boundary.day(of: since).daysSinceEpoch
        return Int(clamping: max(0, days) / 7)
    }

    /// This week's quota and next week's, in seconds.
    public func thisAndNextWeek(at now: Int64, zone: any TimeZoneSeam, boundary: DayBoundary) -> (Int64, Int64) {
        let n = week(at: now, zone: zone, boundary: boundary)
        return (seconds(inWeek: n), seconds(inWeek: n + 1))
    }

    /// The day the next week of the quota starts.
    public func nextWeekStarts(at now: Int64, zone: any TimeZoneSeam, boundary: DayBoundary) -> CivilDate {
        let n = week(at: now, zone: zone, boundary: boundary)
        return boundary.day(of: since).adding(days: Int64(n + 1) * 7)
    }

    /// `30m`, `30m, -10%/week down to 10m`.
    public var text: String {
        var out = DurationText.format(seconds: dailySeconds)
        if let reduction {
            out += ", -\(reduction.text) down to \(DurationText.format(seconds: floorSeconds))"
        }
        return out
    }

    /// Seconds of a shield's quota used on the day of `now`: the lengths of the lifts paid by the quota that
    /// started that day (a lift takes its whole length when it opens; one ended early counts what it ran).
    public static func used(
        shield: String, lifts: [ShieldLift], at now: Int64, zone: any TimeZoneSeam, boundary: DayBoundary
    ) -> Int64 {
        let today = boundary.day(of: now, zone: zone)
        return lifts.filter {
            $0.shield == shield && $0.budget == .quota && boundary.day(of: $0.start, zone: zone) == today
        }
        .reduce(0) { $0 + min($1.paidSeconds, max(0, ($1.ended ?? $1.deadline) - $1.start)) }
    }

    /// What is left of today's quota, in seconds.
    public func left(
        shield: String, lifts: [ShieldLift], at now: Int64, zone: any TimeZoneSeam, boundary: DayBoundary
    ) -> Int64 {
        let (quota, _) = thisAndNextWeek(at: now, zone: zone, boundary: boundary)
        return max(0, quota - Self.used(shield: shield, lifts: lifts, at: now, zone: zone, boundary: boundary))
    }

    /// Whether `new` gives more lifted time than `old` on some day of the coming two years (strict mode refuses it).
    /// No quota before counts as a quota of nothing.
    public static func loosens(
        from old: ShieldQuota?, to new: ShieldQuota?, at now: Int64, zone: any TimeZoneSeam, boundary: DayBoundary
    ) -> Bool {
        guard let new else { return false }
        guard let old else { return true }
        let oldWeek = old.week(at: now, zone: zone, boundary: boundary)
        let newWeek = new.week(at: now, zone: zone, boundary: boundary)
        return (0..<104).contains { k in new.seconds(inWeek: newWeek + k) > old.seconds(inWeek: oldWeek + k) }
    }
}

/// How a quota shrinks each week: by a share of the week before (`10%/week`), or by a fixed time (`5m/week`).
public enum QuotaReduction: Sendable, Hashable, Codable {
    /// Hundredths of a percent: 10% is 1000.
    case percent(basisPoints: Int)
    /// Seconds less each week.
    case absolute(seconds: Int64)

    /// `10%/week`, `2.5%/week`, `5m/week`.
    public var text: String {
        switch self {
        case .percent(let bp):
            let whole = bp / 100
            let rest = bp % 100
            let decimals = rest == 0 ? "" : rest % 10 == 0 ? ".\(rest / 10)" : "." + pad(rest, 2)
            return "\(whole)\(decimals)%/week"
        case .absolute(let seconds): return "\(DurationText.format(seconds: seconds))/week"
        }
    }

    /// Reads `10%/week`, `2.5%` (0.01% to 99.99%, at most two decimals) or `5m/week` (a duration from 1s to a day).
    public static func checked(_ text: String) throws(RuleProblem) -> QuotaReduction {
        let problem = RuleProblem(
            "--reduce \(text.quoted) is not a weekly reduction: write a percentage below 100 like 10%/week, or a "
                + "duration like 5m/week")
        var body = Substring(text.lowercased())
        if body.hasSuffix("/week") { body = body.dropLast("/week".count) }
        guard !body.isEmpty, body.count <= 16 else { throw problem }
        if body.hasSuffix("%") {
            let number = body.dropLast()
            let parts = number.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].count <= 2,
                parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
                parts.count == 1 || (1...2).contains(parts[1].count),
                let whole = Int(parts[0])
            else { throw problem }
            var hundredths = 0
            if parts.count == 2, let fraction = Int(parts[1]) {
                hundredths = parts[1].count == 1 ? fraction * 10 : fraction
            }
            let bp = whole * 100 + hundredths
            guard (1...9_999).contains(bp) else { throw problem }
            return .percent(basisPoints: bp)
        }
        guard let ms = try? DurationText.parseMilliseconds(String(body)), ms % 1000 == 0,
            (1...ShieldQuota.largest).contains(ms / 1000)
        else { throw problem }
        return .absolute(seconds: ms / 1000)
    }
}

/// What paid for a lift: the shield's daily quota, the bank (a pass), or the emergency reserve. Only the
/// emergency reserve opens a shield that a schedule locks.
public enum LiftBudget: String, Sendable, Hashable, Codable, CaseIterable {
    case quota
    case bank
    case emergency
}

/// A shield's quota on the day of an instant: this week's and next week's, and what today used and left.
public struct QuotaStanding: Sendable, Equatable {
    public var thisWeek: Int64
    public var nextWeek: Int64
    /// The day next week's quota starts.
    public var nextWeekStarts: CivilDate
    public var usedToday: Int64
    public var leftToday: Int64
}

extension ShieldInputs {
    /// The quota of shield `name` at `now`, or nil when it has none: what `hum pass --on NAME` takes from first.
    public func quota(of name: String, now: Int64) -> QuotaStanding? {
        guard let quota = shields.first(where: { $0.name == name })?.quota else { return nil }
        let (this, next) = quota.thisAndNextWeek(at: now, zone: zone, boundary: dayBoundary)
        let used = ShieldQuota.used(shield: name, lifts: quotaLifts, at: now, zone: zone, boundary: dayBoundary)
        return QuotaStanding(
            thisWeek: this, nextWeek: next,
            nextWeekStarts: quota.nextWeekStarts(at: now, zone: zone, boundary: dayBoundary), usedToday: used,
            leftToday: max(0, this - used))
    }
}
