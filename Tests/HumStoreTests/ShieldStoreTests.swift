import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumStore

/// Shields in the database: made and added to, listed, removed on the record, turned off and on, lifted by leases
/// that end by themselves; strict mode refuses what loosens them.
@Suite struct ShieldStoreTests {
    let t0: Int64 = 1_743_000_000

    @Test func addingMakesAShieldThenAddsOnlyWhatItLacks() throws {
        let dir = TempDirectory()
        let db = try open(dir, clock: ManualClock(t0))
        #expect(try db.db.scalarInt("PRAGMA user_version") == Schema.latestVersion)
        let first = try db.addShield(
            name: "games", targets: [.app("steam"), .app("steam"), .match("java .*minecraft")])
        #expect(first.created && first.added == [.app("steam"), .match("java .*minecraft")])
        #expect(first.shield.created == Timestamp(epochSeconds: t0, offsetSeconds: 3600))
        let second = try db.addShield(name: "games", targets: [.app("steam"), .desktopID("com.valvesoftware.Steam")])
        #expect(!second.created && second.added == [.desktopID("com.valvesoftware.Steam")])
        #expect(
            second.shield.targets == [.app("steam"), .match("java .*minecraft"), .desktopID("com.valvesoftware.Steam")])
        _ = try db.addShield(name: "social", targets: [.app("telegram-desktop")])
        #expect(try db.shields().map(\.name) == ["games", "social"])
        #expect(try db.shield(named: "games") == second.shield)
        #expect(try db.shield(named: "nope") == nil)
        // Reopened, the same.
        let again = try open(dir, clock: ManualClock(t0))
        #expect(try again.shields() == db.shields())
    }

    @Test func removingKeepsTheRecordAndFreesTheName() throws {
        let dir = TempDirectory()
        let clock = ManualClock(t0)
        let db = try open(dir, clock: clock)
        _ = try db.addShield(name: "games", targets: [.app("steam"), .app("lutris")])
        let lift = try db.openLift(shield: "games", seconds: 900, entryID: "E1")
        _ = try db.turnShieldsOff(["games"], seconds: 3600, reason: "guests")
        #expect(try db.removeTargets([.app("lutris")], fromShield: "games").targets == [.app("steam")])
        #expect(throws: ShieldStoreError.noSuchTarget("games", .app("lutris"))) {
            try db.removeTargets([.app("lutris")], fromShield: "games")
        }
        #expect(throws: ShieldStoreError.lastTarget("games")) {
            try db.removeTargets([.app("steam")], fromShield: "games")
        }
        clock.advance(10)
        try db.removeShield(named: "games")
        #expect(try db.shields().isEmpty)
        #expect(throws: ShieldStoreError.unknown("games", known: [])) { try db.removeShield(named: "games") }
        // The lift ended with it, on the record; the off too.
        #expect(
            try db.lifts(ofShield: "games") == [
                ShieldLift(id: lift.id, shield: "games", entryID: "E1", start: t0, deadline: t0 + 901, ended: t0 + 10)
            ])
        #expect(try db.db.scalarInt("SELECT COUNT(*) FROM shield_offs WHERE ended_epoch = ?", [.int(t0 + 10)]) == 1)
        // The name can be used again: a new shield, with none of the old one's offs or lifts.
        _ = try db.addShield(name: "games", targets: [.app("steam")])
        #expect(try db.shieldInputs() == ShieldInputs(shields: try db.shields()))
        #expect(try db.db.scalarInt("SELECT COUNT(*) FROM shields") == 2)
    }

    @Test func offsAreOnTheRecordAndOnEndsThemEarly() throws {
        let dir = TempDirectory()
        let clock = ManualClock(t0)
        let db = try open(dir, clock: clock)
        _ = try db.addShield(name: "games", targets: [.app("steam")])
        _ = try db.addShield(name: "social", targets: [.app("telegram-desktop")])
        let offs = try db.turnShieldsOff(nil, seconds: 3600, reason: "guests")
        #expect(offs.map(\.shield) == ["games", "social"] && offs.allSatisfy { $0.end == t0 + 3600 })
        var state = ShieldState.shielded(try db.shieldInputs(), now: clock.nowEpochSeconds())
        #expect(state == ["games": .off(until: t0 + 3600), "social": .off(until: t0 + 3600)])
        clock.advance(60)
        #expect(try db.turnShieldOn(named: "games") == 1)
        #expect(try db.turnShieldOn(named: "games") == 0)
        state = ShieldState.shielded(try db.shieldInputs(), now: clock.nowEpochSeconds())
        #expect(state == ["games": .up, "social": .off(until: t0 + 3600)])
        #expect(
            try db.db.scalarText("SELECT reason FROM shield_offs WHERE ended_epoch = ?", [.int(t0 + 60)]) == "guests")
        // Over by itself at its end.
        clock.set(t0 + 3600)
        #expect(try db.shieldInputs().offs.isEmpty)
        #expect(throws: ShieldStoreError.self) { try db.turnShieldsOff(["gmaes"], seconds: 60, reason: nil) }
        let unknown = #expect(throws: ShieldStoreError.self) { try db.turnShieldOn(named: "gmaes") }
        #expect(unknown?.message.contains("did you mean games?") == true)
    }

    @Test func liftsAreLeasesThatEndByThemselves() throws {
        let dir = TempDirectory()
        let clock = ManualClock(t0)
        let db = try open(dir, clock: clock)
        _ = try db.addShield(name: "games", targets: [.app("steam")])
        let lift = try db.openLift(shield: "games", seconds: 900, entryID: nil)
        // The deadline is rounded up to the next whole second: the clock here is cut down to its second, and a
        // lift never lasts less than asked (the hum holding it ends it at the precise end).
        #expect(lift.start == t0 && lift.deadline == t0 + 901 && lift.ended == nil)
        #expect(try db.shieldInputs().lifts == [lift])
        #expect(
            ShieldState.shielded(try db.shieldInputs(), now: t0 + 900)["games"]
                == .lifted(until: t0 + 901, lift: lift.id)
        )
        // After the deadline it is gone from the inputs, and cannot be ended any more.
        clock.set(t0 + 901)
        #expect(try db.shieldInputs().lifts.isEmpty)
        #expect(try !db.endLift(id: lift.id))
        // Ended early: up at once.
        let second = try db.openLift(shield: "games", seconds: 600, entryID: "E2")
        clock.advance(30)
        #expect(try db.endLift(id: second.id, by: "owner"))
        #expect(try !db.endLift(id: second.id))
        #expect(try db.shieldInputs().lifts.isEmpty)
        #expect(try db.lifts(ofShield: "games").map(\.ended) == [nil, t0 + 931])
        #expect(throws: ShieldStoreError.self) { try db.openLift(shield: "nope", seconds: 60, entryID: nil) }
    }

    @Test func aPassLiftsOnlyAShieldThatIsUpDecidedInItsTransaction() throws {
        let dir = TempDirectory()
        let clock = ManualClock(t0)
        let db = try open(dir, clock: clock)
        _ = try db.addShield(name: "games", targets: [.app("steam")])
        _ = try db.record(.adjust(seconds: 3600, reason: "test", key: nil))
        // Another lift got there first (a second request, or an emergency): refused, and nothing held.
        let first = try db.openLift(shield: "games", seconds: 600, entryID: nil)
        #expect(throws: ShieldLiftRefusal.notUp("games", .lifted(until: first.deadline, lift: first.id))) {
            _ = try db.openPass(id: "P1", seconds: 60, forfeit: false, lifting: "games")
        }
        #expect(try db.openPass() == nil)
        #expect(try db.lifts(ofShield: "games").count == 1)
        // Off: refused too.
        #expect(try db.endLift(id: first.id))
        _ = try db.turnShieldsOff(["games"], seconds: 60, reason: nil)
        #expect(throws: ShieldLiftRefusal.self) {
            _ = try db.openPass(id: "P2", seconds: 60, forfeit: false, lifting: "games")
        }
        #expect(try db.openPass() == nil)
        // Up again: the hold and the lift are written together.
        #expect(try db.turnShieldOn(named: "games") == 1)
        let opened = try db.openPass(id: "P3", seconds: 60, forfeit: false, lifting: "games")
        #expect(try db.openPass()?.id == "P3")
        #expect(opened.lift.entryID == opened.decision.entry.id)
    }

    @Test func aStrictContractRefusesWhatLoosensAShield() throws {
        let dir = TempDirectory()
        let clock = ManualClock(t0)
        let db = try open(dir, clock: clock)
        _ = try db.addShield(name: "games", targets: [.app("steam"), .app("lutris")])
        _ = try db.turnShieldsOff(["games"], seconds: 600, reason: nil)
        var strict = ContractStoreTests.start
        strict.strict = true
        _ = try db.createContract(
            strict, rounds: 1, focusSeconds: 1500, endsAt: db.calendar.stamp(t0 + 1500), baseline: [])
        func refusal(_ body: () throws -> Void) -> StrictRules.Loosening? {
            do {
                try body()
                return nil
            } catch let r as StrictRules.Refusal {
                return r.what
            } catch {
                return nil
            }
        }
        #expect(refusal { try db.removeShield(named: "games") } == .removeShield("games"))
        #expect(
            refusal { _ = try db.removeTargets([.app("lutris")], fromShield: "games") } == .removeShieldTargets("games")
        )
        #expect(refusal { _ = try db.turnShieldsOff(["games"], seconds: 60, reason: nil) } == .shieldOff("games"))
        #expect(refusal { _ = try db.turnShieldsOff(nil, seconds: 60, reason: nil) } == .shieldOff("--all"))
        // Nothing changed.
        #expect(try db.shield(named: "games")?.targets == [.app("steam"), .app("lutris")])
        #expect(try db.db.scalarInt("SELECT COUNT(*) FROM shield_offs") == 1)
        // Tightening stays open: adding targets, a new shield, ending an off early.
        _ = try db.addShield(name: "games", targets: [.app("heroic")])
        _ = try db.addShield(name: "social", targets: [.app("telegram-desktop")])
        #expect(try db.turnShieldOn(named: "games") == 1)
    }
}
