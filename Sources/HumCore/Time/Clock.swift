/// The wall clock, as seen by the ledger: "what instant is it now". The real one lives in the adapters (HumStore);
/// tests use `ManualClock`.
///
/// Contract: returns whole seconds since the Unix epoch; may jump (the user sets the clock), so nothing in the
/// ledger assumes it is monotonic. Durations that must not jump (a round, a pass) are measured by their owners with a
/// monotonic clock and handed in as seconds.
public protocol WallClock: Sendable {
    func nowEpochSeconds() -> Int64
}

/// The local time zone, as a function from an instant to the UTC offset in force at that instant.
///
/// Contract: total (an offset for every instant), within ±23:59. The real one asks the C library (`localtime_r`), so a
/// change of `TZ` or of `/etc/localtime` shows up on the next call; tests use `FixedZone` or `TransitionZone`.
public protocol TimeZoneSeam: Sendable {
    func offsetSeconds(atEpoch epochSeconds: Int64) -> Int32
}

/// Clock and zone together: the only way the ledger learns "now", "today" and "this week".
public struct LocalCalendar: Sendable {
    public var clock: any WallClock
    public var zone: any TimeZoneSeam

    public init(clock: any WallClock, zone: any TimeZoneSeam) {
        self.clock = clock
        self.zone = zone
    }

    /// Now, stamped with the offset in force now.
    public func now() -> Timestamp { stamp(clock.nowEpochSeconds()) }

    /// An instant stamped with the offset in force at that instant.
    public func stamp(_ epochSeconds: Int64) -> Timestamp {
        Timestamp(epochSeconds: epochSeconds, offsetSeconds: zone.offsetSeconds(atEpoch: epochSeconds))
    }

    /// The instant a local wall-clock time names on a local day (`yesterday 14:00`). When the clock jumps over that
    /// time (a DST gap) it is the first instant after the jump; when the time happens twice (the clock goes back),
    /// the first of the two.
    public func instant(on date: CivilDate, secondsOfDay: Int64) -> Int64 {
        let local = date.daysSinceEpoch * 86_400 + secondsOfDay
        func localSeconds(_ t: Int64) -> Int64 { t + Int64(zone.offsetSeconds(atEpoch: t)) }
        // Every offset in force within a day either side is a candidate; the earliest instant that shows this
        // wall-clock time wins (the first of two when the clock went back).
        let offsets = Set(
            stride(from: local - 86_400, through: local + 86_400, by: 900).map { zone.offsetSeconds(atEpoch: $0) })
        let shown = offsets.map { local - Int64($0) }.filter { localSeconds($0) == local }
        if let first = shown.min() { return first }
        // In a gap: the first instant whose local time is past it.
        var (low, high) = (local - 86_400, local + 86_400)
        while high - low > 1 {
            let mid = low + (high - low) / 2
            if localSeconds(mid) >= local { high = mid } else { low = mid }
        }
        return high
    }

    /// The first instant of a local calendar day: local midnight, or the first instant after it when the clock
    /// jumps over midnight (a DST gap), or when the zone skips the whole day (Samoa went from 2011-12-29 to
    /// 2011-12-31): then the day "starts", empty, where the next one does. Precisely, the first instant whose local
    /// date is `date` or later.
    public func startOfDay(_ date: CivilDate) -> Int64 {
        let local = date.daysSinceEpoch * 86_400
        func reached(_ t: Int64) -> Bool { stamp(t).localDate >= date }
        // Two rounds find the offset in force at that wall-clock time: right whenever midnight exists.
        var guess = local - Int64(zone.offsetSeconds(atEpoch: local))
        guess = local - Int64(zone.offsetSeconds(atEpoch: guess))
        if reached(guess) && !reached(guess - 1) { return guess }
        // Midnight fell in a jump of the clock. Offsets are within ±23:59, so the answer lies within a day either
        // side of `local`: walk it in quarter hours to the first step that reaches the date, then bisect that step.
        var low = local - 86_400  // its local date is always before `date`
        while low < local + 86_400 {
            let high = low + 900
            if reached(high) {
                var (a, b) = (low, high)
                while b - a > 1 {
                    let mid = a + (b - a) / 2
                    if reached(mid) { b = mid } else { a = mid }
                }
                return b
            }
            low = high
        }
        return local + 86_400  // unreachable: a day later, every offset has reached the date
    }
}
