import Testing

@testable import HumCore

@Suite struct FocusPlanTests {
    @Test func defaultsMatchTheIssue() {
        let plan = FocusPlan.standard
        #expect(plan.focus == .seconds(1500))
        #expect(plan.shortBreak == .seconds(300))
        #expect(plan.longBreak == .seconds(900))
        #expect(plan.longBreakEvery == 4)
        #expect(plan.rounds == 4)
        #expect(plan.fade == .seconds(10))
        #expect(plan.extendStep == .seconds(300))
        #expect(plan.autoAdvance == .all)
        #expect(!plan.fadeWasClamped)
    }

    @Test func rejectsPhasesShorterThanASecond() {
        #expect(throws: FocusPlan.Problem.tooShort(what: "focus", .milliseconds(999))) {
            try FocusPlan(focus: .milliseconds(999))
        }
        #expect(throws: FocusPlan.Problem.tooShort(what: "short break", .zero)) { try FocusPlan(shortBreak: .zero) }
        #expect(throws: FocusPlan.Problem.tooShort(what: "long break", .seconds(-5))) {
            try FocusPlan(longBreak: .seconds(-5))
        }
        #expect(throws: FocusPlan.Problem.tooShort(what: "extend step", .milliseconds(10))) {
            try FocusPlan(extendStep: .milliseconds(10))
        }
        // One second exactly is allowed everywhere.
        #expect(throws: Never.self) {
            try FocusPlan(focus: .seconds(1), shortBreak: .seconds(1), longBreak: .seconds(1), fade: .seconds(1))
        }
    }

    @Test func rejectsOtherNonsense() {
        #expect(throws: FocusPlan.Problem.noRounds(0)) { try FocusPlan(rounds: 0) }
        #expect(throws: FocusPlan.Problem.negativeLongBreakEvery(-1)) { try FocusPlan(longBreakEvery: -1) }
        #expect(throws: FocusPlan.Problem.negativeFade(what: "fade", .seconds(-1))) {
            try FocusPlan(fade: .seconds(-1))
        }
        #expect(throws: FocusPlan.Problem.negativeFade(what: "pause fade", .seconds(-1))) {
            try FocusPlan(pauseFade: .seconds(-1))
        }
        #expect(throws: FocusPlan.Problem.tooLong(what: "focus", .seconds(400 * 86400))) {
            try FocusPlan(focus: .seconds(400 * 86400))
        }
    }

    @Test func problemsReadAsAdvice() {
        #expect(
            FocusPlan.Problem.tooShort(what: "focus", .milliseconds(500)).description
                == "focus is 500ms: use 1s or more")
        #expect(FocusPlan.Problem.noRounds(0).description == "rounds is 0: use 1 or more")
        #expect(
            FocusPlan.Problem.tooShort(what: "short break", .seconds(0)).description
                == "short break is 0s: use 1s or more")
    }

    @Test func aFadeLongerThanTheFocusRoundIsClampedToIt() throws {
        let plan = try FocusPlan(focus: .seconds(4), fade: .seconds(10))
        #expect(plan.fade == .seconds(4))
        #expect(plan.fadeWasClamped)
        let exact = try FocusPlan(focus: .seconds(4), fade: .seconds(4))
        #expect(exact.fade == .seconds(4))
        #expect(!exact.fadeWasClamped)
        let none = try FocusPlan(fade: .zero)
        #expect(none.fade == .zero)
    }

    @Test func longBreakAfterEveryNthRoundAndNothingAfterTheLast() throws {
        let plan = try FocusPlan(longBreakEvery: 2, rounds: 5)
        let after = (1...5).map { plan.phase(after: .focus, round: $0).map { "\($0.phase.rawValue) \($0.round)" } }
        #expect(after == ["short-break 1", "long-break 2", "short-break 3", "long-break 4", nil])
        #expect(plan.phase(after: .shortBreak, round: 1)! == (.focus, 2))
        #expect(plan.phase(after: .longBreak, round: 4)! == (.focus, 5))
        // The default: 4 rounds, long every 4: the 4th round is the last, so no long break at all.
        let standard = FocusPlan.standard
        #expect(
            (1...3).map { standard.phase(after: .focus, round: $0)!.phase } == [.shortBreak, .shortBreak, .shortBreak])
        #expect(standard.phase(after: .focus, round: 4) == nil)
        // 0: never a long break.
        let never = try FocusPlan(longBreakEvery: 0, rounds: 9)
        #expect((1...8).allSatisfy { never.phase(after: .focus, round: $0)!.phase == .shortBreak })
    }

    @Test func autoAdvanceModes() {
        typealias A = FocusPlan.AutoAdvance
        #expect(A(rawValue: "none") == .off)
        #expect(A.allCases.map(\.rawValue) == ["all", "none", "to-break", "to-focus"])
        func moves(_ a: A) -> [Bool] { FocusPhase.allCases.map { a.advancesOnItsOwn(into: $0) } }
        #expect(moves(.all) == [true, true, true])
        #expect(moves(.off) == [false, false, false])
        #expect(moves(.toBreak) == [false, true, true])
        #expect(moves(.toFocus) == [true, false, false])
    }

    @Test func phaseNamesAreWhatScriptsSee() {
        #expect(FocusPhase.allCases.map(\.rawValue) == ["focus", "short-break", "long-break"])
        #expect(FocusPhase.shortBreak.isBreak && FocusPhase.longBreak.isBreak && !FocusPhase.focus.isBreak)
    }

    @Test func durationConversions() {
        #expect(FocusTime.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
        #expect(FocusTime.nanoseconds(.seconds(Int64.max)) == .max)
        #expect(FocusTime.seconds(.milliseconds(250)) == 0.25)
        #expect(FocusTime.wholeSecondsRoundedUp(.milliseconds(1)) == 1)
        #expect(FocusTime.wholeSecondsRoundedUp(.seconds(3)) == 3)
        #expect(FocusTime.wholeSecondsRoundedUp(.milliseconds(3001)) == 4)
        #expect(FocusTime.wholeSecondsRoundedUp(.zero) == 0)
        let r = MonotonicInstant(nanoseconds: 5).advanced(by: .nanoseconds(10)).afterSuspend(of: .nanoseconds(100))
        #expect(r == MonotonicInstant(boottime: 115, monotonic: 15))
    }
}
