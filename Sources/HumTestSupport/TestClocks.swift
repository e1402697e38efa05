import HumCore
import Synchronization

/// A clock a test sets by hand. Thread-safe.
public final class ManualClock: WallClock {
    private let value: Mutex<Int64>
    public init(_ epochSeconds: Int64) { value = Mutex(epochSeconds) }
    public func nowEpochSeconds() -> Int64 { value.withLock { $0 } }
    public func set(_ epochSeconds: Int64) { value.withLock { $0 = epochSeconds } }
    public func advance(_ seconds: Int64) { value.withLock { $0 += seconds } }
}

/// A zone with one offset forever (UTC, or a test's fixed zone).
public struct FixedZone: TimeZoneSeam {
    public var offset: Int32
    public init(offsetSeconds: Int32) { offset = offsetSeconds }
    public func offsetSeconds(atEpoch epochSeconds: Int64) -> Int32 { offset }
}

/// A zone given as a list of transitions: before the first, `initial`; from each transition's instant on, its offset.
/// Models DST and a user moving between zones in tests.
public struct TransitionZone: TimeZoneSeam {
    public var initial: Int32
    public var transitions: [(epoch: Int64, offset: Int32)]

    public init(initial: Int32, transitions: [(epoch: Int64, offset: Int32)]) {
        self.initial = initial
        self.transitions = transitions.sorted { $0.epoch < $1.epoch }
    }

    public func offsetSeconds(atEpoch epochSeconds: Int64) -> Int32 {
        var current = initial
        for t in transitions where t.epoch <= epochSeconds { current = t.offset }
        return current
    }
}
