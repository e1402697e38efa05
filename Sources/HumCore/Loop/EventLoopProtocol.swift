/// A registered source of an event loop (a descriptor or a set of signals); keep it to change its events or remove
/// it. Only the loop that made it knows what it stands for.
public struct LoopToken: Hashable, Sendable {
    package let id: Int
    package init(id: Int) { self.id = id }
}

/// The clock a loop timer counts on.
public enum LoopClock: Sendable {
    /// Stops while the machine is suspended (CLOCK_MONOTONIC): a delay of the program's own.
    case monotonic
    /// Counts suspend (CLOCK_BOOTTIME): a deadline the user sees, such as the end of a round.
    case boot
    /// The wall clock (CLOCK_REALTIME): with `armAtNextMultiple(of:)`, the turn of the second or minute a clock on
    /// screen shows.
    case wall
}

/// Why a loop could not make a timer, a notifier or a signal source: the call that failed and its errno. Typed, so
/// an adapter turns it into its own error exhaustively; HumSystem's loop maps its `EventLoopError` into it, and a
/// loop with nothing to fail (a test's) never throws it.
public struct LoopError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var code: Int32
    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }
    public var description: String { "\(call) failed (errno \(code))" }
}

/// A deadline on one of the loop's clocks; fires once per arming, on the loop's thread. It stops firing once
/// released.
public protocol LoopTimer: AnyObject {
    /// Fires once, `seconds` from now (at least a microsecond). A new arming replaces the old one.
    func arm(after seconds: Double)
    /// Fires every `seconds`, the first time `seconds` from now.
    func repeating(every seconds: Double)
    /// Fires once, at the next whole multiple of `seconds` on the timer's clock (on `.wall`: the next turn of the
    /// wall clock's second or minute).
    func armAtNextMultiple(of seconds: Int)
    func disarm()
}

/// A wake-up another thread posts to have a handler run on the loop. Posts before the handler runs coalesce into
/// one run.
public protocol LoopNotifier: AnyObject, Sendable {
    /// Safe from any thread.
    func notify()
}

/// What a hum process waits on: descriptors, timers, signals and wake-ups from other threads, with the clocks those
/// timers count on. `EventLoop` in HumSystem is the real one (poll, timerfd, signalfd, eventfd);
/// `ManualEventLoop` in HumTestSupport moves time only when a test says.
///
/// Not thread-safe: everything but `LoopNotifier.notify()` is called on the loop's thread. Descriptors, events and
/// signals are the C library's numbers (`POLLIN` is 1, `SIGTERM` 15 on Linux).
public protocol EventLoopProtocol: AnyObject {
    /// Calls `handler` with the ready events whenever `fd` is ready for `events` (POLLHUP and POLLERR always come).
    @discardableResult
    func watch(_ fd: Int32, events: Int16, handler: @escaping (Int16) -> Void) -> LoopToken
    /// Changes what a descriptor is watched for.
    func update(_ token: LoopToken, events: Int16)
    /// Stops watching a descriptor or taking signals; the descriptor is not closed.
    func remove(_ token: LoopToken)
    /// A disarmed timer on `clock` that runs `handler` on the loop when due.
    func makeTimer(clock: LoopClock, handler: @escaping () -> Void) throws(LoopError) -> any LoopTimer
    /// A notifier that runs `handler` on the loop after `notify()`.
    func makeNotifier(handler: @escaping () -> Void) throws(LoopError) -> any LoopNotifier
    /// Hands each of `signals` to `handler` on the loop instead of its default action (on the real loop: call it
    /// before any thread is started). `remove` stops taking them.
    @discardableResult
    func takeSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws(LoopError) -> LoopToken
    /// Makes the loop return after the handler running now.
    func stop()

    /// Seconds on the clock that stops during suspend (CLOCK_MONOTONIC).
    var monotonicSeconds: Double { get }
    /// Seconds on the clock that counts suspend (CLOCK_BOOTTIME).
    var bootSeconds: Double { get }
    /// The wall clock the loop's `.wall` timers follow.
    var wallClock: any WallClock { get }
}

extension EventLoopProtocol {
    /// Watches `fd` for reading (POLLIN).
    @discardableResult
    public func watch(_ fd: Int32, handler: @escaping (Int16) -> Void) -> LoopToken {
        watch(fd, events: 1, handler: handler)
    }

    /// A disarmed timer on the monotonic clock.
    public func makeTimer(handler: @escaping () -> Void) throws(LoopError) -> any LoopTimer {
        try makeTimer(clock: .monotonic, handler: handler)
    }

    /// Both clocks that never jump back, read together, as the focus machine takes them.
    public var instant: MonotonicInstant {
        MonotonicInstant(
            boottime: UInt64(max(0, bootSeconds * 1e9).rounded()),
            monotonic: UInt64(max(0, monotonicSeconds * 1e9).rounded()))
    }
}
