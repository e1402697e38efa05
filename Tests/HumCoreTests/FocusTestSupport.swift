import Testing

@testable import HumCore

/// Seconds (as a test writes them) to a machine reading where both clocks agree.
func reading(_ seconds: Double, suspended: Double = 0) -> MonotonicInstant {
    let boot = UInt64((seconds * 1e9).rounded())
    return MonotonicInstant(boottime: boot, monotonic: boot - UInt64((suspended * 1e9).rounded()))
}

func secs(_ d: Duration) -> Double { FocusTime.seconds(d) }

/// What an adapter would do with the audio effects, reduced to the fade level over time and which mix is playing.
/// Ramps are linear on the fade-level scale; every ramp starts from the level at the moment it is applied.
struct FakeMixer {
    /// The fade level's history: each ramp from the level at `start` to `to` at `end`, newest last.
    private(set) var ramps: [(start: Double, end: Double, from: Double, to: Double)] = [(0, 0, 0, 0)]
    /// The mix the user hears (a label standing for sounds and volumes).
    var current = "chosen"
    /// The resume mix saved at the fade's start.
    private(set) var saved: String?
    private(set) var closed = false
    private(set) var chimes: [Double] = []

    /// The level at `t`, past or present, as the ramps applied so far make it.
    func level(at t: Double) -> Double {
        // A nanosecond of slack: times here are Doubles, the machine's are whole nanoseconds.
        guard let r = ramps.last(where: { $0.start <= t + 1e-9 }) else { return 0 }
        if t >= r.end { return r.to }
        return r.from + (r.to - r.from) * (t - r.start) / (r.end - r.start)
    }

    private mutating func ramp(to target: Double, over d: Duration, at t: Double) {
        ramps.append((t, t + secs(d), level(at: t), target))
    }

    private mutating func jump(to target: Double, at t: Double) {
        ramps.append((t, t, target, target))
    }

    mutating func apply(_ effect: FocusEffect, at t: Double) {
        switch effect {
        case .fadeIn(over: let d):
            if let saved { current = saved }
            if d == .zero { jump(to: 1, at: t) } else { ramp(to: 1, over: d, at: t) }
        case .saveResumeMix:
            saved = current
        case .startFadeOut(over: let d), .pauseFadeOut(over: let d):
            ramp(to: 0, over: d, at: t)
        case .reverseFadeOut(over: let d):
            ramp(to: 1, over: d, at: t)
        case .resumeFadeIn(over: let d, toLevel: let l):
            ramp(to: l, over: d, at: t)
        case .keepUserMix(let audible):
            saved = nil
            if audible { jump(to: 1, at: t) }
        case .chime:
            chimes.append(t)
        case .phaseChanged, .recordRound:
            break
        case .endSession(fadeOut: let d):
            ramp(to: 0, over: d, at: t)
            closed = true
        }
    }
}

/// A machine plus the fake mixer, driven the way the adapter drives it: ticks at every `nextWakeup` and at least
/// every `step` seconds.
struct FocusRig {
    var machine: FocusMachine
    var mixer = FakeMixer()
    var time = 0.0
    /// Time the test has put the machine to sleep for (boot time runs, monotonic time does not).
    var suspended = 0.0
    /// Every effect so far with the time it was returned.
    var log: [(t: Double, effect: FocusEffect)] = []

    init(_ plan: FocusPlan) { machine = FocusMachine(plan: plan) }

    init(
        focus: Double = 25 * 60, shortBreak: Double = 5 * 60, longBreak: Double = 15 * 60, longEvery: Int = 4,
        rounds: Int = 4, fade: Double = 10, pauseFade: Double = 1, auto: FocusPlan.AutoAdvance = .all
    ) {
        self.init(
            try! FocusPlan(
                focus: .seconds(focus), shortBreak: .seconds(shortBreak),
                longBreak: .seconds(longBreak), longBreakEvery: longEvery, rounds: rounds,
                fade: .seconds(fade), pauseFade: .seconds(pauseFade), autoAdvance: auto))
    }

    /// Sends one input at `t` (the rig's clock moves there; it never goes back).
    @discardableResult
    mutating func send(_ input: FocusInput, at t: Double) -> [FocusEffect] {
        time = (max(time, t) * 1e9).rounded() / 1e9
        let effects = machine.handle(input, at: reading(time, suspended: suspended))
        for e in effects {
            mixer.apply(e, at: time)
            log.append((time, e))
        }
        return effects
    }

    /// Ticks up to `t`, waking at every instant the machine asks for and every `step` seconds otherwise.
    @discardableResult
    mutating func run(until target: Double, step: Double = 0.25) -> [FocusEffect] {
        let t = (target * 1e9).rounded() / 1e9
        var all: [FocusEffect] = []
        var steps = 0
        while time < t {
            steps += 1
            if steps > 1_000_000 {
                Issue.record(
                    "stuck at \(time) before \(t): wake-up \(String(describing: machine.nextWakeup)) \(machine)")
                break
            }
            var next = min(t, time + step)
            if let wake = machine.nextWakeup { next = min(next, time + secs(wake)) }
            next = (next * 1e9).rounded() / 1e9  // stay on the nanosecond grid the machine counts in
            if next <= time { next = min(t, time + 1e-9) }
            all += send(.tick, at: next)
            if case .finished = machine.state { break }
        }
        return all
    }

    /// Sleeps for `seconds`: boot time advances, monotonic time does not, and no call reaches the machine.
    mutating func suspend(for seconds: Double) {
        suspended += seconds
        time += seconds
    }

    var records: [FocusRoundRecord] {
        log.compactMap { if case .recordRound(let r) = $0.effect { r } else { nil } }
    }

    var notices: [FocusNotice] {
        log.compactMap { if case .phaseChanged(let n) = $0.effect { n } else { nil } }
    }

    /// `event phase round` for each notice, compact enough to compare whole sessions.
    var story: [String] {
        notices.map { "\($0.event.rawValue) \($0.phaseName) \($0.round)" }
    }

    func effects(at t: Double) -> [FocusEffect] {
        log.filter { abs($0.t - t) < 1e-9 }.map(\.effect)
    }

    func count(where match: (FocusEffect) -> Bool) -> Int { log.filter { match($0.effect) }.count }
}

extension FocusEffect {
    var isAudioRamp: Bool {
        switch self {
        case .fadeIn, .startFadeOut, .reverseFadeOut, .keepUserMix, .pauseFadeOut, .resumeFadeIn, .endSession: true
        default: false
        }
    }
}
