/// Finding when a rule on the local wall clock next changes, in instants, for any time zone: one that keeps its
/// offset, one with DST, one the user moves between.
///
/// A rule read on the wall clock (a schedule's window, the day boundary) changes only where the local time of day
/// crosses one of its boundaries, or where the offset itself jumps (DST, a new zone): the clock can jump into or out
/// of a window. Between two jumps the offset is constant, so the crossings are plain arithmetic; the jumps are found
/// by asking the zone every quarter hour and bisecting where the answer changes (as `LocalCalendar` does), so two
/// offset changes less than 15 minutes apart can be missed: no real zone has them.
public enum WallClockEdges {
    /// How far apart the zone is asked.
    static let step: Int64 = 900

    /// The wall-clock seconds since 1970-01-01 00:00 local at instant `t`.
    public static func local(_ t: Int64, _ zone: any TimeZoneSeam) -> Int64 {
        t + Int64(zone.offsetSeconds(atEpoch: t))
    }

    /// The local date and second of day at instant `t`.
    public static func wallClock(_ t: Int64, _ zone: any TimeZoneSeam) -> (date: CivilDate, second: Int64) {
        let l = local(t, zone)
        return (CivilDate(daysSinceEpoch: floorDiv(l, 86_400)), floorMod(l, 86_400))
    }

    /// The first instant in `(now, now + horizon]` at which `value` differs from `value(now)`, or nil.
    ///
    /// `value` must depend on the instant only through its local wall-clock time, and change only where the time of
    /// day crosses one of `boundaries` (seconds since local midnight, 0 ..< 86400) or where the offset changes.
    public static func next<V: Equatable>(
        after now: Int64, zone: any TimeZoneSeam, boundaries: [Int64], horizon: Int64, value: (Int64) -> V
    ) -> Int64? {
        let start = value(now)
        let end = now.adding(saturating: horizon)
        let marks = Set(boundaries.map { floorMod($0, 86_400) }).sorted()
        var segmentStart = now
        var offset = Int64(zone.offsetSeconds(atEpoch: now))
        while segmentStart < end {
            // The segment runs while the offset stays `offset`: to the next jump, or past the horizon.
            let segmentEnd = nextJump(after: segmentStart, offset: offset, zone: zone, until: end)
            var day = floorDiv(segmentStart + offset, 86_400)
            scan: while true {
                for mark in marks {
                    let t = day * 86_400 + mark - offset
                    if t >= segmentEnd || t > end { break scan }
                    if t > segmentStart, value(t) != start { return t }
                }
                day += 1
            }
            guard segmentEnd <= end else { return nil }
            if value(segmentEnd) != start { return segmentEnd }
            segmentStart = segmentEnd
            offset = Int64(zone.offsetSeconds(atEpoch: segmentEnd))
        }
        return nil
    }

    /// The first instant after `t` whose offset is not `offset`, or `until + 1` when there is none up to `until`.
    static func nextJump(after t: Int64, offset: Int64, zone: any TimeZoneSeam, until: Int64) -> Int64 {
        var low = t
        while low < until {
            let high = min(low + step, until)
            if Int64(zone.offsetSeconds(atEpoch: high)) != offset {
                var (a, b) = (low, high)
                while b - a > 1 {
                    let mid = a + (b - a) / 2
                    if Int64(zone.offsetSeconds(atEpoch: mid)) == offset { a = mid } else { b = mid }
                }
                return b
            }
            low = high
        }
        return until + 1
    }
}

/// UTC: the zone `ShieldInputs` assumes until the store hands in the real one.
public struct UTCZone: TimeZoneSeam {
    public init() {}
    public func offsetSeconds(atEpoch epochSeconds: Int64) -> Int32 { 0 }
}
