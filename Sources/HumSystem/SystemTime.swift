import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The machine's wall clock (CLOCK_REALTIME).
public struct SystemClock: WallClock {
    public init() {}
    public func nowEpochSeconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec)
    }
}

/// The machine's local time zone through the C library (`TZ`, or /etc/localtime), asked at each instant.
public struct SystemZone: TimeZoneSeam {
    public init() { tzset() }
    public func offsetSeconds(atEpoch epochSeconds: Int64) -> Int32 {
        var t = time_t(epochSeconds)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return 0 }
        return Int32(clamping: parts.tm_gmtoff)
    }
}

extension LocalCalendar {
    /// The machine's clock and zone.
    public static var system: LocalCalendar { LocalCalendar(clock: SystemClock(), zone: SystemZone()) }
}

/// Seconds on a clock that never jumps and stops during suspend (CLOCK_MONOTONIC): for measuring a pass or a round.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
