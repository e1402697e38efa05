import HumTestSupport
import Testing

@testable import HumCore

/// Random schedules, lifts and zones (Paris over both 2025 DST changes, and a move to another zone and back), with a
/// 04:00 day boundary: what the guard sees stepping from edge to edge equals the state recomputed from scratch at
/// every instant between, and each rule equals an oracle written another way. Seeded: a failure names its seed.
@Suite struct ScheduleProperties {
    static let shieldNames = ["games", "social", "video"]

    struct Case {
        var inputs: ShieldInputs
        var start: Int64
        var seed: UInt64
    }

    static func makeCase(seed: UInt64) -> Case {
        var rng = SplitMix64(seed: seed)
        func pick(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &rng) }
        // Around one of the DST changes, and maybe a move to another zone a few days in, and back.
        let change = Bool.random(using: &rng) ? springForward : fallBack
        let start = change - pick(0...4 * 86_400)
        var transitions: [(epoch: Int64, offset: Int32)] = [(springForward, 7200), (fallBack, 3600)]
        if Bool.random(using: &rng) {
            let away = start + pick(3600...5 * 86_400)
            let offset = Int32(pick(-48...56) * 900)
            transitions.append((away, offset))
            transitions.append((away + pick(2 * 3600...3 * 86_400), 3600))
        }
        let zone = TransitionZone(initial: 3600, transitions: transitions)
        var schedules: [Schedule] = []
        for i in 0..<Int(pick(1...4)) {
            let from = Int(pick(0...1439))
            var to = Int(pick(0...1440))
            if to == from { to = (from + 1) % 1440 }
            let free = pick(0...3) == 0
            let shields = shieldNames.filter { _ in Bool.random(using: &rng) }
            schedules.append(
                Schedule(
                    name: "s\(i)", days: Weekdays(bits: UInt8(pick(1...127))), from: WallTime(minutes: from)!,
                    to: WallTime(minutes: to)!, shields: shields.isEmpty ? ["games"] : shields,
                    strict: !free && Bool.random(using: &rng), free: free,
                    created: Timestamp(epochSeconds: 0, offsetSeconds: 0)))
        }
        var lifts: [ShieldLift] = []
        for i in 0..<Int(pick(0...4)) {
            let begin = start + pick(0...4 * 86_400)
            lifts.append(
                ShieldLift(
                    id: "L\(i)", shield: shieldNames[Int(pick(0...2))], start: begin,
                    deadline: begin + pick(60...3 * 3600), budget: LiftBudget.allCases[Int(pick(0...2))]))
        }
        let offs = (0..<Int(pick(0...2))).map { _ in
            let begin = start + pick(0...4 * 86_400)
            return ShieldOff(shield: shieldNames[Int(pick(0...2))], start: begin, end: begin + pick(60...7200))
        }
        let shields = shieldNames.map {
            Shield(name: $0, targets: [.app($0)], created: Timestamp(epochSeconds: 0, offsetSeconds: 0))
        }
        let four = DayBoundary(start: WallTime(minutes: 240)!)!
        return Case(
            inputs: ShieldInputs(
                shields: shields, offs: offs, lifts: lifts, schedules: schedules, zone: zone, dayBoundary: four),
            start: start, seed: seed)
    }

    /// The oracle: a window read through `Timestamp`, the day before found by stepping back a day of wall clock.
    static func oracleActive(_ s: Schedule, at t: Int64, zone: any TimeZoneSeam) -> Bool {
        let stamp = Timestamp(epochSeconds: t, offsetSeconds: zone.offsetSeconds(atEpoch: t))
        let minute = Int(stamp.localSecondOfDay / 60)
        let weekday = stamp.localDate.isoWeekday
        let yesterday = weekday == 1 ? 7 : weekday - 1
        if s.from < s.to {
            return s.days.isoWeekdays.contains(weekday) && s.from.minutes <= minute && minute < s.to.minutes
        }
        return (s.days.isoWeekdays.contains(weekday) && minute >= s.from.minutes)
            || (s.days.isoWeekdays.contains(yesterday) && minute < s.to.minutes)
    }

    @Test(arguments: 0..<60)
    func steppingFromEdgeToEdgeNeverMissesAChange(index: Int) {
        let c = Self.makeCase(seed: 0x5EED_0000 + UInt64(index))
        var t = c.start
        var seen = ShieldState.shielded(c.inputs, now: t)
        for _ in 0..<30 {
            let next = ShieldState.nextChange(c.inputs, after: t) ?? t + 8 * 86_400
            #expect(next > t, "seed \(c.seed)")
            // Every instant before the next change has the state the guard holds since the last one.
            var probe = t + 1
            while probe < next {
                let fresh = ShieldState.shielded(c.inputs, now: probe)
                if fresh != seen {
                    Issue.record("seed \(c.seed): the state changed at \(probe), before the next change \(next)")
                    return
                }
                probe += probe + 600 < next ? 600 : max(1, next - probe - 1)
            }
            t = next
            seen = ShieldState.shielded(c.inputs, now: t)
        }
    }

    @Test(arguments: 0..<60)
    func schedulesAndDaysEqualTheirOracles(index: Int) {
        let c = Self.makeCase(seed: 0xDA7A_0000 + UInt64(index))
        var rng = SplitMix64(seed: c.seed)
        let zone = c.inputs.zone
        for _ in 0..<400 {
            let t = c.start + Int64.random(in: 0...6 * 86_400, using: &rng)
            for s in c.inputs.schedules where s.isActive(at: t, zone: zone) != Self.oracleActive(s, at: t, zone: zone) {
                Issue.record("seed \(c.seed): \(s.windowText) at \(t)")
            }
            let boundary = c.inputs.dayBoundary
            let shifted = Timestamp(epochSeconds: t - 4 * 3600, offsetSeconds: zone.offsetSeconds(atEpoch: t))
            #expect(boundary.day(of: t, zone: zone) == shifted.localDate, "seed \(c.seed)")
            // The day holds until the next day start, and changes there.
            if let edge = boundary.nextDayStart(after: t, zone: zone) {
                #expect(boundary.day(of: edge - 1, zone: zone) == boundary.day(of: t, zone: zone), "seed \(c.seed)")
                #expect(boundary.day(of: edge, zone: zone) != boundary.day(of: t, zone: zone), "seed \(c.seed)")
            }
            // A schedule's next edge: the same state up to it, another at it.
            for s in c.inputs.schedules {
                guard let edge = s.nextEdge(after: t, zone: zone) else { continue }
                let now = s.isActive(at: t, zone: zone)
                #expect(s.isActive(at: edge, zone: zone) != now, "seed \(c.seed)")
                #expect(s.isActive(at: edge - 1, zone: zone) == now || edge - 1 == t, "seed \(c.seed)")
            }
        }
    }

    @Test(arguments: 0..<40)
    func aLockHoldsUntilItsUntilAndPassesAreRefusedInside(index: Int) {
        let c = Self.makeCase(seed: 0x10CC_0000 + UInt64(index))
        var rng = SplitMix64(seed: c.seed)
        for _ in 0..<100 {
            let t = c.start + Int64.random(in: 0...6 * 86_400, using: &rng)
            for name in Self.shieldNames {
                let locked = c.inputs.schedules.contains {
                    !$0.free && $0.shields.contains(name) && $0.isActive(at: t, zone: c.inputs.zone)
                }
                let lock = ShieldState.lock(on: name, c.inputs, now: t)
                #expect((lock != nil) == locked, "seed \(c.seed)")
                guard let lock else { continue }
                // Locked: up, or lifted by the emergency reserve alone.
                switch ShieldState.shielded(c.inputs, now: t)[name] {
                case .up: break
                case .lifted(_, let id):
                    #expect(c.inputs.lifts.first { $0.id == id }?.budget == .emergency, "seed \(c.seed)")
                default: Issue.record("seed \(c.seed): \(name) locked at \(t) but not up")
                }
                if let until = lock.until {
                    #expect(ShieldState.lock(on: name, c.inputs, now: until - 1) != nil, "seed \(c.seed)")
                    #expect(ShieldState.lock(on: name, c.inputs, now: until) == nil, "seed \(c.seed)")
                }
            }
        }
    }
}
