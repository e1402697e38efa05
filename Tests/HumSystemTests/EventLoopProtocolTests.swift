import Foundation
import HumCore
import HumSystem
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real loop behind HumCore's seam: what code written against `EventLoopProtocol` gets in hum.
@Suite(.serialized) struct EventLoopProtocolTests {
    @Test func theRealLoopFiresATimerAndANotifierThroughTheProtocol() throws {
        let real = EventLoop()
        let loop: any EventLoopProtocol = real
        var events: [String] = []
        let start = loop.monotonicSeconds
        let timer = try loop.makeTimer(clock: .boot) {
            events.append("timer")
            loop.stop()
        }
        let notifier = try loop.makeNotifier { events.append("notified") }
        timer.arm(after: 0.03)
        let thread = Thread { notifier.notify() }
        thread.start()
        // Bounded: a broken timer fails the test instead of hanging it.
        let deadline = monotonicSeconds() + 2
        while events.last != "timer", monotonicSeconds() < deadline {
            real.turn(timeoutMilliseconds: 100)
        }
        #expect(events == ["notified", "timer"])
        let elapsed = loop.monotonicSeconds - start
        #expect(elapsed >= 0.025 && elapsed < 2)
        // Boot time counts suspend as well: never behind the monotonic clock read before it.
        let monotonic = loop.monotonicSeconds
        #expect(loop.bootSeconds >= monotonic)
        #expect(abs(loop.wallClock.nowEpochSeconds() - SystemClock().nowEpochSeconds()) <= 1)
    }

    @Test func aWallTimerTurnsWithTheWallClocksSecond() throws {
        let real = EventLoop()
        let loop: any EventLoopProtocol = real
        var at: Double? = nil
        let timer = try loop.makeTimer(clock: .wall) {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            at = Double(now.tv_nsec) / 1e9
        }
        timer.armAtNextMultiple(of: 1)
        let deadline = monotonicSeconds() + 3
        while at == nil, monotonicSeconds() < deadline {
            real.turn(timeoutMilliseconds: 100)
        }
        // Fired just after a whole second of the wall clock.
        let fraction = try #require(at)
        #expect(fraction < 0.2)
    }
}
