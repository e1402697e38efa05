import CLinux
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The real loop behind HumCore's seam: timers are timerfds on the matching clock, notifiers eventfds, signals a
/// signalfd; its clocks are the machine's. The concrete methods stay for callers that need the descriptors or
/// `SignalSource`.
extension EventLoop: EventLoopProtocol {
    public func makeTimer(clock: LoopClock, handler: @escaping () -> Void) throws(LoopError) -> any LoopTimer {
        let id: Int32
        switch clock {
        case .monotonic: id = CLOCK_MONOTONIC
        case .boot: id = CLOCK_BOOTTIME
        case .wall: id = CLOCK_REALTIME
        }
        do { return try timer(clock: id, handler: handler) } catch { throw error.loopError }
    }

    public func makeNotifier(handler: @escaping () -> Void) throws(LoopError) -> any LoopNotifier {
        do { return try notifier(handler: handler) } catch { throw error.loopError }
    }

    @discardableResult
    public func takeSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws(LoopError) -> LoopToken {
        do { return try self.signals(signals, handler: handler) } catch { throw error.loopError }
    }

    public var monotonicSeconds: Double { Self.read(CLOCK_MONOTONIC) }
    public var bootSeconds: Double { Self.read(CLOCK_BOOTTIME) }
    public var wallClock: any WallClock { SystemClock() }

    private static func read(_ clock: Int32) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

extension EventLoop.Timer: LoopTimer {}
extension EventLoop.Notifier: LoopNotifier {}

extension EventLoopError {
    /// The same failure in HumCore's terms.
    public var loopError: LoopError { LoopError(call: call, code: code) }
}
