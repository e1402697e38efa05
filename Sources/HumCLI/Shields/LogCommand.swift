import HumCore
import HumStore

/// `hum log DURATION --shield NAME`: distracting time spent elsewhere (a phone), logged by hand for today.
struct LogCommand: HumCommand {
    static let name = "log"
    static let abstract = "log distracting time spent away from this machine, for a shield's report"
    static var discussion: String {
        """
        The guard measures how long a shield's programs run while the shield is lifted; time spent on the same
        distraction elsewhere (a phone, another computer) it cannot see. 'hum log 20m --shield social' adds it to
        today's distracting time of the shield, marked as logged by hand ('hum report' shows it apart). Today is the
        day day.starts-at puts now in. DURATION is 1s to 24h, and a day holds at most 24h for a shield, measured
        and logged together (more is refused, exit 3). Nothing is taken from the bank.

        'hum report' weighs each day: \(DayLean.rule).
        """
    }
    static let examples = [
        "hum log 20m --shield social",
        "hum log 1h --shield games --json",
    ]
    static let amount = Positional("DURATION", .seconds, help: "how long (1s to 24h)")
    static let shield = Option(
        "shield", ShieldCommand.shieldName.kind, required: true, help: "the shield whose programs it was")
    static let format = Option.format([.text, .json])
    static let arguments: [any Declared] = [amount, shield, format]

    /// The most one command logs.
    static let longest: Int64 = 86_400

    let seconds: Int64
    let shield: String
    let json: Bool

    init(_ arguments: ParsedArguments) throws {
        seconds = try arguments.positional(Self.amount, at: 0)!
        shield = try arguments.required(Self.shield)
        json = try arguments.value(Self.format) == .json
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

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context)
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
}
