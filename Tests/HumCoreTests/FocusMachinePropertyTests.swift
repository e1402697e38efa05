import Testing

@testable import HumCore

/// Random plans and random key presses at random times, checked against invariants that must hold whatever the
/// user does: records add up, the mix never jumps unless the user's choice demands it, rounds end silent, breaks
/// stay silent unless the user changed the sounds.
@Suite struct FocusMachinePropertyTests {
    @Test(arguments: 0..<8)
    func invariantsHoldForRandomSessions(batch: UInt64) throws {
        var rng = SplitMix64(seed: 0xF0C05 &+ batch)
        for _ in 0..<60 {
            try checkOneSession(&rng)
        }
    }

    private func checkOneSession(_ rng: inout SplitMix64) throws {
        func pick(_ range: ClosedRange<Int>) -> Int { range.lowerBound + Int(rng.next() % UInt64(range.count)) }
        let focus = pick(1...12)
        let fade = pick(0...focus)
        let plan = try FocusPlan(
            focus: .seconds(focus), shortBreak: .seconds(pick(1...6)), longBreak: .seconds(pick(1...9)),
            longBreakEvery: pick(0...3), rounds: pick(1...4), fade: .seconds(fade),
            pauseFade: .milliseconds(pick(0...1500)),
            autoAdvance: FocusPlan.AutoAdvance.allCases[pick(0...3)])
        let userTouchesMix = rng.next() % 2 == 0
        var rig = FocusRig(plan)
        var t = 0.0
        rig.send(.start, at: t)
        var jumps: [String] = []
        for _ in 0..<pick(5...40) {
            t += Double(pick(0...4000)) / 1000
            rig.run(until: t, step: 0.1)
            if case .finished = rig.machine.state { break }
            let input: FocusInput
            switch pick(0...10) {
            case 0: input = .pause
            case 1: input = .resume
            case 2: input = .togglePause
            case 3: input = .skip
            case 4: input = .extend(by: .seconds(pick(1...20)))
            case 5: input = userTouchesMix ? .userChangedMix : .tick
            case 6: input = .start
            case 10: input = .restart
            case 7:
                rig.suspend(for: Double(pick(1...100)))
                t = rig.time
                input = .tick
            default: input = .tick
            }
            let before = rig.mixer.level(at: rig.time)
            let fx = rig.send(input, at: t)
            // A change of level with no time to ramp is only allowed when the user's own mix takes over, or when a
            // focus round is all fade (the fade-in has no time left) — never otherwise.
            var level = before
            for e in fx where e.isAudioRamp {
                switch e {
                case .keepUserMix, .fadeIn(over: .zero): break
                case .startFadeOut(over: let d) where d == .zero, .pauseFadeOut(over: let d) where d == .zero,
                    .reverseFadeOut(over: let d) where d == .zero, .endSession(fadeOut: let d) where d == .zero:
                    let target: Double = if case .reverseFadeOut = e { 1 } else { 0 }
                    if abs(level - target) > 1e-9 { jumps.append("\(e) from \(level) at \(rig.time)") }
                case .resumeFadeIn(over: let d, toLevel: let l) where d == .zero:
                    if abs(level - l) > 1e-9 { jumps.append("\(e) from \(level) at \(rig.time)") }
                default: break
                }
                level = rig.mixer.level(at: rig.time)
            }
        }
        // Ticked up to the stop, as the adapter's timer would: a stop sent late would also be a late tick, and with
        // no fade a late tick ends a round late.
        rig.run(until: t + 1, step: 0.1)
        rig.send(.stop, at: t + 1)
        rig.run(until: t + 2)

        // The session always ends, exactly once.
        guard case .finished = rig.machine.state else {
            Issue.record("not finished: \(rig.machine.state)")
            return
        }
        #expect(rig.count { if case .endSession = $0 { true } else { false } } == 1)
        let trace = rig.log.map { "\($0.t): \($0.effect)" }.joined(separator: "\n")
        #expect(jumps.isEmpty, "\(plan) \(jumps)\n\(trace)")

        // Records add up and follow each other.
        var previousEnd = Duration.zero
        for r in rig.records {
            #expect(r.start >= previousEnd, "\(r)")
            #expect(r.active + r.paused == r.end - r.start, "\(r)")
            #expect(r.active <= r.planned, "\(r)")
            #expect(r.planned == plan.duration(of: r.phase) + r.extended, "\(r)")
            if r.status == .completed { #expect(r.active == r.planned, "\(r)") }
            previousEnd = r.end
        }
        // Notices never go back in time; rounds stay within the plan.
        let notices = rig.notices
        #expect(zip(notices, notices.dropFirst()).allSatisfy { $0.at <= $1.at })
        #expect(notices.allSatisfy { (1...plan.rounds).contains($0.round) })

        // The fade level stays in 0…1, and without the user touching the mix every completed focus round ends
        // silent and every break is silent throughout.
        #expect(rig.mixer.ramps.allSatisfy { (0...1).contains($0.from) && (0...1).contains($0.to) })
        if !userTouchesMix {
            for r in rig.records {
                let end = secs(r.end)
                let start = secs(r.start)
                if r.phase == .focus, r.status == .completed {
                    #expect(rig.mixer.level(at: end) < 1e-9, "\(plan) \(r)\n\(trace)")
                }
                if r.phase.isBreak {
                    // A skipped round's quick fade may run into the break's first `pauseFade`.
                    let quiet = start + secs(plan.pauseFade)
                    for k in 1..<10 where quiet < end {
                        let at = quiet + (end - quiet) * Double(k) / 10
                        #expect(rig.mixer.level(at: at) < 1e-9, "\(plan) \(r) at \(at)")
                    }
                }
            }
        }
    }
}
