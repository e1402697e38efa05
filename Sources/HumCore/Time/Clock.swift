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

    /// The first instant of a local calendar day (local midnight, or the first instant after it when a DST jump
    /// skips midnight).
    public func startOfDay(_ date: CivilDate) -> Int64 {
        let local = date.daysSinceEpoch * 86_400
        // Two rounds find the offset in force at that wall-clock time; a skipped midnight lands just after the gap.
        var guess = local - Int64(zone.offsetSeconds(atEpoch: local))
        guess = local - Int64(zone.offsetSeconds(atEpoch: guess))
        if stamp(guess).localDate < date { guess += 3600 }  // inside a gap: move past it
        return guess
    }
}
