/// One reading of the two clocks that never jump backwards, taken by the adapter and passed into every call of
/// `FocusMachine.handle(_:at:)`. The core never reads a clock itself.
///
/// On Linux, read `CLOCK_BOOTTIME` and `CLOCK_MONOTONIC` back to back with `clock_gettime`. Both are unaffected by
/// wall-clock changes (NTP steps, the user setting the date, time zones). They differ in one way that matters here:
/// `CLOCK_BOOTTIME` keeps counting while the machine is suspended, `CLOCK_MONOTONIC` does not. The machine runs on
/// boot time, so a round's start, end and deadline stay true to the wall clock, and it reads the difference between
/// the two clocks since its previous call as time spent suspended, which it counts as pause (see `FocusMachine`).
///
/// On a system without a boot-time clock, pass the same value twice (`init(nanoseconds:)`): suspend then goes
/// unnoticed and counts as whatever phase was running.
public struct MonotonicInstant: Hashable, Sendable {
    /// `CLOCK_BOOTTIME` in nanoseconds: includes time spent suspended. The machine's timeline.
    public var boottime: UInt64
    /// `CLOCK_MONOTONIC` in nanoseconds: excludes time spent suspended.
    public var monotonic: UInt64

    public init(boottime: UInt64, monotonic: UInt64) {
        self.boottime = boottime
        self.monotonic = monotonic
    }

    /// A reading where both clocks agree (no suspend since boot, or no boot-time clock): handy in tests.
    public init(nanoseconds: UInt64) {
        self.init(boottime: nanoseconds, monotonic: nanoseconds)
    }

    /// The same reading `duration` later with the machine awake the whole time (both clocks advance equally).
    public func advanced(by duration: Duration) -> MonotonicInstant {
        let ns = UInt64(max(0, FocusTime.nanoseconds(duration)))
        return MonotonicInstant(boottime: boottime + ns, monotonic: monotonic + ns)
    }

    /// The same reading after a suspend of `duration`: only boot time moves.
    public func afterSuspend(of duration: Duration) -> MonotonicInstant {
        let ns = UInt64(max(0, FocusTime.nanoseconds(duration)))
        return MonotonicInstant(boottime: boottime + ns, monotonic: monotonic)
    }
}

/// Conversions between `Duration` and the whole nanoseconds the focus machine counts in.
public enum FocusTime {
    /// Whole nanoseconds in `duration` (sub-nanosecond parts dropped). Saturates at Int64's range.
    public static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }

    /// `duration` in seconds, for audio ramps and display.
    public static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    /// Whole seconds rounded up, as a countdown shows them: 24:59.2 left reads 25:00, and 0 appears only at the end.
    public static func wholeSecondsRoundedUp(_ duration: Duration) -> Int64 {
        let ns = nanoseconds(duration)
        if ns <= 0 { return ns / 1_000_000_000 }
        return (ns - 1) / 1_000_000_000 + 1
    }
}
