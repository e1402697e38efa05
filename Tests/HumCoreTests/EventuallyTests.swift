import HumTestSupport
import Testing

/// The one wait of the tests (HumTestSupport's `eventually` and `waitFor`): it returns as soon as the condition
/// holds, waits the whole deadline (and no longer than a pause past it) when it never does, and passes errors on.
@Suite struct EventuallyTests {
    struct Failure: Error {}

    @Test func aConditionThatHoldsAtOnceIsAskedOnce() {
        var asked = 0
        #expect(
            eventually {
                asked += 1
                return true
            })
        #expect(asked == 1)
    }

    @Test func aConditionThatComesTrueEndsTheWaitThen() {
        var asked = 0
        let clock = ContinuousClock()
        let took = clock.measure {
            #expect(
                eventually(within: 10) {
                    asked += 1
                    return asked == 5
                })
        }
        #expect(asked == 5)
        // Four pauses of 1, 2, 4 and 8 ms: far below the deadline even on a loaded machine.
        #expect(took < .seconds(2), "\(took)")
    }

    @Test func aConditionThatNeverHoldsFailsAfterTheDeadline() {
        var asked = 0
        let clock = ContinuousClock()
        let took = clock.measure {
            #expect(
                !eventually(within: 0.3) {
                    asked += 1
                    return false
                })
        }
        #expect(took >= .milliseconds(300), "gave up early: \(took)")
        #expect(took < .seconds(3), "\(took)")
        // Pauses grow to 50 ms: a handful of looks, not thousands, and at least one at the deadline.
        #expect((5...40).contains(asked), "\(asked)")
    }

    @Test func waitForReturnsTheFirstValueGiven() {
        var asked = 0
        let value = waitFor(within: 10) { () -> String? in
            asked += 1
            return asked >= 3 ? "line \(asked)" : nil
        }
        #expect(value == "line 3")
        #expect(waitFor(within: 0.05) { () -> Int? in nil } == nil)
    }

    @Test func anErrorEndsTheWaitAndIsThrown() {
        var asked = 0
        #expect(throws: Failure.self) {
            try eventually {
                asked += 1
                if asked == 2 { throw Failure() }
                return false
            }
        }
        #expect(asked == 2)
    }
}
