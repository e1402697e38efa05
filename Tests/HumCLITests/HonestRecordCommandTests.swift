import Foundation
import HumCore
import Testing

@testable import HumCLI

/// `hum history record`: marked as recorded by hand in the history and the ledger, overlaps refused, earnings on the
/// round's own day.
@Suite struct HonestRecordCommandTests {
    @Test func theSameCommandTwiceRecordsOneRound() throws {
        let s = Sandbox()
        let first = s.run("history", "record", "--active", "25m")
        #expect(first.code == 0 && first.out.contains("by hand") && first.out.contains("earned 8m20s"), "\(first.out)")
        let second = s.run("history", "record", "--active", "25m")
        #expect(second.code == 3, "\(second.err)")
        #expect(second.err.contains("overlaps round") && second.err.contains("nothing was recorded"), "\(second.err)")
        #expect(second.err.split(separator: "\n").count == 1)
        let bank = try #require(json(s.run("bank", "--json").out) as? [String: Any])
        #expect(bank["balance_seconds"] as? Int == 500)
        let future = s.run("history", "record", "--active", "25m", "--start", "9999-01-01T00:00:00Z")
        #expect(future.code == 3 && future.err.contains("must have ended by now"), "\(future.err)")
    }

    @Test func aBackdatedRoundEarnsOnItsDayAndIsMarkedInTheHistoryAndTheLedger() throws {
        let s = Sandbox()
        let r = s.run("history", "record", "--active", "25m", "--start", "2025-03-01T10:00:00+01:00", "--id", "old")
        #expect(r.code == 0 && r.out.contains("earned 8m20s on 2025-03-01"), "\(r.out)")
        let ledger = try #require(json(s.run("ledger", "--json").out) as? [[String: Any]])
        // At the round's end (the zone of this process may differ from the one of the --start given).
        let at = (ledger.first?["at"] as? String).flatMap { Timestamp(rfc3339: $0) }
        #expect(at?.epochSeconds == Timestamp(rfc3339: "2025-03-01T10:25:00+01:00")?.epochSeconds)
        #expect(ledger.first?["label"] as? String == "recorded by hand")
        #expect(s.run("ledger").out.contains("focus round old, recorded by hand"))
        let bank = try #require(json(s.run("bank", "--json").out) as? [String: Any])
        #expect(bank["earned_today_seconds"] as? Int == 0, "today's cap is untouched")
        let history = try #require(json(s.run("history", "--since", "2025-03-01", "--json").out) as? [String: Any])
        #expect((history["sessions"] as? [[String: Any]])?.first?["recorded_by_hand"] as? Bool == true)
        // It ends in the offset it was started in, whatever the zone of the process that recorded it.
        let session = (history["sessions"] as? [[String: Any]])?.first
        #expect(session?["end"] as? String == "2025-03-01T10:25:00+01:00", "\(session ?? [:])")
        #expect(s.run("history", "--since", "2025-03-01").out.contains("recorded by hand"))
        #expect(s.run("ledger", "check").code == 0)
    }
}
