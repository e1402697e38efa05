import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumStore

/// What a pass whose owner died is charged: nobody saw its command end, so the last heartbeat is only a lower
/// bound. It is charged up to the moment it is reconciled (when its command is found and stopped), or up to its
/// deadline if that came first.
@Suite struct PassReconcileTests {
    /// A pass of 30 min opened at `t0`, heartbeats up to `beat` seconds, the owner dies; reconciled `after` seconds
    /// after the start. Returns the seconds charged.
    func charged(beat: Int64, after: Int64, clockJump: Int64 = 0) throws -> Int64 {
        let dir = TempDirectory()
        let clock = ManualClock(1_700_000_000)
        do {
            let db = try open(dir, clock: clock)
            _ = try db.record(.adjust(seconds: 7200, reason: "seed", key: nil))
            _ = try db.openPass(id: "p", seconds: 1800, label: "games", forfeit: false, command: ["game"])
            clock.advance(beat)
            try db.heartbeatPass(id: "p", usedSeconds: beat)
        }
        clock.advance(after - beat + clockJump)
        let db = try open(dir, clock: clock, alive: [])
        let report = try db.reconcile()
        #expect(report.settledPasses.count == 1)
        #expect(try db.check().isEmpty)
        let used = report.settledPasses.first?.used ?? -1
        #expect(try db.bankStatus().balance == 7200 - used)
        return used
    }

    @Test func aMissingHeartbeatIsNotReadAsStoppedEarly() throws {
        // The last heartbeat at 60 s; found 10 min after the start: 10 min were (or may have been) used.
        #expect(try charged(beat: 60, after: 600) == 600)
    }

    @Test func afterTheDeadlineTheWholePassIsCharged() throws {
        #expect(try charged(beat: 60, after: 5000) == 1800)
    }

    @Test func neverLessThanTheHeartbeatNorMoreThanTheHold() throws {
        // The wall clock set back an hour: the heartbeat still counts.
        #expect(try charged(beat: 300, after: 400, clockJump: -3600) == 300)
        // Set forward a day: no more than was held.
        #expect(try charged(beat: 300, after: 400, clockJump: 86_400) == 1800)
    }

    /// The command of an emergency draw is owned by its hum like a pass: while that hum lives nothing happens; once
    /// it is dead the next reconciliation records the command as ended, once, and hands back the leader of its group
    /// only while that leader is still the process recorded.
    @Test func anEmergencysCommandWhoseHumDiedIsEndedOnce() throws {
        let dir = TempDirectory()
        let clock = ManualClock(1_700_000_000)
        let entryID: String
        do {
            let db = try open(dir, clock: clock)
            entryID = try db.record(.emergency(seconds: 300, reason: "plumber", key: nil)).entry.id
            try db.startEmergencyRun(entryID: entryID, seconds: 300, command: ["sh", "-c", "call"])
            let leader = ProcessOwner(pid: 200, startTicks: 7, bootID: "boot")
            try db.emergencyRunStarted(entryID: entryID, leader: leader)
            #expect(try db.reconcile().isEmpty)
            #expect(try db.runningEmergencies() == [entryID])
        }
        clock.advance(60)
        let withLeader = try open(dir, clock: clock, alive: [200]).reconcile()
        #expect(
            withLeader.endedEmergencies == [
                .init(entryID: entryID, leader: ProcessOwner(pid: 200, startTicks: 7, bootID: "boot"))
            ])
        let db = try open(dir, clock: clock, alive: [])
        #expect(try db.reconcile().isEmpty, "ended once")
        #expect(try db.runningEmergencies().isEmpty)
        #expect(try db.check().isEmpty)
        #expect(try db.bankStatus().emergencyLeft == 300, "the draw stays made")

        // Its leader gone too (or its pid reused by another process): only the draw's id is left to find it by.
        let second = try db.record(.emergency(seconds: 60, reason: "again", key: nil)).entry.id
        try db.startEmergencyRun(entryID: second, seconds: 60, command: ["x"])
        try db.emergencyRunStarted(entryID: second, leader: ProcessOwner(pid: 300, startTicks: 9, bootID: "boot"))
        #expect(
            try open(dir, clock: clock, alive: []).reconcile().endedEmergencies == [.init(entryID: second, leader: nil)]
        )
        // One that ended normally is never reconciled.
        let third = try db.record(.emergency(seconds: 60, reason: "three", key: nil)).entry.id
        try db.startEmergencyRun(entryID: third, seconds: 60, command: ["x"])
        try db.endEmergencyRun(entryID: third)
        #expect(try open(dir, clock: clock, alive: []).reconcile().isEmpty)
    }

    @Test func theRuleAtItsEdges() {
        let rule = HumDatabase.usedByDeadPass
        #expect(rule(100, 1900, 1800, 0, 100) == 0)
        #expect(rule(100, 1900, 1800, 0, 1900) == 1800)
        #expect(rule(100, 1900, 1800, 5, 50) == 5)
        // Stored values at the edge of Int64 do not trap.
        #expect(rule(Int64.min, Int64.max, 1800, 0, Int64.max) == 1800)
        #expect(rule(Int64.max, Int64.max, 1800, 0, Int64.min) == 0)
    }
}
