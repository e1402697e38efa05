/// When a day begins on the wall clock (setting `day.starts-at`, as Workrave's daily limit resets at 04:00): with
/// 04:00, Tuesday 03:59 still belongs to Monday. Midnight by default, which gives the calendar day.
///
/// The day of an instant is read on the wall clock at that instant, as the ledger reads an entry's local day, so with
/// the default it is the same day the ledger writes. When the clock goes back over the boundary (the boundary inside
/// DST's repeated hour), the hour read twice belongs to the day before each time it is read.
public struct DayBoundary: Sendable, Hashable, CustomStringConvertible {
    /// The wall time the day starts at, 00:00 to 23:59.
    public private(set) var start: WallTime

    public static let midnight = DayBoundary(uncheckedStart: WallTime(minutes: 0)!)

    init(uncheckedStart: WallTime) { start = uncheckedStart }

    /// A boundary at `start`, which must be before 24:00.
    public init?(start: WallTime) {
        guard start.minutes < WallTime.endOfDay else { return nil }
        self.start = start
    }

    /// Reads the setting's `HH:MM`; midnight when it cannot be read (the catalogue checked it where it entered).
    public init(settingText text: String) {
        self = (try? WallTime.checked(text)).flatMap { DayBoundary(start: $0) } ?? .midnight
    }

    public var description: String { start.description }

    /// The day instant `t` belongs to, on the wall clock of `zone` at `t`.
    public func day(of t: Int64, zone: any TimeZoneSeam) -> CivilDate {
        day(ofLocal: WallClockEdges.local(t, zone))
    }

    /// The day a recorded instant belongs to, on the wall clock it was recorded with.
    public func day(of stamp: Timestamp) -> CivilDate {
        day(ofLocal: stamp.epochSeconds + Int64(stamp.offsetSeconds))
    }

    func day(ofLocal seconds: Int64) -> CivilDate {
        CivilDate(daysSinceEpoch: floorDiv(seconds - start.seconds, 86_400))
    }

    /// The first instant after `now` that belongs to another day: when "today" changes.
    public func nextDayStart(after now: Int64, zone: any TimeZoneSeam) -> Int64? {
        WallClockEdges.next(after: now, zone: zone, boundaries: [start.seconds], horizon: 3 * 86_400) {
            day(of: $0, zone: zone)
        }
    }
}
