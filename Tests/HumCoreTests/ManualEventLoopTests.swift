import Foundation
import HumCore
import HumTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The test loop that code written against `EventLoopProtocol` runs on: time moves only when the test says.
@Suite struct ManualEventLoopTests {
    /// Code under test sees only the protocol.
    private func timer(_ loop: any EventLoopProtocol, _ clock: LoopClock = .monotonic, _ handler: @escaping () -> Void)
        -> any LoopTimer
    {
        try! loop.makeTimer(clock: clock, handler: handler)
    }

    @Test func timersFireInDeadlineOrderWithTheClockAtTheirDeadline() {
        let loop = ManualEventLoop(monotonicSeconds: 100)
        var fired: [(String, Double)] = []
        let late = timer(loop) { fired.append(("late", loop.monotonicSeconds)) }
        let early = timer(loop) { fired.append(("early", loop.monotonicSeconds)) }
        let beyond = timer(loop) { fired.append(("beyond", loop.monotonicSeconds)) }
        late.arm(after: 3)
        early.arm(after: 1.5)
        beyond.arm(after: 10)
        #expect(loop.nextDeadline == 101.5)
        #expect(loop.advance(by: 5) == 2)
        #expect(fired.map(\.0) == ["early", "late"])
        #expect(fired.map(\.1) == [101.5, 103])
        #expect(loop.monotonicSeconds == 105)
        #expect(loop.nextDeadline == 110)
        loop.advance(to: 110)
        #expect(fired.map(\.0) == ["early", "late", "beyond"])
        #expect(loop.nextDeadline == nil)
    }

    @Test func timersDueAtOnceFireInTheOrderTheyWereArmed() {
        let loop = ManualEventLoop()
        var fired: [Int] = []
        let timers = (0..<4).map { i in timer(loop) { fired.append(i) } }
        for i in [2, 0, 3, 1] { timers[i].arm(after: 1) }
        loop.advance(by: 1)
        #expect(fired == [2, 0, 3, 1])
    }

    @Test func disarmAndReleaseStopATimerAndArmingAgainReplacesTheDeadline() {
        let loop = ManualEventLoop(monotonicSeconds: 0)
        var fired: [String] = []
        let disarmed = timer(loop) { fired.append("disarmed") }
        var released: (any LoopTimer)? = timer(loop) { fired.append("released") }
        let moved = timer(loop) { fired.append("moved at \(loop.monotonicSeconds)") }
        disarmed.arm(after: 1)
        disarmed.disarm()
        released?.arm(after: 1)
        released = nil
        moved.arm(after: 1)
        moved.arm(after: 4)
        #expect(loop.armedTimers == 1)
        loop.advance(by: 3)
        #expect(fired.isEmpty)
        loop.advance(by: 3)
        #expect(fired == ["moved at 4.0"])
    }

    @Test func aRepeatingTimerFiresOncePerPeriodOnItsGrid() {
        let loop = ManualEventLoop(monotonicSeconds: 0)
        var at: [Double] = []
        let tick = timer(loop) { at.append(loop.monotonicSeconds) }
        tick.repeating(every: 0.1)
        loop.advance(by: 1)
        // Whole nanoseconds inside: ten periods of 0.1 s end exactly at 1 s.
        #expect(at.count == 10)
        #expect(at.last == 1)
        loop.advance(by: 0.25)
        #expect(at.count == 12)
        tick.disarm()
        loop.advance(by: 1)
        #expect(at.count == 12)
    }

    @Test func aTimerArmedByAHandlerWithinTheWindowFiresInIt() {
        let loop = ManualEventLoop(monotonicSeconds: 0)
        var fired: [Double] = []
        var second: (any LoopTimer)?
        let first = timer(loop) {
            fired.append(loop.monotonicSeconds)
            second?.arm(after: 2)
        }
        second = timer(loop) { fired.append(loop.monotonicSeconds) }
        first.arm(after: 1)
        loop.advance(by: 5)
        #expect(fired == [1, 3])
        // A handler that arms itself at once fires at the next microsecond, not within its own run.
        var rounds = 0
        var again: (any LoopTimer)?
        again = timer(loop) {
            rounds += 1
            if rounds < 3 { again?.arm(after: 0) }
        }
        again?.arm(after: 0)
        loop.advance(by: 0)
        #expect(rounds == 0)
        loop.advance(by: 0.001)
        #expect(rounds == 3)
    }

    @Test func aSuspendMovesBootAndWallTimeButNotMonotonicTime() {
        let loop = ManualEventLoop(monotonicSeconds: 50, bootSeconds: 60, wallEpochSeconds: 1_000_000)
        var fired: [String] = []
        let delay = timer(loop, .monotonic) { fired.append("monotonic") }
        let deadline = timer(loop, .boot) { fired.append("boot at \(loop.bootSeconds)") }
        delay.arm(after: 30)
        deadline.arm(after: 30)
        loop.suspend(for: 600)
        #expect(loop.monotonicSeconds == 50)
        #expect(loop.bootSeconds == 660)
        #expect(loop.wallClock.nowEpochSeconds() == 1_000_600)
        #expect(loop.instant.boottime - loop.instant.monotonic == 610_000_000_000)
        // Due while asleep: runs at the waking; the monotonic delay still has its 30 s to go.
        #expect(fired == ["boot at 660.0"])
        loop.advance(by: 29)
        #expect(fired.count == 1)
        loop.advance(by: 1)
        #expect(fired.last == "monotonic")
    }

    @Test func theWallClockMovesWithTimeAndTurnsOnWholeMinutes() {
        let loop = ManualEventLoop(monotonicSeconds: 0, wallEpochSeconds: 1_000_030)
        var at: [Int64] = []
        var minute: (any LoopTimer)?
        minute = timer(loop, .wall) {
            at.append(loop.wallClock.nowEpochSeconds())
            minute?.armAtNextMultiple(of: 60)
        }
        minute?.armAtNextMultiple(of: 60)
        // 1_000_020 is a whole minute.
        #expect(loop.nextDeadline == 50)
        loop.advance(by: 150)
        #expect(at == [1_000_080, 1_000_140])
        #expect(loop.wallSeconds == 1_000_180)
        // The user sets the clock forward over the next minute: the wall timer fires at once.
        loop.setWallClock(to: 1_000_300)
        #expect(at.last == 1_000_300)
        #expect(loop.monotonicSeconds == 150)
    }

    @Test func aNotifyFromAnotherThreadRunsAtRunPendingOnce() async {
        let loop = ManualEventLoop()
        var runs = 0
        let notifier = try! loop.makeNotifier { runs += 1 }
        #expect(loop.runPending() == 0)
        await Task.detached {
            notifier.notify()
            notifier.notify()
        }.value
        #expect(runs == 0, "nothing runs before the loop does")
        #expect(loop.runPending() == 1)
        #expect(runs == 1, "two posts before the loop ran: one run")
        #expect(loop.runPending() == 0)
    }

    @Test func aPipesReadableEndIsHandledWithoutSleeping() throws {
        let loop = ManualEventLoop()
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { for fd in ends { close(fd) } }
        var read: [UInt8] = []
        let token = loop.watch(ends[0]) { _ in
            var buffer = [UInt8](repeating: 0, count: 16)
            let n = Glibc.read(ends[0], &buffer, 16)
            if n > 0 { read += buffer[0..<n] }
        }
        #expect(loop.runPending() == 0)
        var bytes: [UInt8] = [7, 8]
        write(ends[1], &bytes, 2)
        #expect(loop.runPending() == 1)
        #expect(read == [7, 8])
        // Watched for nothing but hang-ups: the bytes wait.
        loop.update(token, events: 0)
        write(ends[1], &bytes, 1)
        #expect(loop.runPending() == 0)
        loop.update(token, events: 1)
        // Advancing runs what is ready, too.
        loop.advance(by: 1)
        #expect(read == [7, 8, 7])
        loop.remove(token)
        write(ends[1], &bytes, 1)
        #expect(loop.runPending() == 0)
    }

    @Test func signalsGoToTheHandlersThatTakeThem() throws {
        let loop = ManualEventLoop()
        var got: [Int32] = []
        let token = try loop.takeSignals([15, 1]) { got.append($0) }
        #expect(loop.deliver(signal: 15))
        #expect(!loop.deliver(signal: 10))
        #expect(loop.deliver(signal: 1))
        #expect(got == [15, 1])
        loop.remove(token)
        #expect(!loop.deliver(signal: 15))
    }

    @Test func aHandlerThatStopsTheLoopHoldsTimeAtItsRun() {
        let loop = ManualEventLoop(monotonicSeconds: 0)
        var fired: [String] = []
        let end = timer(loop) {
            fired.append("end")
            loop.stop()
        }
        let after = timer(loop) { fired.append("after") }
        end.arm(after: 2)
        after.arm(after: 3)
        loop.advance(by: 10)
        #expect(loop.stopped)
        #expect(fired == ["end"])
        #expect(loop.monotonicSeconds == 2)
        loop.stopped = false
        loop.advance(by: 10)
        #expect(fired == ["end", "after"])
        #expect(loop.monotonicSeconds == 12)
    }
}
