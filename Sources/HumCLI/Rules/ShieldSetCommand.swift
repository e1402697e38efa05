import HumCore
import HumStore

/// `hum shield set NAME --quota 30m [--reduce 10%/week] [--floor 10m]`, `--no-quota`: a shield's daily quota of
/// lifted time that costs nothing from the bank (docs/rules.md).
struct ShieldSetCommand: HumCommand {
    static let name = "set"
    static let abstract = "give a shield a daily quota, shrinking week by week"
    static let discussion = """
        The quota is lifted time a day that costs nothing from the bank. --reduce shrinks it each week, by a share
        (10%/week) or a time (5m/week), down to --floor; each week's quota is computed from the date, counted in
        whole weeks from today. A day starts at day.starts-at (hum config set day.starts-at 04:00). 'hum shield
        show NAME' prints this week's and next week's quota and today's use. While a strict contract runs, a quota
        that gives more time than the one before is refused (exit 3); a smaller one, or --no-quota, is allowed.
        Not built yet: 'hum pass --on NAME' taking from the quota (see docs/rules.md).
        """
    static let examples = [
        "hum shield set video --quota 30m",
        "hum shield set video --quota 30m --reduce 10%/week --floor 10m",
        "hum shield set games --quota 1h --reduce 5m/week --floor 15m",
        "hum shield set video --no-quota",
    ]
    static let quota = Option("quota", .seconds, help: "lifted time a day, from 1s to 24h (30m, 1h)")
    static let reduce = Option(
        "reduce",
        ValueKind<QuotaReduction>("RATE") { text in
            guard let rate = try? QuotaReduction.checked(text) else {
                return .failure(
                    .init("is not a weekly reduction; write a percentage below 100 like 10%/week, or 5m/week"))
            }
            return .success(rate)
        }, help: "how much less each week: 10%/week or 5m/week")
    static let floor = Option("floor", .elapsedSeconds, help: "the least the quota shrinks to (with --reduce)")
    static let noQuota = Flag("no-quota", help: "drop the shield's quota")
    static let arguments: [any Declared] = [ShieldCommand.shieldName, quota, reduce, floor, noQuota]

    let name: String
    let seconds: Int64?
    let reduction: QuotaReduction?
    let floorSeconds: Int64?
    init(_ arguments: ParsedArguments) throws {
        name = try arguments.positional(ShieldCommand.shieldName, at: 0)!
        seconds = try arguments.value(Self.quota)
        reduction = try arguments.value(Self.reduce)
        floorSeconds = try arguments.value(Self.floor)
        let drop = try arguments.flag(Self.noQuota)
        if drop {
            guard seconds == nil, reduction == nil, floorSeconds == nil else {
                throw HumError.usage("--no-quota takes no --quota, --reduce or --floor")
            }
        } else if let seconds {
            _ = try ShieldQuota.checked(
                dailySeconds: seconds, reduction: reduction, floorSeconds: floorSeconds,
                since: Timestamp(epochSeconds: 0, offsetSeconds: 0))
        } else {
            throw HumError.usage(
                "shield set needs --quota DURATION or --no-quota, for example 'hum shield set \(name) --quota 30m'")
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context)
        let quota = try seconds.map {
            try ShieldQuota.checked(
                dailySeconds: $0, reduction: reduction, floorSeconds: floorSeconds, since: db.calendar.now())
        }
        try db.setShieldQuota(shield: name, quota: quota)
        context.made("the quota was saved", see: "hum shield show \(name)")
        ShieldGuardLink.tell(context)
        context.stdout.write(
            quota.map { "shield \(name): a daily quota of \($0.text)\n" } ?? "shield \(name): no quota\n")
        return ExitCode.success
    }
}

/// A shield's quota as `hum shield show` prints it: the rule, this week's and next week's quota, today's use.
struct QuotaView: Encodable {
    /// Seconds a day in the first week.
    var daily: Int64
    /// `10%/week`, `5m/week`, or nil.
    var reduce: String?
    var floor: Int64
    /// When it was set (RFC 3339): week 0 starts that day.
    var since: String
    var thisWeek: Int64
    var nextWeek: Int64
    /// The day next week's quota starts (`YYYY-MM-DD`).
    var nextWeekStarts: String
    var usedToday: Int64
    var leftToday: Int64

    init(quota: ShieldQuota, standing: QuotaStanding) {
        daily = quota.dailySeconds
        reduce = quota.reduction?.text
        floor = quota.floorSeconds
        since = quota.since.rfc3339
        thisWeek = standing.thisWeek
        nextWeek = standing.nextWeek
        nextWeekStarts = standing.nextWeekStarts.description
        usedToday = standing.usedToday
        leftToday = standing.leftToday
    }

    /// `quota 30m a day, -10%/week down to 10m: this week 30m, next week 27m (from 2026-12-09); used today 10m, 20m
    /// left`.
    var text: String {
        let f = DurationText.format(seconds:)
        let rule = reduce.map { ", -\($0) down to \(f(floor))" } ?? ""
        return "quota \(f(daily)) a day\(rule): this week \(f(thisWeek)), next week \(f(nextWeek)) (from "
            + "\(nextWeekStarts)); used today \(f(usedToday)), \(f(leftToday)) left"
    }
}
