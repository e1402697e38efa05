import HumCore
import HumStore

/// `hum schedule add|list|show|rm`: windows of the week in which shields are locked up, or free (docs/rules.md).
/// Bare `hum schedule` lists them.
struct ScheduleCommand: HumCommand {
    static let name = "schedule"
    static let abstract = "lock shields, or free them, in windows of the week"
    static let discussion = """
        A schedule names days (--days mon-fri), a window on the local wall clock (--from 09:00 --to 18:00, crossing
        midnight when --to is not after --from; --to 24:00 is the end of the day) and the shields it locks (--lock
        social,video). Inside the window those shields are up and passes on them are refused (exit 3); the
        emergency reserve still opens them. The window follows daylight saving time and a change of time zone. A
        free window (--free) turns its shields down instead, with nothing counted. A strict schedule (--strict)
        cannot be removed while its window holds; while a strict contract runs, removing a lock and adding a free
        window are refused (exit 3). Not built yet: the guard in the player that applies schedules at their edges,
        and 'hum pass --on NAME', which a lock window refuses (see docs/rules.md).
        """
    static let examples = [
        "hum schedule add work --days mon-fri --from 09:00 --to 18:00 --lock social,video --strict",
        "hum schedule add night --days daily --from 23:00 --to 06:00 --lock games",
        "hum schedule add lunch --days mon-fri --from 12:30 --to 13:30 --lock social --free",
        "hum schedule list --json",
    ]
    static var subcommands: [any HumCommand.Type] { [Add.self, ScheduleList.self, ScheduleShow.self, Remove.self] }
    static let arguments: [any Declared] = ScheduleList.arguments

    static let scheduleName = Positional(
        "NAME",
        ValueKind<String>("NAME") { text in
            guard let name = try? Schedule.checkedName(text) else {
                return .failure(
                    .init(
                        "is not a schedule name: use 1 to \(Shield.longestName) lower-case letters, digits, - or _, "
                            + "starting with a letter or digit (for example work)"))
            }
            return .success(name)
        }, help: "the schedule's name (a-z, 0-9, - and _)")

    let list: ScheduleList
    init(_ arguments: ParsedArguments) throws { list = try ScheduleList(arguments) }
    func run(context: CommandContext) throws -> Int32 { try list.run(context: context) }

    struct Add: HumCommand {
        static let name = "add"
        static let abstract = "make a schedule"
        static let discussion = """
            The shields must exist (hum shield add). A window that starts on one day and ends after midnight
            belongs to the day it starts: --days fri --from 22:00 --to 02:00 runs Friday night into Saturday.
            """
        static let examples = [
            "hum schedule add work --days mon-fri --from 09:00 --to 18:00 --lock social,video",
            "hum schedule add weekend --days sat,sun --from 00:00 --to 24:00 --lock games --free",
        ]
        static let days = Option(
            "days",
            ValueKind<Weekdays>("DAYS") { text in
                guard let days = try? Weekdays.checked(text) else {
                    return .failure(.init("is not a list of days; write for example mon-fri, sat,sun or daily"))
                }
                return .success(days)
            }, required: true, help: "the days it starts on: mon-fri, sat,sun, mon,wed-fri, daily")
        static func time(_ name: String, endOfDay: Bool, help: String) -> Option<WallTime> {
            Option(
                name,
                ValueKind<WallTime>("HH:MM") { text in
                    guard let time = try? WallTime.checked(text, allowsEndOfDay: endOfDay) else {
                        return .failure(
                            .init(
                                "is not a time of day; write HH:MM from 00:00 to 23:59"
                                    + (endOfDay ? " (or 24:00)" : "") + ", for example 09:00"))
                    }
                    return .success(time)
                }, required: true, help: help)
        }
        static let from = time("from", endOfDay: false, help: "when the window opens, on the local wall clock")
        static let to = time("to", endOfDay: true, help: "when it closes (not after --from: the next day; 24:00)")
        static let lock = Option(
            "lock",
            ValueKind<[String]>("SHIELD,...") { text in
                let names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard names.count <= Schedule.mostShields,
                    names.allSatisfy({ (try? Shield.checkedName($0)) != nil })
                else {
                    return .failure(.init("is not a list of shield names; write for example social,video"))
                }
                return .success(names)
            }, required: true, help: "the shields it locks (or frees, with --free), separated by commas")
        static let strict = Flag("strict", help: "it cannot be removed while its window holds")
        static let free = Flag("free", help: "a free window: its shields are down and nothing is counted")
        static let arguments: [any Declared] = [ScheduleCommand.scheduleName, days, from, to, lock, strict, free]

        let name: String
        let days: Weekdays
        let from: WallTime
        let to: WallTime
        let shields: [String]
        let strict: Bool
        let free: Bool
        init(_ arguments: ParsedArguments) throws {
            name = try arguments.positional(ScheduleCommand.scheduleName, at: 0)!
            days = try arguments.value(Self.days)!
            from = try arguments.value(Self.from)!
            to = try arguments.value(Self.to)!
            shields = try arguments.value(Self.lock)!
            strict = try arguments.flag(Self.strict)
            free = try arguments.flag(Self.free)
            // The rest of the checks (an empty window, strict and free together), before anything runs.
            _ = try Schedule.checked(
                name: name, days: days, from: from, to: to, shields: shields, strict: strict, free: free,
                created: Timestamp(epochSeconds: 0, offsetSeconds: 0))
        }

        func run(context: CommandContext) throws -> Int32 {
            let db = try LedgerCLI.open(context)
            let schedule = try Schedule.checked(
                name: name, days: days, from: from, to: to, shields: shields, strict: strict, free: free,
                created: db.calendar.now())
            try db.addSchedule(schedule)
            context.made("the schedule was saved", see: "hum schedule show \(name)")
            let what = free ? "frees" : "locks"
            context.stdout.write(
                "schedule \(name) made: \(what) \(schedule.shields.joined(separator: ", ")) \(schedule.windowText)"
                    + (strict ? " (strict)" : "") + "\n")
            ShieldGuardLink.tellOrNote(context, what: "the schedule")
            return ExitCode.success
        }
    }

    struct Remove: HumCommand {
        static let name = "rm"
        static let abstract = "remove a schedule"
        static let discussion = """
            Its row stays on the record. A strict schedule is refused while its window holds, and a lock is refused
            while a strict contract runs (exit 3); a free window can always go.
            """
        static let examples = ["hum schedule rm work"]
        static let arguments: [any Declared] = [ScheduleCommand.scheduleName]
        let name: String
        init(_ arguments: ParsedArguments) throws {
            name = try arguments.positional(ScheduleCommand.scheduleName, at: 0)!
        }

        func run(context: CommandContext) throws -> Int32 {
            try LedgerCLI.open(context).removeSchedule(named: name)
            context.made("the schedule was removed", see: "hum schedule list")
            context.stdout.write("schedule \(name) removed\n")
            ShieldGuardLink.tell(context)
            return ExitCode.success
        }
    }
}
