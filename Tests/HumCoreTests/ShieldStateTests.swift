import Testing

@testable import HumCore

@Suite struct ShieldStateTests {
    let t0: Int64 = 1_700_000_000
    var shields: [Shield] {
        let at = Timestamp(epochSeconds: t0 - 1000, offsetSeconds: 0)
        return [
            Shield(name: "games", targets: [.app("steam")], created: at),
            Shield(name: "social", targets: [.desktopID("org.telegram.desktop")], created: at),
        ]
    }

    @Test func upUnlessAnOffOrALiftIsInForce() {
        #expect(ShieldState.shielded(shields: shields, offs: [], lifts: [], now: t0) == ["games": .up, "social": .up])
        let off = ShieldOff(shield: "games", start: t0 - 10, end: t0 + 3600, reason: "guests")
        let lift = ShieldLift(id: "L1", shield: "social", entryID: "E1", start: t0 - 5, deadline: t0 + 900)
        let s = ShieldState.shielded(shields: shields, offs: [off], lifts: [lift], now: t0)
        #expect(s == ["games": .off(until: t0 + 3600), "social": .lifted(until: t0 + 900, lift: "L1")])
        #expect(s["games"]?.word == "off" && s["social"]?.until == t0 + 900)
    }

    @Test func leasesEndByThemselves() {
        let lift = ShieldLift(id: "L1", shield: "games", start: t0, deadline: t0 + 900)
        let inputs = ShieldInputs(shields: shields, lifts: [lift])
        #expect(ShieldState.shielded(inputs, now: t0 + 899)["games"] == .lifted(until: t0 + 900, lift: "L1"))
        #expect(ShieldState.shielded(inputs, now: t0 + 900)["games"] == .up)
        #expect(ShieldState.shielded(inputs, now: t0 + 99_999)["games"] == .up)
        // Ended early (the pass ended): up from that moment.
        var ended = lift
        ended.ended = t0 + 60
        let early = ShieldInputs(shields: shields, lifts: [ended])
        #expect(ShieldState.shielded(early, now: t0 + 59)["games"] == .lifted(until: t0 + 60, lift: "L1"))
        #expect(ShieldState.shielded(early, now: t0 + 60)["games"] == .up)
    }

    @Test func failsClosedWhenTheClockIsBeforeALiftOrAnOff() {
        let lift = ShieldLift(id: "L1", shield: "games", start: t0, deadline: t0 + 900)
        let off = ShieldOff(shield: "social", start: t0, end: t0 + 900)
        let s = ShieldState.shielded(shields: shields, offs: [off], lifts: [lift], now: t0 - 1)
        #expect(s == ["games": .up, "social": .up])
    }

    @Test func anOffWinsOverALiftAndTheLongestOfEachCounts() {
        let offs = [
            ShieldOff(shield: "games", start: t0, end: t0 + 60), ShieldOff(shield: "games", start: t0, end: t0 + 600),
        ]
        let lifts = [
            ShieldLift(id: "a", shield: "games", start: t0, deadline: t0 + 3000),
            ShieldLift(id: "b", shield: "social", start: t0, deadline: t0 + 30),
            ShieldLift(id: "c", shield: "social", start: t0, deadline: t0 + 90),
        ]
        let s = ShieldState.shielded(shields: shields, offs: offs, lifts: lifts, now: t0 + 10)
        #expect(s == ["games": .off(until: t0 + 600), "social": .lifted(until: t0 + 90, lift: "c")])
        // After the off, the longer lift still holds.
        let later = ShieldState.shielded(shields: shields, offs: offs, lifts: lifts, now: t0 + 700)
        #expect(later == ["games": .lifted(until: t0 + 3000, lift: "a"), "social": .up])
    }

    @Test func offsAndLiftsOfUnknownShieldsChangeNothing() {
        let s = ShieldState.shielded(
            shields: shields, offs: [ShieldOff(shield: "gone", start: t0, end: t0 + 60)],
            lifts: [ShieldLift(id: "x", shield: "gone", start: t0, deadline: t0 + 60)], now: t0 + 1)
        #expect(s == ["games": .up, "social": .up])
    }

    @Test func theNextChangeIsWhenTheGuardMustLookAgain() {
        let inputs = ShieldInputs(
            shields: shields, offs: [ShieldOff(shield: "games", start: t0, end: t0 + 600)],
            lifts: [ShieldLift(id: "a", shield: "social", start: t0 + 30, deadline: t0 + 90, ended: t0 + 50)])
        #expect(ShieldState.nextChange(inputs, after: t0) == t0 + 30)
        #expect(ShieldState.nextChange(inputs, after: t0 + 30) == t0 + 50)
        #expect(ShieldState.nextChange(inputs, after: t0 + 50) == t0 + 600)
        #expect(ShieldState.nextChange(inputs, after: t0 + 600) == nil)
    }
}
