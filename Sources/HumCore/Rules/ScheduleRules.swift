/// The schedules' rules in `ShieldState`, and what a pass on a shield must check first: whether a schedule locks
/// it now, and until when.
extension ShieldState {
    /// A lock window in force: the shield is up whatever offs and lifts say, unless the emergency reserve lifted it.
    static let lockRule: Rule = { name, inputs, now in
        guard
            inputs.schedules.contains(where: {
                !$0.free && $0.shields.contains(name) && $0.isActive(at: now, zone: inputs.zone)
            })
        else { return nil }
        let emergency = inputs.lifts.filter { $0.budget == .emergency }
        return liftRule(name, ShieldInputs(shields: inputs.shields, lifts: emergency), now) ?? .up
    }

    /// A free window in force: the shield is down until the window closes.
    static let freeRule: Rule = { name, inputs, now in
        let free = inputs.schedules.filter {
            $0.free && $0.shields.contains(name) && $0.isActive(at: now, zone: inputs.zone)
        }
        guard let first = free.first else { return nil }
        let until = windowsEnd(free, after: now, zone: inputs.zone) ?? Int64.max
        return .free(until: until, schedule: first.name)
    }

    /// The lock a schedule holds on shield `name` at `now`, or nil: what `hum pass --on NAME` refuses with (exit 3).
    /// Its `until` is when no lock window holds the shield any more (nil: never, the windows cover every hour).
    public static func lock(on name: String, _ inputs: ShieldInputs, now: Int64) -> ScheduleLock? {
        let locks = inputs.schedules.filter {
            !$0.free && $0.shields.contains(name) && $0.isActive(at: now, zone: inputs.zone)
        }
        guard let first = locks.first(where: \.strict) ?? locks.first else { return nil }
        let all = inputs.schedules.filter { !$0.free && $0.shields.contains(name) }
        let until = windowsEnd(all, after: now, zone: inputs.zone)
        return ScheduleLock(
            shield: name, schedule: first.name, strict: locks.contains(where: \.strict), until: until,
            untilStamp: until.map {
                Timestamp(epochSeconds: $0, offsetSeconds: inputs.zone.offsetSeconds(atEpoch: $0))
            },
            nowStamp: Timestamp(epochSeconds: now, offsetSeconds: inputs.zone.offsetSeconds(atEpoch: now)))
    }

    /// The first instant after `now` at which none of `schedules` holds, or nil within their horizon.
    static func windowsEnd(_ schedules: [Schedule], after now: Int64, zone: any TimeZoneSeam) -> Int64? {
        let marks = schedules.flatMap(\.boundaries)
        return WallClockEdges.next(after: now, zone: zone, boundaries: marks, horizon: Schedule.horizon) { t in
            schedules.contains { $0.isActive(at: t, zone: zone) }
        }
    }
}

/// A shield locked by a schedule: passes on it are refused (exit 3); the emergency reserve still opens it.
public struct ScheduleLock: UserFacingError, Equatable {
    public var shield: String
    /// The schedule named in the message (a strict one when several hold).
    public var schedule: String
    public var strict: Bool
    /// When the shield is free of every lock window, or nil when never within a week.
    public var until: Int64?
    var untilStamp: Timestamp?
    var nowStamp: Timestamp

    public var kind: FailureKind { .refused }

    /// `18:00`, or `2026-12-07 09:00` when that is not today.
    public var untilText: String {
        guard let untilStamp else { return "the schedule is removed" }
        return untilStamp.localDate == nowStamp.localDate
            ? untilStamp.localClock : "\(untilStamp.localDate) \(untilStamp.localClock)"
    }

    public var message: String {
        "\(shield) is locked by schedule \(schedule) until \(untilText); the emergency reserve still opens it "
            + "('hum emergency')"
    }
}
