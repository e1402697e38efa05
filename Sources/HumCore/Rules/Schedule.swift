/// A schedule (`hum schedule add work --days mon-fri --from 09:00 --to 18:00 --lock social,video`): on its days,
/// while the local wall clock reads a time in `from ..< to`, its shields are locked up (passes on them are refused),
/// or, for a free window, down with nothing counted. docs/rules.md.
///
/// The window is read on the wall clock at each instant, in the zone in force at that instant: it follows DST and
/// a move to another zone by itself. A window whose `to` is not after `from` crosses midnight, and belongs to the day
/// it starts on (`--days fri --from 22:00 --to 02:00` runs from Friday 22:00 to Saturday 02:00). On the day the
/// clock jumps forward over part of a window, that part does not happen; when the clock goes back over a window's
/// time, the window holds each time the clock reads it.
public struct Schedule: Sendable, Hashable, Codable {
    public var name: String
    public var days: Weekdays
    public var from: WallTime
    public var to: WallTime
    /// The shields it locks (or frees), by name.
    public var shields: [String]
    /// A strict schedule cannot be removed while its window runs.
    public var strict: Bool
    /// A free window: its shields are down, and nothing is counted.
    public var free: Bool
    public var created: Timestamp

    public init(
        name: String, days: Weekdays, from: WallTime, to: WallTime, shields: [String], strict: Bool = false,
        free: Bool = false, created: Timestamp
    ) {
        self.name = name
        self.days = days
        self.from = from
        self.to = to
        self.shields = shields
        self.strict = strict
        self.free = free
        self.created = created
    }

    /// The most shields one schedule names.
    public static let mostShields = 64
    /// How far ahead the next edge is looked for: a week and a day covers every weekly window.
    public static let horizon: Int64 = 8 * 86_400

    /// A schedule made from words, each checked: the name as a shield's, at least one day, a window that is not
    /// empty, at least one shield, and a free window that is not strict.
    public static func checked(
        name: String, days: Weekdays, from: WallTime, to: WallTime, shields: [String], strict: Bool, free: Bool,
        created: Timestamp
    ) throws(RuleProblem) -> Schedule {
        let name = try checkedName(name)
        guard !days.isEmpty else { throw RuleProblem("a schedule needs at least one day, for example --days mon-fri") }
        guard from.minutes < WallTime.endOfDay else {
            throw RuleProblem("--from 24:00 is the end of the day: start at 00:00 instead")
        }
        guard from != to else {
            throw RuleProblem(
                "--from and --to are both \(from): the window would be empty; for the whole day write --from 00:00 "
                    + "--to 24:00")
        }
        guard !shields.isEmpty else {
            throw RuleProblem("a schedule needs the shields it locks, for example --lock social,video")
        }
        guard shields.count <= mostShields else {
            throw RuleProblem("a schedule names at most \(mostShields) shields; make another schedule")
        }
        guard !(strict && free) else {
            throw RuleProblem("a free window cannot be strict: --strict keeps a lock from being loosened")
        }
        var unique: [String] = []
        for shield in shields where !unique.contains(shield) { unique.append(shield) }
        return Schedule(
            name: name, days: days, from: from, to: to, shields: unique, strict: strict, free: free, created: created)
    }

    /// A schedule's name follows the rules of a shield's (one word in a shell and in a message).
    public static func checkedName(_ text: String) throws(RuleProblem) -> String {
        guard (try? Shield.checkedName(text)) != nil else {
            throw RuleProblem(
                "\(text.quoted) is not a schedule name: use 1 to \(Shield.longestName) lower-case letters, digits, - "
                    + "or _, starting with a letter or digit (for example work)")
        }
        return text
    }

    /// Whether the window crosses midnight (`--from 22:00 --to 02:00`).
    public var crossesMidnight: Bool { to <= from }

    /// `mon-fri 09:00-18:00`.
    public var windowText: String { "\(days) \(from)-\(to)" }

    /// Whether the window holds at instant `t`, read on the wall clock of `zone` at `t`.
    public func isActive(at t: Int64, zone: any TimeZoneSeam) -> Bool {
        let (date, second) = WallClockEdges.wallClock(t, zone)
        let (start, end) = (from.seconds, to.seconds)
        if !crossesMidnight {
            return days.contains(isoWeekday: date.isoWeekday) && start <= second && second < end
        }
        // Crossing midnight: the evening part belongs to today, the morning part to the day before.
        return (days.contains(isoWeekday: date.isoWeekday) && second >= start)
            || (days.contains(isoWeekday: date.adding(days: -1).isoWeekday) && second < end)
    }

    /// The first instant after `now` at which `isActive` changes, or nil when it never does (a window over every
    /// hour of every day).
    public func nextEdge(after now: Int64, zone: any TimeZoneSeam) -> Int64? {
        WallClockEdges.next(after: now, zone: zone, boundaries: boundaries, horizon: Schedule.horizon) {
            isActive(at: $0, zone: zone)
        }
    }

    /// Where the wall clock can enter or leave the window: its ends, and midnight (the day changes).
    var boundaries: [Int64] { [0, from.seconds, to.seconds % 86_400] }
}
