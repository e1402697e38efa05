import Foundation
import HumSystem
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.serialized) struct EventLoopTests {
    @Test func timersFireOnceEachInDeadlineOrderAndTheLoopSleepsBetween() throws {
        let loop = EventLoop()
        var fired: [String] = []
        let late = try loop.timer {
            fired.append("late")
            loop.stop()
        }
        let early = try loop.timer { fired.append("early") }
        let disarmed = try loop.timer { fired.append("disarmed") }
        late.arm(after: 0.06)
        early.arm(after: 0.02)
        disarmed.arm(after: 0.01)
        disarmed.disarm()
        let start = monotonicSeconds()
        var turns = 0
        while fired.last != "late" {
            turns += loop.turn(timeoutMilliseconds: 1000) > 0 ? 1 : 0
        }
        let elapsed = monotonicSeconds() - start
        #expect(fired == ["early", "late"])
        #expect(turns == 2, "one wake-up per deadline, none in between")
        #expect(elapsed >= 0.055 && elapsed < 0.5)
    }

    @Test func aRepeatingTimerKeepsItsPeriod() throws {
        let loop = EventLoop()
        var ticks = 0
        let timer = try loop.timer {
            ticks += 1
            if ticks == 5 { loop.stop() }
        }
        timer.repeating(every: 0.01)
        let start = monotonicSeconds()
        loop.run()
        #expect(ticks == 5)
        #expect(monotonicSeconds() - start >= 0.045)
    }

    @Test func anotherThreadWakesTheLoopThroughANotifier() throws {
        let loop = EventLoop()
        var woken = 0
        let notifier = try loop.notifier {
            woken += 1
            loop.stop()
        }
        let thread = Thread {
            usleep(20_000)  // a time: the loop is asleep in run when the notice comes
            notifier.notify()
        }
        thread.start()
        loop.run()
        #expect(woken == 1)
    }

    @Test func signalsArriveAsEventsNotInterruptions() throws {
        let loop = EventLoop()
        var got: [Int32] = []
        try loop.signals([SIGUSR1]) { signal in
            got.append(signal)
            loop.stop()
        }
        raise(SIGUSR1)
        loop.run()
        #expect(got == [SIGUSR1])
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGUSR1)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// A supervisor's signals: one that comes before there is a handler waits for the loop; on close, one not taken
    /// is dropped (SIGUSR2's default would end the test process) and the mask is as it was.
    @Test func aSignalSourceKeepsEarlySignalsAndGivesTheMaskBack() throws {
        // This thread may have inherited a mask with SIGUSR2 blocked (from a test that blocks it, see
        // InterruptCleanup): unblocked here, as it was found afterwards.
        var usr2 = sigset_t()
        sigemptyset(&usr2)
        sigaddset(&usr2, SIGUSR2)
        var found = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &usr2, &found)
        defer { pthread_sigmask(SIG_SETMASK, &found, nil) }
        let loop = EventLoop()
        var mask = sigset_t()
        pthread_sigmask(SIG_SETMASK, nil, &mask)
        #expect(sigismember(&mask, SIGUSR2) == 0)
        let source = try loop.signalSource([SIGUSR2])
        raise(SIGUSR2)
        var got: [Int32] = []
        source.handler = { signal in
            got.append(signal)
            loop.stop()
        }
        loop.run()
        #expect(got == [SIGUSR2])
        raise(SIGUSR2)
        source.close()
        source.close()
        pthread_sigmask(SIG_SETMASK, nil, &mask)
        #expect(sigismember(&mask, SIGUSR2) == 0)
        #expect(got == [SIGUSR2])
    }

    @Test func aHandlerMayRemoveASourceReadyInTheSameTurn() throws {
        let loop = EventLoop()
        var a: [Int32] = [0, 0]
        var b: [Int32] = [0, 0]
        pipe(&a)
        pipe(&b)
        defer { for fd in a + b { close(fd) } }
        var calls: [String] = []
        var second: EventLoop.Token? = nil
        loop.watch(a[0]) { _ in
            calls.append("a")
            if let second { loop.remove(second) }
        }
        second = loop.watch(b[0]) { _ in calls.append("b") }
        var byte: UInt8 = 1
        write(a[1], &byte, 1)
        write(b[1], &byte, 1)
        loop.turn(timeoutMilliseconds: 100)
        #expect(calls == ["a"])
    }
}
