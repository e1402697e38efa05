import HumCore
import HumStore

/// `hum log DURATION --shield NAME`: distracting time spent elsewhere (a phone), logged by hand for today.
/// `hum log DURATION --productive|--distracting`: how a stretch of time went, as a nudge's buttons log it.
struct LogCommand: HumCommand {
    static let name = "log"
    static let abstract = "log how time went: productive or distracting, or time on a shield's programs elsewhere"
    static var discussion: String {
        """
        The guard measures how long a shield's programs run while the shield is lifted; time spent on the same
        distraction elsewhere (a phone, another computer) it cannot see. 'hum log 20m --shield social' adds it to
        today's distracting time of the shield, marked as logged by hand ('hum report' shows it apart).
        'hum log 1h --productive' and 'hum log 1h --distracting' say how the last hour went without naming a shield,
        as the buttons of a nudge do (nudge.every: 'hum config set nudge.every 1h'); 'hum report' counts them on the
        day's side they name. Give one of --shield, --productive and --distracting. Today is the day day.starts-at
        puts now in. DURATION is 1s to 24h, and a day holds at most 24h for a shield (measured and logged together)
        and 24h logged without one (more is refused, exit 3). Nothing is taken from the bank.

        'hum report' weighs each day: \(DayLean.rule).
        """
    }
    static let examples = [
        "hum log 20m --shield social",
        "hum log 1h --productive",
        "hum log 30m --distracting --json",
        "hum log 1h --shield games --json",
    ]
    static let amount = Positional("DURATION", .seconds, help: "how long (1s to 24h)")
    static let shield = Option(
        "shield", ShieldCommand.shieldName.kind, help: "the shield whose programs it was (distracting time)")
    static let productive = Flag("productive", help: "the time went well (counts with focus in 'hum report')")
    static let distracting = Flag(
        "distracting", help: "the time went to distraction, on no shield in particular (counts against focus)")
    static let format = Option.format([.text, .json])
    static let arguments: [any Declared] = [amount, shield, productive, distracting, format]

    /// The most one command logs.
    static let longest: Int64 = 86_400

    let seconds: Int64
    /// The shield, or the verdict without one.
    let shield: String?
    let verdict: HourVerdict?
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        seconds = try arguments.positional(Self.amount, at: 0)!
        shield = try arguments.value(Self.shield)
        let verdicts = [
            arguments.flag(Self.productive) ? HourVerdict.productive : nil,
            arguments.flag(Self.distracting) ? HourVerdict.distracting : nil,
        ].compactMap { $0 }
        verdict = verdicts.first
        json = try arguments.value(Self.format) == .json
        guard (shield == nil ? 0 : 1) + verdicts.count == 1 else {
            throw HumError.usage(
                "log says what the time was with one of --shield NAME, --productive and --distracting "
                    + "(like 'hum log 1h --productive')")
        }
        guard seconds <= Self.longest else {
            throw HumError.usage(
                "log takes at most 24h at a time (a day holds no more), not \(DurationText.format(seconds: seconds))")
        }
    }

    struct Logged: Encodable {
        var shield: String
        var date: String
        var loggedSeconds: Int64
        var dayMeasuredSeconds: Int64
        var dayLoggedSeconds: Int64
        enum CodingKeys: String, CodingKey {
            case shield, date
            case loggedSeconds = "logged_seconds"
            case dayMeasuredSeconds = "day_measured_seconds"
            case dayLoggedSeconds = "day_logged_seconds"
        }
    }

    struct LoggedHoursReport: Encodable {
        var verdict: String
        var date: String
        var loggedSeconds: Int64
        var dayProductiveSeconds: Int64
        var dayDistractingSeconds: Int64
        enum CodingKeys: String, CodingKey {
            case verdict, date
            case loggedSeconds = "logged_seconds"
            case dayProductiveSeconds = "day_productive_seconds"
            case dayDistractingSeconds = "day_distracting_seconds"
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context)
        guard let shield else { return try logHours(db, verdict: verdict ?? .productive, context: context) }
        let day = try db.logUsage(shield: shield, seconds: seconds)
        context.made("the time was logged", see: "hum report day")
        if json {
            let logged = Logged(
                shield: shield, date: day.date.description, loggedSeconds: seconds,
                dayMeasuredSeconds: day.measuredSeconds, dayLoggedSeconds: day.loggedSeconds)
            context.stdout.write(try LedgerCLI.json(logged) + "\n")
            return ExitCode.success
        }
        let f = DurationText.format(seconds:)
        context.stdout.write(
            "logged \(f(seconds)) on \(shield) for \(day.date) (by hand); that day: \(f(day.seconds)) distracting "
                + "(\(f(day.measuredSeconds)) measured, \(f(day.loggedSeconds)) logged)\n")
        return ExitCode.success
    }

    /// `--productive` and `--distracting`: the hours without a shield, as a nudge's buttons log them.
    private func logHours(_ db: HumDatabase, verdict: HourVerdict, context: CommandContext) throws -> Int32 {
        let day = try db.logHours(verdict, seconds: seconds, source: .command)
        context.made("the time was logged", see: "hum report day")
        if json {
            let logged = LoggedHoursReport(
                verdict: verdict.rawValue, date: day.date.description, loggedSeconds: seconds,
                dayProductiveSeconds: day.productiveSeconds, dayDistractingSeconds: day.distractingSeconds)
            context.stdout.write(try LedgerCLI.json(logged) + "\n")
            return ExitCode.success
        }
        let f = DurationText.format(seconds:)
        context.stdout.write(
            "logged \(f(seconds)) as \(verdict.rawValue) for \(day.date); that day: \(f(day.productiveSeconds)) "
                + "productive, \(f(day.distractingSeconds)) distracting (logged by hand)\n")
        return ExitCode.success
    }
}
