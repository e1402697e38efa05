import HumCore
import HumStore

/// `hum schedule list` and `hum schedule show NAME`: the schedules, and whether each window holds now and until when.
struct ScheduleList: HumCommand {
    static let name = "list"
    static let abstract = "list the schedules and whether each window holds now"
    static let examples = ["hum schedule list", "hum schedule list --json"]
    static let arguments: [any Declared] = [ShieldList.format]
    let json: Bool
    init(_ arguments: ParsedArguments) throws { json = try arguments.value(ShieldList.format) == .json }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context, reading: true)
        let views = try ScheduleView.all(db)
        if json {
            context.stdout.write(try LedgerCLI.json(ScheduleView.List(schedules: views)) + "\n")
            return ExitCode.success
        }
        if views.isEmpty {
            context.stdout.write(
                "no schedules; make one with 'hum schedule add work --days mon-fri --from 09:00 --to 18:00 --lock "
                    + "social'\n")
            return ExitCode.success
        }
        let width = views.map { DisplayWidth.columns($0.name) }.max() ?? 0
        for view in views { context.stdout.write(LedgerCLI.fit(view.name, width) + "  " + view.line + "\n") }
        return ExitCode.success
    }
}

struct ScheduleShow: HumCommand {
    static let name = "show"
    static let abstract = "show a schedule: its days, window, shields, and whether it holds now"
    static let examples = ["hum schedule show work", "hum schedule show work --json"]
    static let arguments: [any Declared] = [ScheduleCommand.scheduleName, ShieldList.format]
    let name: String
    let json: Bool
    init(_ arguments: ParsedArguments) throws {
        name = try arguments.positional(ScheduleCommand.scheduleName, at: 0)!
        json = try arguments.value(ShieldList.format) == .json
    }

    func run(context: CommandContext) throws -> Int32 {
        let db = try LedgerCLI.open(context, reading: true)
        let views = try ScheduleView.all(db)
        guard let view = views.first(where: { $0.name == name }) else {
            throw ScheduleStoreError.unknown(name, known: views.map(\.name))
        }
        if json {
            context.stdout.write(try LedgerCLI.json(view) + "\n")
            return ExitCode.success
        }
        context.stdout.write(
            """
            schedule \(view.name): \(view.free ? "frees" : "locks") \(view.shields.joined(separator: ", "))
            days \(view.days), from \(view.from) to \(view.to)\(view.crossesMidnight ? " (the next day)" : "")
            \(view.strict ? "strict: it cannot be removed while its window holds" : "not strict")
            \(view.stateText)
            created \(view.created)

            """)
        return ExitCode.success
    }
}

/// A schedule as `list` and `show` print it; its JSON is the `--json` shape (docs/rules.md).
struct ScheduleView: Encodable {
    struct List: Encodable { var schedules: [ScheduleView] }

    var name: String
    var days: String
    var from: String
    var to: String
    var shields: [String]
    var strict: Bool
    var free: Bool
    var created: String
    /// Whether the window holds now.
    var active: Bool
    /// Its next edge (RFC 3339): when it closes if active, else when it opens; nil when it never changes.
    var next: String?
    private var nextClock: String?
    var crossesMidnight: Bool { to <= from && to != "24:00" }

    enum CodingKeys: String, CodingKey { case name, days, from, to, shields, strict, free, created, active, next }

    static func all(_ db: HumDatabase) throws -> [ScheduleView] {
        let now = db.calendar.clock.nowEpochSeconds()
        return try db.schedules().map { s in
            let edge = s.nextEdge(after: now, zone: db.calendar.zone).map { db.calendar.stamp($0) }
            let sameDay = edge?.localDate == db.calendar.stamp(now).localDate
            return ScheduleView(
                name: s.name, days: s.days.description, from: s.from.description, to: s.to.description,
                shields: s.shields, strict: s.strict, free: s.free, created: s.created.rfc3339,
                active: s.isActive(at: now, zone: db.calendar.zone), next: edge?.rfc3339,
                nextClock: edge.map { sameDay ? $0.localClock : "\($0.localDate) \($0.localClock)" })
        }
    }

    /// `holds now, until 18:00` or `opens 2026-12-07 09:00`.
    var stateText: String {
        let word = free ? "free" : "locked"
        guard let nextClock else { return active ? "\(word) always" : "never holds" }
        return active ? "\(word) now, until \(nextClock)" : "opens \(nextClock)"
    }

    /// `mon-fri 09:00-18:00  locks social, video  strict  locked now, until 18:00`.
    var line: String {
        "\(days) \(from)-\(to)  \(free ? "frees" : "locks") \(shields.joined(separator: ", "))"
            + (strict ? "  strict" : "") + "  \(stateText)"
    }
}
