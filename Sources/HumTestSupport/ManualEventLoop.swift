import HumCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An event loop whose time moves only when the test says, as swift-nio's embedded loop does: code written against
/// `EventLoopProtocol` runs a whole focus session in milliseconds. `advance(by:)` fires the timers due in deadline
/// order with the clocks set to each deadline; `suspend(for:)` is a laptop's sleep; `runPending()` runs what other
/// threads posted and the handlers of real descriptors that are ready (a pipe, a socketpair), without sleeping;
/// `deliver(signal:)` is a signal.
///
/// Between timers, and before the first, it runs pending work as the real loop would, since that wakes for whatever
/// is ready. Once a handler calls `stop()` it dispatches nothing more, and time stands at that handler, until the
/// test sets `stopped` back to false (the real loop's `run` returns there).
///
/// Not thread-safe, but for `notify()` on its notifiers.
public final class ManualEventLoop: EventLoopProtocol {
    /// Time in whole nanoseconds, so a period added up (0.1 s ten times) lands on its deadline exactly.
    private var monotonicNanos: Int64
    private var bootNanos: Int64
    private var wallNanos: Int64
    /// The wall clock's whole seconds, kept in step with the loop's time; move it with `setWallClock(to:)`.
    public let clock: ManualClock
    /// Set by `stop()`; the test sets it back to false to go on.
    public var stopped = false

    private struct Watched {
        var fd: Int32
        var events: Int16
        var handler: (Int16) -> Void
    }

    fileprivate struct TimerState {
        /// The clock the timer was made on.
        var clock: LoopClock
        /// The clock `deadline` is on: a relative arming of a wall-clock timer counts like a monotonic one, as
        /// Linux does (POSIX says relative timers ignore the clock being set).
        var counting: LoopClock
        var deadline: Int64?
        var period: Int64?
        /// Order of arming: of two timers due at once, the first armed fires first.
        var sequence = 0
        var handler: () -> Void
    }

    private struct NotifierEntry {
        weak var notifier: ManualNotifier?
        var handler: () -> Void
    }

    private struct SignalEntry {
        var signals: Set<Int32>
        var handler: (Int32) -> Void
    }

    private var watched: [Int: Watched] = [:]
    private var signalSources: [Int: SignalEntry] = [:]
    fileprivate var timers: [Int: TimerState] = [:]
    private var notifiers: [Int: NotifierEntry] = [:]
    private var nextID = 0
    private var armings = 0

    /// A loop at the given readings: boot time defaults to the monotonic reading (no suspend yet), the wall clock
    /// to 2023-11-14 22:13:20 UTC.
    public init(monotonicSeconds: Double = 1000, bootSeconds: Double? = nil, wallEpochSeconds: Int64 = 1_700_000_000) {
        monotonicNanos = Self.nanos(monotonicSeconds)
        bootNanos = Self.nanos(bootSeconds ?? monotonicSeconds)
        wallNanos = wallEpochSeconds * 1_000_000_000
        clock = ManualClock(wallEpochSeconds)
    }

    private static func nanos(_ seconds: Double) -> Int64 { Int64((seconds * 1e9).rounded()) }

    private func take() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    // MARK: The clocks

    public var monotonicSeconds: Double { Double(monotonicNanos) / 1e9 }
    public var bootSeconds: Double { Double(bootNanos) / 1e9 }
    /// The wall clock to the nanosecond (`clock` shows whole seconds).
    public var wallSeconds: Double { Double(wallNanos) / 1e9 }
    public var wallClock: any WallClock { clock }

    private func now(_ clock: LoopClock) -> Int64 {
        switch clock {
        case .monotonic: monotonicNanos
        case .boot: bootNanos
        case .wall: wallNanos
        }
    }

    private func move(monotonic: Int64, boot: Int64, wall: Int64) {
        monotonicNanos += monotonic
        bootNanos += boot
        wallNanos += wall
        clock.set(wallNanos / 1_000_000_000)
    }

    // MARK: Driving time

    /// The monotonic reading at which the next armed timer fires if the machine stays awake; nil when none is armed.
    public var nextDeadline: Double? {
        dueNext().map { Double(monotonicNanos + max(0, $0.remaining)) / 1e9 }
    }

    /// How many timers are armed.
    public var armedTimers: Int { timers.values.count(where: { $0.deadline != nil }) }

    /// Moves all three clocks `seconds` forward, firing every timer due on the way in deadline order with the clocks
    /// at its deadline; what a handler arms within the window fires too, and repeating timers fire once per period.
    /// Returns the number of handlers run (timers, notifications, descriptors).
    @discardableResult
    public func advance(by seconds: Double) -> Int {
        precondition(seconds >= 0, "time does not go back")
        var ran = runPending()
        let end = monotonicNanos + Self.nanos(seconds)
        while !stopped, let next = dueNext(), monotonicNanos + max(0, next.remaining) <= end {
            let step = max(0, next.remaining)
            move(monotonic: step, boot: step, wall: step)
            fire(next.id)
            ran += 1 + runPending()
        }
        if !stopped {
            let step = end - monotonicNanos
            move(monotonic: step, boot: step, wall: step)
        }
        return ran
    }

    /// Advances to a monotonic reading (nothing happens if it is already past).
    @discardableResult
    public func advance(to monotonicSeconds: Double) -> Int {
        advance(by: max(0, monotonicSeconds - self.monotonicSeconds))
    }

    /// The machine sleeps for `seconds`: boot time and the wall clock move, the monotonic clock does not. On waking,
    /// the timers due on boot time or the wall clock fire once each (a repeating one once, however many periods it
    /// slept through), with the clocks at the waking.
    @discardableResult
    public func suspend(for seconds: Double) -> Int {
        precondition(seconds >= 0, "time does not go back")
        let step = Self.nanos(seconds)
        move(monotonic: 0, boot: step, wall: step)
        return fireDue()
    }

    /// Sets the wall clock (the user, or NTP, setting the date); boot and monotonic time do not move. Timers at a
    /// point on the wall clock (`armAtNextMultiple`) that it passes fire.
    @discardableResult
    public func setWallClock(to epochSeconds: Int64) -> Int {
        move(monotonic: 0, boot: 0, wall: epochSeconds * 1_000_000_000 - wallNanos)
        return fireDue()
    }

    private func fireDue() -> Int {
        var ran = runPending()
        while !stopped, let next = dueNext(), next.remaining <= 0 {
            fire(next.id)
            ran += 1 + runPending()
        }
        return ran
    }

    private func dueNext() -> (id: Int, remaining: Int64)? {
        var best: (id: Int, remaining: Int64, sequence: Int)?
        for (id, timer) in timers {
            guard let deadline = timer.deadline else { continue }
            let remaining = deadline - now(timer.counting)
            if let b = best, (b.remaining, b.sequence) <= (remaining, timer.sequence) { continue }
            best = (id, remaining, timer.sequence)
        }
        return best.map { ($0.id, $0.remaining) }
    }

    private func fire(_ id: Int) {
        guard var timer = timers[id], let deadline = timer.deadline else { return }
        if let period = timer.period {
            // Periods slept through collapse into this one run, as a timerfd's expiration count does on the real loop.
            let current = now(timer.counting)
            var next = deadline + period
            if next <= current { next += ((current - next) / period + 1) * period }
            timer.deadline = next
        } else {
            timer.deadline = nil
        }
        timers[id] = timer
        timer.handler()
    }

    fileprivate func arm(_ id: Int, clock: LoopClock, at deadline: Int64, period: Int64?) {
        armings += 1
        timers[id]?.counting = clock
        timers[id]?.deadline = deadline
        timers[id]?.period = period
        timers[id]?.sequence = armings
    }

    fileprivate func armRelative(_ id: Int, after seconds: Double, repeating: Bool) {
        // As the real timer: at least a microsecond, so a handler arming "now" does not fire within its own run.
        let delay = max(Self.nanos(seconds), 1000)
        let counting: LoopClock = timers[id]?.clock == .boot ? .boot : .monotonic
        arm(id, clock: counting, at: now(counting) + delay, period: repeating ? delay : nil)
    }

    fileprivate func armAtNextMultiple(_ id: Int, of seconds: Int) {
        guard let clock = timers[id]?.clock else { return }
        let step = Int64(max(seconds, 1)) * 1_000_000_000
        arm(id, clock: clock, at: (now(clock) / step + 1) * step, period: nil)
    }

    // MARK: Pending work

    /// Runs the handlers of notifiers posted to (once each, however many posts) and of watched descriptors that are
    /// ready now (a zero-timeout poll), again and again until a round runs nothing, or 1000 rounds (a handler that
    /// never drains its descriptor). Returns the number of handlers run.
    @discardableResult
    public func runPending() -> Int {
        var ran = 0
        for _ in 0..<1000 {
            guard !stopped else { break }
            let round = runNotifications() + runReadyDescriptors()
            ran += round
            if round == 0 { break }
        }
        return ran
    }

    private func runNotifications() -> Int {
        var ran = 0
        for id in notifiers.keys.sorted() {
            guard !stopped, let entry = notifiers[id] else { continue }
            guard let notifier = entry.notifier else {
                notifiers[id] = nil
                continue
            }
            if notifier.posted.exchange(false, ordering: .acquiringAndReleasing) {
                entry.handler()
                ran += 1
            }
        }
        return ran
    }

    private func runReadyDescriptors() -> Int {
        guard !stopped, !watched.isEmpty else { return 0 }
        let ids = watched.keys.sorted()
        var polled = ids.map { pollfd(fd: watched[$0]!.fd, events: watched[$0]!.events, revents: 0) }
        guard poll(&polled, nfds_t(polled.count), 0) > 0 else { return 0 }
        var ran = 0
        for (i, id) in ids.enumerated() where polled[i].revents != 0 {
            // A handler earlier in this round may have removed this one, or stopped the loop.
            guard !stopped, let source = watched[id] else { continue }
            source.handler(polled[i].revents)
            ran += 1
        }
        return ran
    }

    /// Runs the handlers that take `signal`, at once; false when none does (the real process would have had the
    /// signal's default action).
    @discardableResult
    public func deliver(signal: Int32) -> Bool {
        let takers = signalSources.keys.sorted().filter { signalSources[$0]!.signals.contains(signal) }
        for id in takers { signalSources[id]?.handler(signal) }
        return !takers.isEmpty
    }

    // MARK: EventLoopProtocol

    @discardableResult
    public func watch(_ fd: Int32, events: Int16, handler: @escaping (Int16) -> Void) -> LoopToken {
        let id = take()
        watched[id] = Watched(fd: fd, events: events, handler: handler)
        return LoopToken(id: id)
    }

    public func update(_ token: LoopToken, events: Int16) {
        watched[token.id]?.events = events
    }

    public func remove(_ token: LoopToken) {
        watched[token.id] = nil
        signalSources[token.id] = nil
    }

    public func makeTimer(clock: LoopClock, handler: @escaping () -> Void) throws(LoopError) -> any LoopTimer {
        let id = take()
        timers[id] = TimerState(clock: clock, counting: clock, handler: handler)
        return ManualTimer(loop: self, id: id)
    }

    public func makeNotifier(handler: @escaping () -> Void) throws(LoopError) -> any LoopNotifier {
        let notifier = ManualNotifier()
        notifiers[take()] = NotifierEntry(notifier: notifier, handler: handler)
        return notifier
    }

    @discardableResult
    public func takeSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws(LoopError) -> LoopToken {
        let id = take()
        signalSources[id] = SignalEntry(signals: Set(signals), handler: handler)
        return LoopToken(id: id)
    }

    public func stop() { stopped = true }
}

/// A timer of the manual loop; released, it stops firing (as the real one closes its timerfd).
private final class ManualTimer: LoopTimer {
    let loop: ManualEventLoop  // kept alive, as the real timer keeps its loop
    let id: Int

    init(loop: ManualEventLoop, id: Int) {
        self.loop = loop
        self.id = id
    }

    deinit { loop.timers[id] = nil }

    func arm(after seconds: Double) { loop.armRelative(id, after: seconds, repeating: false) }
    func repeating(every seconds: Double) { loop.armRelative(id, after: seconds, repeating: true) }
    func armAtNextMultiple(of seconds: Int) { loop.armAtNextMultiple(id, of: seconds) }
    func disarm() { loop.timers[id]?.deadline = nil }
}

/// A post another thread makes; the loop takes it in `runPending`. An atomic flag, so posts coalesce as an eventfd's
/// count is read at once on the real loop.
private final class ManualNotifier: LoopNotifier {
    let posted = Atomic<Bool>(false)
    func notify() { posted.store(true, ordering: .releasing) }
}
