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

/// Quotas in the same random cases: today's standing read at any instant equals the standing recomputed from scratch
/// by an oracle (the day read through `Timestamp` shifted back by the boundary), and it changes only at a day start
/// (by the 04:00 boundary, across DST changes and the move to another zone) or when a quota's lift opens: stepping
/// from one such change to the next never misses one.
@Suite struct QuotaProperties {
    struct Case {
        var inputs: ShieldInputs
        var start: Int64
        var seed: UInt64
    }

    static func makeCase(seed: UInt64) -> Case {
        let base = ScheduleProperties.makeCase(seed: seed)
        var rng = SplitMix64(seed: seed ^ 0x0907_A000)
        func pick(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &rng) }
        var inputs = base.inputs
        let since = Timestamp(epochSeconds: base.start - pick(0...30 * 86_400), offsetSeconds: 3600)
        for i in inputs.shields.indices where Bool.random(using: &rng) {
            let reduction: QuotaReduction? =
                switch pick(0...2) {
                case 0: nil
                case 1: .percent(basisPoints: Int(pick(1...5000)))
                default: .absolute(seconds: pick(60...600))
                }
            inputs.shields[i].quota = ShieldQuota(
                dailySeconds: pick(600...7200), reduction: reduction, floorSeconds: pick(0...600), since: since)
        }
        inputs.quotaLifts = (0..<Int(pick(0...12))).map { i in
            let begin = base.start + pick(-86_400...5 * 86_400)
            let paid = pick(60...3600)
            let ended: Int64? = Bool.random(using: &rng) ? begin + pick(0...paid) : nil
            return ShieldLift(
                id: "Q\(i)", shield: ScheduleProperties.shieldNames[Int(pick(0...2))], start: begin,
                deadline: begin + paid + 1, ended: ended, budget: .quota)
        }
        return Case(inputs: inputs, start: base.start, seed: seed)
    }

    /// The day of `t` by the oracle: the wall clock at `t`, four hours back.
    static func oracleDay(_ t: Int64, zone: any TimeZoneSeam) -> CivilDate {
        Timestamp(epochSeconds: t - 4 * 3600, offsetSeconds: zone.offsetSeconds(atEpoch: t)).localDate
    }

    static func oracleUsed(_ name: String, _ inputs: ShieldInputs, at t: Int64) -> Int64 {
        let today = oracleDay(t, zone: inputs.zone)
        var used: Int64 = 0
        for lift in inputs.quotaLifts where lift.shield == name && oracleDay(lift.start, zone: inputs.zone) == today {
            used += min(lift.deadline - lift.start - 1, (lift.ended ?? lift.deadline) - lift.start)
        }
        return used
    }

    static func standings(_ inputs: ShieldInputs, at t: Int64) -> [QuotaStanding?] {
        ScheduleProperties.shieldNames.map { inputs.quota(of: $0, now: t) }
    }

    @Test(arguments: 0..<60)
    func todaysQuotaEqualsItsOracleAtAnyInstant(index: Int) {
        let c = Self.makeCase(seed: 0x0907_0000 + UInt64(index))
        var rng = SplitMix64(seed: c.seed)
        for _ in 0..<300 {
            let t = c.start + Int64.random(in: 0...6 * 86_400, using: &rng)
            for name in ScheduleProperties.shieldNames {
                guard let quota = c.inputs.shields.first(where: { $0.name == name })?.quota else {
                    #expect(c.inputs.quota(of: name, now: t) == nil, "seed \(c.seed)")
                    continue
                }
                let standing = c.inputs.quota(of: name, now: t)
                let used = Self.oracleUsed(name, c.inputs, at: t)
                let set = Timestamp(epochSeconds: quota.since.epochSeconds - 4 * 3600, offsetSeconds: 3600).localDate
                let week = Int((Self.oracleDay(t, zone: c.inputs.zone).daysSinceEpoch - set.daysSinceEpoch) / 7)
                #expect(standing?.usedToday == used, "seed \(c.seed): \(name) at \(t)")
                #expect(standing?.thisWeek == quota.seconds(inWeek: max(0, week)), "seed \(c.seed): \(name) at \(t)")
                #expect(standing?.leftToday == max(0, (standing?.thisWeek ?? 0) - used), "seed \(c.seed)")
            }
        }
    }

    @Test(arguments: 0..<40)
    func steppingFromDayStartToLiftNeverMissesAChange(index: Int) {
        let c = Self.makeCase(seed: 0x57E9_0000 + UInt64(index))
        let zone = c.inputs.zone
        let boundary = c.inputs.dayBoundary
        let opens = c.inputs.quotaLifts.map(\.start)
        var t = c.start
        var seen = Self.standings(c.inputs, at: t)
        for _ in 0..<20 {
            let dayStart = boundary.nextDayStart(after: t, zone: zone) ?? t + 86_400
            let next = ([dayStart] + opens.filter { $0 > t }).min()!
            var probe = t + 1
            while probe < next {
                if Self.standings(c.inputs, at: probe) != seen {
                    Issue.record("seed \(c.seed): today's quota changed at \(probe), before the next change \(next)")
                    return
                }
                probe += probe + 900 < next ? 900 : max(1, next - probe - 1)
            }
            t = next
            seen = Self.standings(c.inputs, at: t)
        }
    }
}
