import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumStore

/// Contracts in the database: written before their rounds, paid once on approval or override (never before), strict
/// mode's refusals, the reconciliation of a dead owner, the check's invariants, export and import.
@Suite struct ContractStoreTests {
    static let start = ContractStart(
        id: "c0000000-0000-4000-8000-000000000001", goal: "Draft the intro",
        doneWhen: ["intro.md has three paragraphs", "sources cited"], firstStep: "outline", watch: ["/r"],
        strict: false)

    static func decision(_ status: ReviewStatus) -> ReviewDecision {
        ReviewDecision(
            status: status, confidence: 0.8, reason: "because", missing: status == .approved ? [] : ["a file"],
            question: status == .needsMore ? "which file?" : nil)
    }

    static func review(_ attempt: Int, _ status: ReviewStatus, at: Timestamp) -> ContractReviewRecord {
        ContractReviewRecord(
            attempt: attempt, at: at, reviewer: "local", proof: ContractProof(text: "done", checked: [1]), checks: [],
            cannotCheck: [], decision: decision(status))
    }

    /// A contract whose one 25-minute focus round completed: in proof review.
    static func completedContract(
        _ db: HumDatabase, clock: ManualClock, start: ContractStart = start, strict: Bool = false
    ) throws -> ContractRecord {
        var s = start
        s.strict = strict
        _ = try db.createContract(s, rounds: 1, focusSeconds: 1500, endsAt: nil, baseline: [])
        let roundID = "round-of-" + s.id
        try db.startRound(
            RoundStart(id: roundID, kind: .focus, start: db.calendar.now(), plannedSeconds: 1500, contractID: s.id))
        clock.advance(1500)
        let outcome = try db.finishRound(id: roundID, status: .completed, activeSeconds: 1500, pausedSeconds: 0)
        #expect(outcome.grant == nil && outcome.round.earnedSeconds == 0, "a contract's round earns nothing itself")
        return try #require(try db.finishContract(id: s.id, completed: true, evidence: nil))
    }

    @Test func aContractPaysOnceOnApproval() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        let c = try Self.completedContract(db, clock: clock)
        #expect(c.status == .completed && c.attempts == 0)
        #expect(try db.bankStatus().balance == 0, "nothing is paid before the review")
        let outcome = try db.submitReview(id: c.id, review: Self.review(1, .approved, at: db.calendar.now()))
        #expect(outcome.contract.status == .approved && outcome.contract.rewardSeconds == 500)
        #expect(outcome.grant?.entry.key == "contract:\(c.id)" && outcome.grant?.entry.amount == 500)
        #expect(try db.bankStatus().balance == 500)
        // Never twice: another review, a replayed round end, an override are all refused or change nothing.
        #expect(throws: ContractError.self) {
            try db.submitReview(id: c.id, review: Self.review(2, .approved, at: db.calendar.now()))
        }
        _ = try db.finishRound(id: "round-of-" + c.id, status: .completed, activeSeconds: 1500, pausedSeconds: 0)
        #expect(throws: ContractError.self) { try db.overrideContract(id: c.id, reason: "again") }
        #expect(try db.bankStatus().balance == 500)
        #expect(try db.check() == [])
        let stored = try db.contract(matching: String(c.id.prefix(8)))
        #expect(
            stored.status == .approved && stored.reviews.count == 1 && stored.rewardEntryID == outcome.grant?.entry.id)
    }

    @Test func oneResubmissionThenAnOverrideWithItsReason() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        let c = try Self.completedContract(db, clock: clock)
        let first = try db.submitReview(id: c.id, review: Self.review(1, .needsMore, at: db.calendar.now()))
        #expect(first.contract.status == .completed && first.contract.attempts == 1 && first.grant == nil)
        #expect(throws: ContractError.self, "no override before the resubmission") {
            try db.overrideContract(id: c.id, reason: "the reviewer is wrong")
        }
        // A review that raced with this one (attempt 1 again) is refused: no attempt is used twice.
        #expect(throws: ContractError.self) {
            try db.submitReview(id: c.id, review: Self.review(1, .approved, at: db.calendar.now()))
        }
        let second = try db.submitReview(id: c.id, review: Self.review(2, .rejected, at: db.calendar.now()))
        #expect(second.contract.status == .rejected && second.grant == nil)
        #expect(try db.bankStatus().balance == 0)
        let overridden = try db.overrideContract(id: c.id, reason: "the work is on paper")
        #expect(overridden.contract.status == .overridden && overridden.grant?.entry.amount == 500)
        #expect(overridden.contract.override?.reason == "the work is on paper")
        #expect(throws: ContractError.self) { try db.overrideContract(id: c.id, reason: "twice") }
        #expect(try db.bankStatus().balance == 500)
        #expect(try db.check() == [])
        let stored = try db.contract(matching: c.id)
        #expect(stored.reviews.map(\.decision.status) == [.needsMore, .rejected])
        #expect(stored.override?.reason == "the work is on paper")
    }

    @Test func theRatioIsTheOneShownWhenTheContractWasMade() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        let c = try Self.completedContract(db, clock: clock)
        try db.setConfig("earn.ratio", to: "1")  // three times as much, after the contract was made
        let outcome = try db.submitReview(id: c.id, review: Self.review(1, .approved, at: db.calendar.now()))
        #expect(outcome.grant?.entry.amount == 500 && c.ratioMilli == 3000)
        #expect(try db.check() == [])
    }

    @Test func theContractGrantCountsAgainstTheDailyCap() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        try db.setConfig("earn.daily-cap", to: "5m")
        let c = try Self.completedContract(db, clock: clock)
        let outcome = try db.submitReview(id: c.id, review: Self.review(1, .approved, at: db.calendar.now()))
        #expect(outcome.grant?.entry.amount == 300 && outcome.grant?.entry.cut == 200)
        #expect(outcome.contract.rewardSeconds == 300)
        #expect(try db.check() == [])
    }

    @Test func aStrictContractRefusesWhatLoosensUntilItEnds() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        _ = try db.record(.adjust(seconds: 3600, reason: "seed", key: nil))
        _ = try db.record(.adjust(seconds: 60, reason: "keyed", key: "k1"))
        // An old contract, rejected twice: an override would pay it.
        var old = Self.start
        old.id = "old00000-0000-4000-8000-000000000000"
        let oldContract = try Self.completedContract(db, clock: clock, start: old)
        _ = try db.submitReview(id: oldContract.id, review: Self.review(1, .needsMore, at: db.calendar.now()))
        _ = try db.submitReview(id: oldContract.id, review: Self.review(2, .rejected, at: db.calendar.now()))

        var strict = Self.start
        strict.strict = true
        let ends = db.calendar.stamp(clock.nowEpochSeconds() + 1500)
        _ = try db.createContract(strict, rounds: 1, focusSeconds: 1500, endsAt: ends, baseline: [])
        func refused(_ body: () throws -> Void) -> StrictRules.Refusal? {
            do {
                try body()
                return nil
            } catch let r as StrictRules.Refusal {
                return r
            } catch {
                return nil
            }
        }
        let ratio = refused { try db.setConfig("earn.ratio", to: "1") }
        #expect(ratio?.message.contains("changing earn.ratio from 3 to 1") == true)
        #expect(ratio?.message.contains("after \(ends.localClock)") == true)
        #expect(refused { try db.setConfig("earn.daily-cap", to: "4h") } != nil)
        #expect(refused { try db.setConfig("emergency.weekly", to: "1h") } != nil)
        #expect(refused { try db.setConfig("review.command", to: "approve-all") } != nil)
        #expect(refused { _ = try db.record(.adjust(seconds: 3600, reason: "more", key: nil)) }?.what == .addTime)
        #expect(
            refused {
                _ = try db.recordRound(
                    RoundRecord(
                        id: "by-hand", kind: .focus, status: .completed, start: db.calendar.stamp(1_743_000_000),
                        end: db.calendar.stamp(1_743_001_500), plannedSeconds: 1500, activeSeconds: 1500,
                        pausedSeconds: 0))
            }?.what == .recordRound)
        #expect(refused { _ = try db.overrideContract(id: oldContract.id, reason: "r") }?.what == .override)
        var second = Self.start
        second.id = "second00-0000-4000-8000-000000000000"
        #expect(
            refused { _ = try db.createContract(second, rounds: 1, focusSeconds: 60, endsAt: nil, baseline: []) }?.what
                == .secondContract)
        // A replay changes nothing: answered as before. Tightening, spending and the emergency reserve stay open.
        if case .exists = try db.record(.adjust(seconds: 60, reason: "keyed", key: "k1")) {
        } else {
            Issue.record("a replay is not refused")
        }
        try db.setConfig("earn.ratio", to: "4")
        _ = try db.record(.adjust(seconds: -60, reason: "less", key: nil))
        let draw = try db.recordEmergency(.emergency(seconds: 60, reason: "call", key: nil), strictNote: "waited 10s")
        #expect(draw.contract == strict.id)
        #expect(try db.contract(matching: strict.id).events.first?.detail.contains("waited 10s") == true)
        // The contract ends: everything opens again.
        _ = try db.finishContract(id: strict.id, completed: false, evidence: nil)
        try db.setConfig("earn.ratio", to: "1")
        _ = try db.record(.adjust(seconds: 3600, reason: "more", key: nil))
        _ = try db.overrideContract(id: oldContract.id, reason: "r")
        #expect(try db.check() == [])
    }

    @Test func aContractWhoseProcessDiedIsInterrupted() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        do {
            let db = try open(dir, clock: clock)
            var s = Self.start
            s.strict = true
            _ = try db.createContract(s, rounds: 1, focusSeconds: 1500, endsAt: nil, baseline: [])
            #expect(try db.reconcile().interruptedContracts.isEmpty, "its owner lives")
        }
        let later = try open(dir, clock: clock, alive: [])
        let report = try later.reconcile()
        #expect(report.interruptedContracts.map(\.id) == [Self.start.id])
        #expect(try later.contract(matching: Self.start.id).status == .interrupted)
        #expect(try later.runningStrictContract() == nil, "strict mode ends with its process")
        try later.setConfig("earn.ratio", to: "1")
        #expect(throws: ContractError.self, "an interrupted contract has nothing to review") {
            try later.submitReview(id: Self.start.id, review: Self.review(1, .approved, at: later.calendar.now()))
        }
    }

    /// The check's invariant: a contract is paid only after approval or override, once.
    @Test func theCheckFindsAContractPaidBeforeItsReview() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        let c = try Self.completedContract(db, clock: clock)
        _ = try db.record(.grantContract(contractID: c.id, activeSeconds: 1500, ratioMilli: 3000))
        #expect(try db.check().contains { $0.contains("is completed, yet grant") })
        // And a paid contract whose grant is missing (a row edited by hand).
        let dir2 = TempDirectory()
        let db2 = try open(dir2, clock: clock)
        let c2 = try Self.completedContract(db2, clock: clock)
        try db2.db.run("UPDATE contracts SET status = 'approved', reward = 500 WHERE id = ?", [.text(c2.id)])
        #expect(try db2.check().contains { $0.contains("was never granted") })
    }

    @Test func contractsExportAndImportWhole() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        let a = try Self.completedContract(db, clock: clock)
        _ = try db.submitReview(id: a.id, review: Self.review(1, .approved, at: db.calendar.now()))
        var second = Self.start
        second.id = "b0000000-0000-4000-8000-000000000002"
        clock.advance(3600)
        let b = try Self.completedContract(db, clock: clock, start: second)
        _ = try db.submitReview(id: b.id, review: Self.review(1, .needsMore, at: db.calendar.now()))
        _ = try db.submitReview(id: b.id, review: Self.review(2, .rejected, at: db.calendar.now()))
        _ = try db.overrideContract(id: b.id, reason: "on paper")
        let contracts = try db.exportContracts()
        let rounds = try db.exportRounds()
        var entries: [LedgerEntry] = []
        try db.forEachExportEntry(from: nil, to: nil) { entries.append($0) }
        #expect(contracts.count == 2 && rounds.allSatisfy { $0.contractID != nil })
        // Through JSON, as a file would carry them.
        let decoded = try JSONDecoder().decode(
            [ContractRecord].self, from: Data(try CompactJSONEncoder().encode(contracts)))
        #expect(decoded == contracts)

        let other = TempDirectory()
        let restored = try open(other, clock: clock)
        let outcome = try restored.importLedger(entries: entries, sessions: rounds, contracts: decoded)
        #expect(outcome.contractsAdded == 2)
        #expect(try restored.check() == [])
        #expect(try restored.contracts().map(\.status) == [.approved, .overridden])
        #expect(try restored.contract(matching: b.id).override?.reason == "on paper")
        #expect(try restored.bankStatus().balance == 1000)
        let again = try restored.importLedger(entries: entries, sessions: rounds, contracts: decoded)
        #expect(again.contractsAdded == 0 && again.contractsPresent == 2)

        // A contract that says it was paid, without its grant: refused whole.
        let third = TempDirectory()
        let fresh = try open(third, clock: clock)
        #expect(throws: StoreError.self) {
            try fresh.importLedger(entries: [], sessions: rounds, contracts: decoded)
        }
        #expect(try fresh.contracts().isEmpty)
    }
}

/// `hum history record`: rounds recorded by hand are marked, may not overlap, and earn on their own day.
@Suite struct HonestRecordTests {
    static func round(_ id: String, start: Int64, active: Int64, kind: RoundKind = .focus) -> RoundRecord {
        let zone = FixedZone(offsetSeconds: 3600)
        func stamp(_ t: Int64) -> Timestamp { Timestamp(epochSeconds: t, offsetSeconds: zone.offset) }
        return RoundRecord(
            id: id, kind: kind, status: .completed, start: stamp(start), end: stamp(start + active),
            plannedSeconds: active, activeSeconds: active, pausedSeconds: 0)
    }

    @Test func overlapsAreRefusedAndReplaysAreNot() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)
        let db = try open(dir, clock: clock)
        let first = Self.round("a", start: 1_743_290_000, active: 1500)
        _ = try db.recordRound(first)
        _ = try db.recordRound(first)  // a replay by id: nothing changes
        for (start, active) in [
            (1_743_290_000, 1500), (1_743_289_000, 1500), (1_743_291_000, 60), (1_743_289_000, 5000),
        ] {
            #expect(throws: StoreError.self, "\(start) +\(active)") {
                _ = try db.recordRound(Self.round("b\(start)\(active)", start: Int64(start), active: Int64(active)))
            }
        }
        // Touching is not overlapping.
        _ = try db.recordRound(Self.round("after", start: 1_743_291_500, active: 300, kind: .shortBreak))
        _ = try db.recordRound(Self.round("before", start: 1_743_288_500, active: 1500))
        // A round the timer runs now (until its deadline) is overlapped too; one that ends in the future is refused.
        try db.startRound(
            RoundStart(
                id: "live", kind: .focus, start: db.calendar.stamp(1_743_299_400), plannedSeconds: 1500,
                deadline: db.calendar.stamp(1_743_300_900)))
        #expect(throws: StoreError.self) { _ = try db.recordRound(Self.round("c", start: 1_743_299_000, active: 600)) }
        #expect(throws: StoreError.self) { _ = try db.recordRound(Self.round("d", start: 1_743_299_990, active: 600)) }
        #expect(try db.rounds().count == 4)
        #expect(try db.rounds().filter { $0.id != "live" }.allSatisfy(\.recordedByHand))
        #expect(try db.check() == [])
    }

    @Test func aBackdatedRoundEarnsOnItsOwnDayUnderThatDaysCap() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_743_300_000)  // 2025-03-30 03:00 +01:00 … today
        let db = try open(dir, clock: clock)
        try db.setConfig("earn.daily-cap", to: "10m")
        let lastWeek: Int64 = 1_743_300_000 - 7 * 86_400
        let a = try db.recordRound(Self.round("a", start: lastWeek, active: 1500))
        let b = try db.recordRound(Self.round("b", start: lastWeek + 3600, active: 1500))
        let grantA = try #require(a.grant?.entry)
        let grantB = try #require(b.grant?.entry)
        #expect(grantA.localDay == db.calendar.stamp(lastWeek).localDate, "its own day, not today")
        #expect(grantA.amount == 500 && grantB.amount == 100 && grantB.cut == 400, "that day's cap")
        #expect(grantA.label == "recorded by hand")
        #expect(try db.bankStatus().earnedToday == 0, "today's cap is untouched")
        #expect(try db.check() == [])
    }
}
