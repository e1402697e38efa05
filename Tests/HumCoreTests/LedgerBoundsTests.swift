import HumCore
import HumTestSupport
import Testing

/// Numbers from outside are range-checked where they enter, and sums of stored values never trap.
@Suite struct LedgerBoundsTests {
    static let extremes: [Int64] = [
        .min, .min + 1, -LedgerBounds.entrySeconds - 1, -1, 0, 1, LedgerBounds.entrySeconds + 1, .max - 1, .max,
    ]

    func entry(_ kind: EntryKind, amount: Int64, field: Int64? = nil) -> LedgerEntry {
        var e = LedgerEntry(
            id: "e\(amount)", key: nil, kind: kind, amount: amount,
            at: Timestamp(epochSeconds: 1_700_000_000, offsetSeconds: 0), device: "d", payload: "p")
        e.requested = field
        e.cut = field.map { _ in 0 }
        e.used = field
        e.reserve = field
        e.roundID = "r"
        e.passID = "p"
        e.reason = "x"
        return e
    }

    /// An imported entry at the edge of Int64 trapped inside the import (abs(Int64.min), requested - cut).
    @Test func extremeEntriesAreRefusedWithoutTrapping() {
        for kind in EntryKind.allCases {
            for amount in Self.extremes {
                for field in Self.extremes + [nil] {
                    let e = entry(kind, amount: amount, field: field)
                    let problem = e.validationProblem()
                    if !LedgerBounds.amount.contains(amount) { #expect(problem?.contains("out of range") == true) }
                    if let field, !LedgerBounds.entryField.contains(field) { #expect(problem != nil) }
                }
            }
        }
        var early = entry(.adjustment, amount: 60)
        early.at = Timestamp(epochSeconds: -5, offsetSeconds: 0)
        #expect(early.validationProblem()?.contains("outside 1970 to 9999") == true)
    }

    /// `hum ledger check`, the register and the summaries sum stored values: a database written by hand (or by an
    /// older hum's import) with values at the edge of Int64 gives failure lines, not a trap.
    @Test func auditAndSummariesSaturate() {
        var entries: [LedgerEntry] = []
        for (i, amount) in Self.extremes.enumerated() {
            for kind in EntryKind.allCases {
                var e = entry(kind, amount: amount, field: Self.extremes[(i + 3) % Self.extremes.count])
                e.id = "\(kind)\(i)"
                e.passID = "p\(i % 3)"
                e.roundID = "r\(i)"
                e.device = i % 2 == 0 ? "d" : "other"
                e.cap = .max
                e.allowance = .min
                entries.append(e)
            }
        }
        let rounds = Self.extremes.enumerated().map { i, v in
            LedgerAudit.RoundFacts(id: "r\(i)", kind: .focus, status: .completed, earned: v, active: v)
        }
        let failures = LedgerAudit.failures(
            entries: entries + entries.reversed(), device: "d", openPassIDs: ["p1", "p2"], cachedBalance: .min,
            rounds: rounds)
        #expect(!failures.isEmpty)
        let records = Self.extremes.enumerated().map { i, v in
            RoundRecord(
                id: "r\(i)", kind: .focus, status: .completed, start: Timestamp(epochSeconds: 0, offsetSeconds: 0),
                end: nil, plannedSeconds: v, activeSeconds: v, pausedSeconds: v, earnedSeconds: v)
        }
        for r in records where !LedgerBounds.roundSeconds.contains(r.activeSeconds) {
            #expect(r.validationProblem()?.contains("out of range") == true)
        }
        let days = HistorySummary.days(rounds: records + records, entries: entries + entries)
        #expect(days.allSatisfy { $0.focusedSeconds >= 0 })
        for v in Self.extremes {
            _ = DurationText.format(seconds: v)
            _ = DurationText.clock(seconds: v)
            _ =
                BankStatus(
                    rawBalance: v, earnedToday: v, dailyCap: v, emergencyLeft: v, emergencyWeekly: v, openPass: nil
                ).debt
        }
        #expect(DurationText.format(seconds: .min).hasPrefix("-"))
        #expect([Int64.max, .max, 1].saturatingSum() == .max)
        #expect([Int64.min, -1].saturatingSum() == .min)
    }

    /// A settle without its hold, or returning more than it held, mints time: check names it whatever the device.
    @Test func aSettleWithoutItsHoldOrAboveItIsAFailure() {
        var settle = entry(.settle, amount: 600)
        settle.used = 0
        settle.device = "other"
        settle.passID = "lonely"
        let lonely = LedgerAudit.failures(entries: [settle], device: "d", openPassIDs: [], cachedBalance: nil)
        #expect(lonely.contains { $0.subject == .pass("lonely") && $0.message.contains("no hold") })
        var hold = entry(.hold, amount: -60)
        hold.passID = "lonely"
        hold.device = "other"
        hold.id = "h"
        let above = LedgerAudit.failures(entries: [settle, hold], device: "d", openPassIDs: [], cachedBalance: nil)
        #expect(above.contains { $0.message.contains("released 600s; 60s was due") })
    }

    @Test func aGrantMustMatchItsRoundAndALocalGrantNeedsOne() {
        var grant = entry(.grant, amount: 500, field: 500)
        grant.payload = "grant round=r active=1500"
        grant.key = "round:r"
        grant.cap = 10_800
        grant.device = "d"
        let missing = LedgerAudit.failures(
            entries: [grant], device: "d", openPassIDs: [], cachedBalance: nil, rounds: [])
        #expect(missing.contains { $0.message.contains("has no round r") })
        let other = LedgerAudit.failures(
            entries: [grant], device: "elsewhere", openPassIDs: [], cachedBalance: nil, rounds: [])
        #expect(other.isEmpty, "\(other)")
        let mismatched = LedgerAudit.failures(
            entries: [grant], device: "d", openPassIDs: [], cachedBalance: nil,
            rounds: [.init(id: "r", kind: .focus, status: .completed, earned: 500, active: 40)])
        #expect(mismatched.contains { $0.message.contains("its grant was for 1500s") })
        #expect(mismatched.contains { $0.message.contains("more than any ratio gives") })
    }

    /// earn.ratio refused values inside its range (`.5`, `0.1000`, `01000`) and never said its real limit.
    @Test func ratioAcceptsItsWholeRangeAndSaysItsLimits() {
        var config = LedgerConfig()
        for (text, milli) in [
            (".5", 500 as Int64), ("0.1000", 100), ("01000", 1_000_000), ("3.", 3000), ("2.5", 2500),
            ("1000", 1_000_000),
        ] {
            #expect(throws: Never.self) { try config.set("earn.ratio", to: text) }
            #expect(config.earnRatioMilli == milli, "\(text)")
        }
        for text in ["0.1234", "0.05", "1000.5", "", ".", "1e3", "-3", "3,5"] {
            do {
                try config.set("earn.ratio", to: text)
                Issue.record("\(text) accepted")
            } catch {
                #expect(error.message.contains("0.1 to 1000 with at most 3 decimals"), "\(error.message)")
            }
        }
        do {
            try config.set("earn.daily-cap", to: "1.5s")
            Issue.record("1.5s accepted")
        } catch {
            #expect(error.message.contains("whole seconds"))
        }
    }

    /// Samoa skipped 2011-12-30 (from 23:59:59 −10:00 on the 29th to 00:00 +14:00 on the 31st): the bounds of that
    /// week's days must still be right: the skipped day starts, empty, where the 31st does.
    @Test func aSkippedDayStartsWhereTheNextDoes() {
        let jump = CivilDate(text: "2011-12-30")!.daysSinceEpoch * 86_400 + 10 * 3600  // 10:00Z
        let zone = TransitionZone(initial: -10 * 3600, transitions: [(jump, 14 * 3600)])
        let cal = LocalCalendar(clock: ManualClock(jump), zone: zone)
        func start(_ text: String) -> Int64 { cal.startOfDay(CivilDate(text: text)!) }
        #expect(cal.stamp(start("2011-12-29")).rfc3339 == "2011-12-29T00:00:00-10:00")
        #expect(start("2011-12-30") == jump)
        #expect(start("2011-12-31") == jump)
        #expect(cal.stamp(start("2012-01-01")).rfc3339 == "2012-01-01T00:00:00+14:00")
        #expect(start("2011-12-30") - start("2011-12-29") == 24 * 3600)
        // Every day of a year of random zones: the start is reached and the instant before it is not.
        var rng = SplitMix64(seed: 11)
        for _ in 0..<300 {
            let at = Int64(rng.next() % 2_000_000_000)
            let from = Int32(Int64(rng.next() % 172_000) - 86_000)
            let to = Int32(Int64(rng.next() % 172_000) - 86_000)
            let c = LocalCalendar(clock: ManualClock(at), zone: TransitionZone(initial: from, transitions: [(at, to)]))
            let day = c.stamp(at).localDate
            for d in [day.adding(days: -2), day.adding(days: -1), day, day.adding(days: 1), day.adding(days: 2)] {
                let s = c.startOfDay(d)
                #expect(c.stamp(s).localDate >= d && c.stamp(s - 1).localDate < d, "\(from) \(to) \(d)")
            }
        }
    }
}
