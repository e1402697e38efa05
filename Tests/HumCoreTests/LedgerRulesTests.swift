import HumTestSupport
import Testing

@testable import HumCore

/// An independent model of the rules, written plainly from the text (not from LedgerRules), used to check
/// every reply of a ledger store.
struct ReferenceModel {
    var ratioMilli: Int64 = 3000, cap: Int64 = 10_800, weekly: Int64 = 600
    var balance: Int64 = 0
    var earnedByDay: [String: Int64] = [:]
    var reserveByWeek: [String: Int64] = [:]
    var byKey: [String: String] = [:]  // key -> payload
    var openPass: String? = nil
    var holds: [String: (held: Int64, forfeit: Bool)] = [:]
    var settled: Set<String> = []

    enum Reply: Equatable {
        case ok(amount: Int64)
        case exists, refused
    }

    mutating func apply(_ r: LedgerRequest, day: String, week: String) -> Reply {
        if let key = r.key, let payload = byKey[key] {
            if case .settlePass(let id, let used) = r, let h = holds[id] {
                return payload == "settle \(id) \(min(max(used, 0), h.held))" ? .exists : .refused
            }
            return payload == describe(r) ? .exists : .refused
        }
        var amount: Int64 = 0
        switch r {
        case .grant(_, let active):
            let want = active * 1000 / ratioMilli
            amount = min(want, max(0, cap - earnedByDay[day, default: 0]))
            earnedByDay[day, default: 0] += amount
        case .grantContract(_, let active, let ratio):
            // A contract earns at its own ratio, under the same daily cap.
            let want = active * 1000 / ratio
            amount = min(want, max(0, cap - earnedByDay[day, default: 0]))
            earnedByDay[day, default: 0] += amount
        case .spend(let s, _, _):
            guard s > 0, balance >= s else { return .refused }
            amount = -s
        case .adjust(let s, _, _):
            guard s != 0, s > 0 || balance + s >= 0 else { return .refused }
            amount = s
        case .emergency(let s, _, _):
            guard s > 0, reserveByWeek[week, default: 0] + s <= weekly else { return .refused }
            reserveByWeek[week, default: 0] += s
        case .openPass(let id, let s, _, let forfeit):
            guard s > 0, openPass == nil, balance >= s else { return .refused }
            openPass = id
            holds[id] = (s, forfeit)
            amount = -s
        case .settlePass(let id, let used):
            guard let h = holds[id] else { return .refused }
            let u = min(max(used, 0), h.held)
            settled.insert(id)
            if openPass == id { openPass = nil }
            amount = h.forfeit ? 0 : h.held - u
            byKey[r.key!] = "settle \(id) \(u)"
            balance += amount
            return .ok(amount: amount)
        }
        if let key = r.key { byKey[key] = describe(r) }
        balance += amount
        return .ok(amount: amount)
    }

    func describe(_ r: LedgerRequest) -> String { "\(r)" }
}

/// Random requests with a small pool of keys, so replays and conflicts happen often.
struct RequestGenerator {
    var rng: SplitMix64
    var passes: [String] = []
    var rounds: [String] = []

    mutating func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }

    var keyPrefix = "k"

    mutating func next() -> LedgerRequest {
        let key: String? = pick(3) == 0 ? nil : "\(keyPrefix)\(pick(12))"
        switch pick(12) {
        case 0, 1, 2:
            if rounds.isEmpty || pick(3) > 0 { rounds.append("\(keyPrefix)r\(rounds.count)") }
            return .grant(roundID: rounds[pick(rounds.count)], activeSeconds: Int64(pick(4) == 0 ? 1500 : pick(3000)))
        case 11:
            // Contracts: a replay with the same active time exists; with another, the key refuses it.
            return .grantContract(
                contractID: "\(keyPrefix)c\(pick(4))", activeSeconds: Int64(pick(2) == 0 ? 3000 : pick(6000)),
                ratioMilli: [2000, 3000, 4500][pick(3)])
        case 3, 4: return .spend(seconds: Int64(pick(900)) - 10, label: ["games", "video"][pick(2)], key: key)
        case 5: return .adjust(seconds: Int64(pick(1200)) - 600, reason: "fix", key: key)
        case 6: return .emergency(seconds: Int64(pick(300)), reason: "call", key: key)
        case 7, 8:
            if passes.isEmpty || pick(2) == 0 { passes.append("\(keyPrefix)p\(passes.count)") }
            return .openPass(
                passID: passes[pick(passes.count)], seconds: Int64(pick(1200)), label: "web", forfeit: pick(3) == 0)
        default:
            let id = passes.isEmpty ? "p0" : passes[pick(passes.count)]
            return .settlePass(passID: id, usedSeconds: Int64(pick(1400)) - 100)
        }
    }
}

@Suite struct LedgerRulesTests {
    func calendar(_ clock: ManualClock) -> LocalCalendar {
        LocalCalendar(clock: clock, zone: FixedZone(offsetSeconds: 3600))
    }

    @Test func roundOfTwentyFiveMinutesEarnsEightMinutesTwenty() throws {
        let ledger = InMemoryLedger(calendar: calendar(ManualClock(1_700_000_000)))
        let d = try ledger.record(.grant(roundID: "a", activeSeconds: 1500))
        #expect(d.entry.amount == 500)
        #expect(try ledger.bankStatus().balance == 500)
    }

    @Test func replayIsExistsAndDifferentPayloadIsRefused() throws {
        let ledger = InMemoryLedger(calendar: calendar(ManualClock(1_700_000_000)))
        _ = try ledger.record(.adjust(seconds: 3600, reason: "seed", key: nil))
        let first = try ledger.record(.spend(seconds: 600, label: "video", key: "k"))
        let again = try ledger.record(.spend(seconds: 600, label: "video", key: "k"))
        #expect(again == .exists(first.entry))
        #expect(throws: LedgerRefusal.self) { try ledger.record(.spend(seconds: 700, label: "video", key: "k")) }
        _ = try ledger.record(.grant(roundID: "x", activeSeconds: 1))
        #expect(throws: LedgerRefusal.self) { try ledger.record(.grant(roundID: "x", activeSeconds: 2)) }
        #expect(try ledger.bankStatus().rawBalance == 3000)
    }

    @Test func dailyCapCutsAndRecordsTheCut() throws {
        let clock = ManualClock(1_700_000_000)
        var config = LedgerConfig()
        config.dailyCapSeconds = 1000
        let ledger = InMemoryLedger(calendar: calendar(clock), config: config)
        _ = try ledger.record(.grant(roundID: "a", activeSeconds: 1500))  // 500
        let second = try ledger.record(.grant(roundID: "b", activeSeconds: 3000))  // wants 1000, gets 500
        #expect(second.entry.amount == 500 && second.entry.cut == 500 && second.entry.requested == 1000)
        let third = try ledger.record(.grant(roundID: "c", activeSeconds: 3000))
        #expect(third.entry.amount == 0 && third.entry.cut == 1000)
        clock.advance(86_400)
        #expect(try ledger.record(.grant(roundID: "d", activeSeconds: 3000)).entry.amount == 1000)
    }

    @Test func capFollowsTheLocalDateAcrossATimeZoneChange() throws {
        var config = LedgerConfig()
        config.dailyCapSeconds = 600
        // Flying west: 23:30 at +01:00 on the 29th, then -05:00, where it is 17:32 on the same date: one cap.
        let e = Timestamp(rfc3339: "2025-03-29T23:30:00+01:00")!.epochSeconds
        let clock = ManualClock(e)
        let west = InMemoryLedger(
            calendar: LocalCalendar(
                clock: clock, zone: TransitionZone(initial: 3600, transitions: [(e + 60, -18_000)])), config: config)
        #expect(try west.record(.grant(roundID: "a", activeSeconds: 1500)).entry.amount == 500)
        clock.advance(120)
        let b = try west.record(.grant(roundID: "b", activeSeconds: 1500)).entry
        #expect(b.at.rfc3339 == "2025-03-29T17:32:00-05:00")
        #expect(b.amount == 100 && b.cut == 400)
        // Flying east: 20:00 at -05:00 on the 29th, then +09:00, where it is 10:02 on the 30th: a new date, a new cap.
        let f = Timestamp(rfc3339: "2025-03-29T20:00:00-05:00")!.epochSeconds
        let clock2 = ManualClock(f)
        let east = InMemoryLedger(
            calendar: LocalCalendar(
                clock: clock2, zone: TransitionZone(initial: -18_000, transitions: [(f + 60, 32_400)])), config: config)
        #expect(try east.record(.grant(roundID: "a", activeSeconds: 1800)).entry.amount == 600)
        clock2.advance(120)
        let c = try east.record(.grant(roundID: "c", activeSeconds: 1500)).entry
        #expect(c.localDay.description == "2025-03-30" && c.amount == 500)
    }

    @Test func capResetsAtLocalMidnightAndSpansA23HourDSTDay() throws {
        var config = LedgerConfig()
        config.dailyCapSeconds = 600
        // Paris, spring 2025: 02:00 +01:00 becomes 03:00 +02:00 on the 30th.
        let zone = TransitionZone(initial: 3600, transitions: [(1_743_296_400, 7200)])
        let clock = ManualClock(Timestamp(rfc3339: "2025-03-29T23:59:59+01:00")!.epochSeconds)
        let ledger = InMemoryLedger(calendar: LocalCalendar(clock: clock, zone: zone), config: config)
        #expect(try ledger.record(.grant(roundID: "late", activeSeconds: 1800)).entry.amount == 600)
        clock.advance(1)  // 00:00:00 on the 30th: a new day
        let early = try ledger.record(.grant(roundID: "early", activeSeconds: 900)).entry
        #expect(early.at.rfc3339 == "2025-03-30T00:00:00+01:00" && early.amount == 300)
        clock.set(Timestamp(rfc3339: "2025-03-30T23:59:59+02:00")!.epochSeconds)  // 23 hours later: still the 30th
        #expect(try ledger.record(.grant(roundID: "night", activeSeconds: 1800)).entry.amount == 300)
        clock.advance(1)
        #expect(try ledger.record(.grant(roundID: "next", activeSeconds: 1800)).entry.amount == 600)
        #expect(try ledger.bankStatus().earnedToday == 600)
    }

    @Test func emergencyReserveIsPerIsoWeekAndNeedsNoBalance() throws {
        // 2025-03-30 is a Sunday; 2025-03-31 a Monday.
        let sunday = Timestamp(rfc3339: "2025-03-30T12:00:00+00:00")!.epochSeconds
        let clock = ManualClock(sunday)
        let ledger = InMemoryLedger(calendar: LocalCalendar(clock: clock, zone: FixedZone(offsetSeconds: 0)))
        _ = try ledger.record(.emergency(seconds: 400, reason: "doctor", key: nil))
        #expect(throws: LedgerRefusal.reserveExhausted(left: 200, asked: 300)) {
            try ledger.record(.emergency(seconds: 300, reason: "again", key: nil))
        }
        clock.advance(86_400)
        #expect(try ledger.record(.emergency(seconds: 600, reason: "monday", key: nil)).entry.reserve == 600)
        #expect(try ledger.bankStatus().rawBalance == 0)
    }

    @Test func passHoldsSettlesOnceAndReturnsTheRest() throws {
        let ledger = InMemoryLedger(calendar: calendar(ManualClock(1_700_000_000)))
        _ = try ledger.record(.adjust(seconds: 1800, reason: "seed", key: nil))
        _ = try ledger.record(.openPass(passID: "p", seconds: 1200, label: "web", forfeit: false))
        #expect(try ledger.bankStatus().rawBalance == 600)
        #expect(throws: LedgerRefusal.self) {
            try ledger.record(.openPass(passID: "q", seconds: 60, label: nil, forfeit: false))
        }
        _ = try ledger.record(.settlePass(passID: "p", usedSeconds: 300))
        #expect(try ledger.bankStatus().rawBalance == 1500)
        #expect(throws: LedgerRefusal.self) { try ledger.record(.settlePass(passID: "p", usedSeconds: 200)) }
        #expect(try ledger.record(.settlePass(passID: "p", usedSeconds: 300)).entry.amount == 900)  // replay: exists
        _ = try ledger.record(.openPass(passID: "f", seconds: 600, label: nil, forfeit: true))
        _ = try ledger.record(.settlePass(passID: "f", usedSeconds: 100))
        #expect(try ledger.bankStatus().rawBalance == 900)
    }

    @Test func debtBlocksSpendingAfterAMerge() throws {
        let clock = ManualClock(1_700_000_000)
        let a = InMemoryLedger(calendar: calendar(clock), device: "a", seed: 1)
        let b = InMemoryLedger(calendar: calendar(clock), device: "b", seed: 2)
        _ = try a.record(.adjust(seconds: 600, reason: "seed", key: "seed"))
        _ = try b.merge(a.entries())
        _ = try a.record(.spend(seconds: 600, label: "x", key: nil))
        _ = try b.record(.spend(seconds: 600, label: "y", key: nil))
        _ = try a.merge(b.entries())
        _ = try b.merge(a.entries())
        #expect(try a.bankStatus().rawBalance == -600)
        #expect(try b.bankStatus().debt == 600)
        #expect(throws: LedgerRefusal.inDebt(debt: 600)) { try a.record(.spend(seconds: 1, label: "x", key: nil)) }
        #expect(try a.entries().count == 3 && b.entries().count == 3)
        #expect(LedgerAudit.audit(entries: try a.entries(), device: "a", openPassIDs: [], cachedBalance: -600).isEmpty)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomSequencesAgreeWithTheReferenceModel(seed: UInt64) throws {
        let clock = ManualClock(1_743_200_000)
        let zone = TransitionZone(initial: 3600, transitions: [(1_743_296_400, 7200)])
        let cal = LocalCalendar(clock: clock, zone: zone)
        let ledger = InMemoryLedger(calendar: cal, seed: seed)
        var model = ReferenceModel()
        var gen = RequestGenerator(rng: SplitMix64(seed: seed))
        for _ in 0..<600 {
            clock.advance(Int64(gen.pick(4000)))
            let request = gen.next()
            let now = cal.now()
            let expected = model.apply(request, day: now.localDate.description, week: now.localDate.isoWeek.description)
            let got: ReferenceModel.Reply
            do {
                switch try ledger.record(request) {
                case .record(let e): got = .ok(amount: e.amount)
                case .exists: got = .exists
                }
            } catch is LedgerRefusal {
                got = .refused
            }
            #expect(got == expected, "request \(request)")
            let status = try ledger.bankStatus()
            #expect(status.rawBalance == model.balance)
            #expect(status.rawBalance >= 0)
            #expect(status.earnedToday <= status.dailyCap)
            #expect((status.openPass?.id) == model.openPass)
        }
        let entries = try ledger.entries()
        #expect(entries.reduce(0) { $0 + $1.amount } == model.balance)
        #expect(
            LedgerAudit.audit(
                entries: entries, device: "memory", openPassIDs: model.openPass.map { [$0] } ?? [],
                cachedBalance: model.balance
            ).isEmpty)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func mergesInAnyOrderGiveTheSameBalance(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let clock = ManualClock(1_700_000_000)
        let replicas = (0..<3).map {
            InMemoryLedger(calendar: calendar(clock), device: "d\($0)", seed: seed * 10 + UInt64($0))
        }
        var gen = RequestGenerator(rng: SplitMix64(seed: seed + 100))
        for _ in 0..<300 {
            clock.advance(Int64(rng.next() % 600))
            let index = Int(rng.next() % 3)
            // Keys, rounds and passes are made per device; a shared key with another payload is a conflict.
            if gen.keyPrefix != "d\(index)-" {
                gen.keyPrefix = "d\(index)-"
                gen.rounds = []
                gen.passes = []
            }
            _ = try? replicas[index].record(gen.next())
        }
        let all = try replicas.flatMap { try $0.entries() }
        var balances: Set<Int64> = []
        for _ in 0..<5 {
            let target = InMemoryLedger(calendar: calendar(clock), device: "t")
            var shuffled = all
            shuffled.shuffle(using: &rng)
            // In parts, twice over: a union is idempotent.
            let half = shuffled.count / 2
            _ = try target.merge(Array(shuffled[half...]))
            _ = try target.merge(shuffled)
            _ = try target.merge(Array(shuffled[..<half]))
            #expect(try target.entries().count == all.count)
            balances.insert(try target.bankStatus().rawBalance)
            #expect(
                LedgerAudit.audit(entries: try target.entries(), device: "t", openPassIDs: [], cachedBalance: nil)
                    .allSatisfy { $0.contains("neither open nor settled") == false })
        }
        #expect(balances.count == 1)
    }

    @Test func auditNamesBrokenInvariants() {
        let t = Timestamp(epochSeconds: 1_700_000_000, offsetSeconds: 0)
        var spend = LedgerEntry(id: "s", key: nil, kind: .spend, amount: -60, at: t, device: "d", payload: "spend 60")
        spend.label = "x"
        var grant = LedgerEntry(id: "g", key: "round:r", kind: .grant, amount: 10, at: t, device: "d", payload: "g")
        grant.roundID = "r"
        grant.requested = 10
        grant.cut = 0
        grant.cap = 5
        let failures = LedgerAudit.audit(
            entries: [spend, grant, grant], device: "d", openPassIDs: ["p"], cachedBalance: 7)
        #expect(failures.contains { $0.contains("only 0s in the bank") })
        #expect(failures.contains { $0.contains("appears twice") })
        #expect(failures.contains { $0.contains("granted twice") })
        #expect(failures.contains { $0.contains("past its daily cap") })
        #expect(failures.contains { $0.contains("differs from the sum") })
        #expect(failures.contains { $0.contains("open pass p has no hold") })
    }

    /// Whatever the rules write passes the rules an import and `hum ledger check` hold every entry to, whichever
    /// device wrote it and in whatever order the entries arrive: three devices, the cap and the ratio changed
    /// between requests, grants dated back to an earlier hour (as `hum history record` does).
    @Test(arguments: [4, 5, 6] as [UInt64])
    func whatTheRulesWriteKeepsTheRulesInAnyOrder(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let clock = ManualClock(1_700_000_000)
        let replicas = (0..<3).map {
            InMemoryLedger(calendar: calendar(clock), device: "d\($0)", seed: seed * 10 + UInt64($0))
        }
        var gen = RequestGenerator(rng: SplitMix64(seed: seed + 200))
        var now: Int64 = 1_700_000_000
        for _ in 0..<600 {
            now += Int64(rng.next() % 1200)
            // Now and then a request dated back up to three hours, as a round recorded by hand is.
            clock.set(rng.next() % 5 == 0 ? now - Int64(rng.next() % 10_800) : now)
            let index = Int(rng.next() % 3)
            if rng.next() % 20 == 0 {
                replicas[index].config.dailyCapSeconds = [0, 1800, 3600, 10_800, 86_400][Int(rng.next() % 5)]
                replicas[index].config.earnRatioMilli = [100, 1000, 3000, 1_000_000][Int(rng.next() % 4)]
            }
            if gen.keyPrefix != "d\(index)-" {
                gen.keyPrefix = "d\(index)-"
                gen.rounds = []
                gen.passes = []
            }
            var request = gen.next()
            if case .grant(let round, _) = request, rng.next() % 3 == 0 {
                // Long rounds: the cap cuts.
                request = .grant(roundID: round, activeSeconds: Int64(rng.next() % 20_000))
            }
            _ = try? replicas[index].record(request)
        }
        let all = try replicas.flatMap { try $0.entries() }
        #expect(all.contains { $0.kind == .grant && ($0.cut ?? 0) > 0 })  // the cap did cut
        for entry in all { #expect(LedgerAudit.ruleProblem(entry) == nil, "\(entry)") }
        for _ in 0..<5 {
            var shuffled = all
            shuffled.shuffle(using: &rng)
            let failures = LedgerAudit.failures(entries: shuffled, device: "t", openPassIDs: [], cachedBalance: nil)
            #expect(
                failures.allSatisfy { !$0.message.contains("daily cap") && !$0.message.contains("request") },
                "\(failures.prefix(3))")
        }
    }

    /// What no rule writes, whichever device it claims: a grant above its cap or with a cap no setting holds, a day
    /// of one device past its cap, a grant asking what no ratio gives, a contract's grant off its ratio, an entry
    /// whose text says another amount, or whose key is not its request's.
    @Test func entriesNoRuleWritesAreNamed() {
        let t = Timestamp(epochSeconds: 1_700_000_000, offsetSeconds: 3600)
        func grant(_ id: String, _ amount: Int64, active: Int64 = 10_800, cap: Int64 = 10_800) -> LedgerEntry {
            var g = LedgerEntry(
                id: id, key: "round:r\(id)", kind: .grant, amount: amount, at: t, device: "x",
                payload: "grant round=r\(id) active=\(active)")
            g.roundID = "r\(id)"
            g.requested = amount
            g.cut = 0
            g.cap = cap
            return g
        }
        #expect(LedgerAudit.ruleProblem(grant("ok", 3600)) == nil)
        let huge = grant("huge", 315_360_000, active: 31_536_000)
        #expect(LedgerAudit.ruleProblem(huge)?.contains("more than its daily cap of 10800s") == true)
        #expect(LedgerAudit.ruleProblem(grant("cap", 3600, cap: 315_360_000))?.contains("0 to 24 hours") == true)
        #expect(LedgerAudit.ruleProblem(grant("fast", 3600, active: 60))?.contains("no ratio gives") == true)
        var unkeyed = grant("k", 3600)
        unkeyed.key = "mine"
        #expect(LedgerAudit.ruleProblem(unkeyed)?.contains("hum keys it \"round:rk\"") == true)
        var contract = LedgerEntry(
            id: "c", key: "contract:k", kind: .grant, amount: 600, at: t, device: "x",
            payload: "grant contract=k ratio=3000 active=1800")
        contract.contractID = "k"
        contract.requested = 600
        contract.cut = 0
        contract.cap = 10_800
        #expect(LedgerAudit.ruleProblem(contract) == nil)
        contract.requested = 6000
        contract.amount = 6000
        #expect(LedgerAudit.ruleProblem(contract)?.contains("earns 600s") == true)
        var adjustment = LedgerEntry(
            id: "a", key: nil, kind: .adjustment, amount: 360_000, at: t, device: "x", payload: "adjustment 60 reason=r"
        )
        adjustment.reason = "r"
        #expect(LedgerAudit.ruleProblem(adjustment)?.contains("its text says \"adjustment 60 reason=r\"") == true)
        // Ten hours on a day of one device with a cap of three: named from the fourth on; another device's day is
        // its own.
        var day = (0..<10).map { grant("h\($0)", 3600) }
        day.append(
            contentsOf: (0..<3).map { i -> LedgerEntry in
                var g = grant("o\(i)", 3600)
                g.device = "y"
                return g
            })
        let failures = LedgerAudit.failures(entries: day, device: "t", openPassIDs: [], cachedBalance: nil)
        #expect(failures.map(\.subject) == (3..<10).map { .entry("h\($0)") }, "\(failures)")
        #expect(failures.first?.message.contains("device x earned 14400s that day, its cap was 10800s") == true)
        // A contract paid at another ratio than it was made with, by another entry than it says.
        let facts = LedgerAudit.ContractFacts(
            id: "k", status: .approved, rewardSeconds: 600, roundsActive: nil, ratioMilli: 2000, rewardEntryID: "z")
        contract.requested = 600
        contract.amount = 600
        let paid = LedgerAudit.failures(
            entries: [contract], device: "t", openPassIDs: [], cachedBalance: nil, contracts: [facts])
        #expect(paid.contains { $0.message.contains("at ratio 3; the contract was made at 2") })
        #expect(paid.contains { $0.message.contains("says entry z paid it") })
        let missing = LedgerAudit.failures(
            entries: [contract], device: "t", openPassIDs: [], cachedBalance: nil, contracts: [])
        #expect(missing.map(\.message) == ["grant c of 600s has no contract k here"])
    }

    @Test func configParsesAndRejects() throws {
        var c = LedgerConfig()
        try c.set("earn.ratio", to: "2.5")
        #expect(c.earned(activeSeconds: 1500) == 600)
        #expect(try c.text(for: "earn.ratio") == "2.5")
        try c.set("earn.daily-cap", to: "2h")
        #expect(c.dailyCapSeconds == 7200)
        for bad in ["0", "-1", "abc", "1.2345", "", ".", "100000", "1e3"] {
            #expect(throws: LedgerConfig.ConfigError.self) { try c.set("earn.ratio", to: bad) }
        }
        #expect(throws: LedgerConfig.ConfigError.self) { try c.set("earn.daily-cap", to: "25h") }
        #expect(throws: LedgerConfig.ConfigError.self) { try c.set("nope", to: "1") }
    }

    @Test func configParsingNeverCrashes() {
        var rng = SplitMix64(seed: 21)
        let alphabet = Array("0123456789.hms-+ ex")
        for _ in 0..<20_000 {
            let text = String((0..<Int(rng.next() % 9)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            for key in LedgerConfig.keys {
                var c = LedgerConfig()
                if (try? c.set(key, to: text)) != nil {
                    #expect(c.earnRatioMilli >= 100 && c.dailyCapSeconds >= 0 && c.dailyCapSeconds <= 86_400)
                    #expect(c.earned(activeSeconds: Int64.max) >= 0)
                }
            }
        }
    }
}
