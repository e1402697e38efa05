import Testing

@testable import HumCore

/// Programs that a desktop started in a systemd scope of their own are frozen through the scope (`cgroup.freeze`),
/// which holds every process of the program whatever its process group; anything else keeps the group's signals.
@Suite struct ShieldScopeTests {
    let me = ShieldSafety.Me(pid: 500, uid: 1000, pgid: 500, foregroundGroup: nil)
    let games = [
        Shield(name: "games", targets: [.app("fakegame")], created: Timestamp(epochSeconds: 0, offsetSeconds: 0))
    ]
    let shell = facts(400, comm: "bash", ppid: 1, sid: 400)
    let hum = facts(500, comm: "hum", ppid: 400, sid: 400)
    static let path = "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-fakegame-4242.scope"

    func plan(
        _ processes: [ProcessFacts], status: ShieldStatus = .up, frozen: Set<ProcessIdentity> = [],
        exempt: Set<Int32> = []
    ) -> ShieldPlan {
        let all = [shell, hum] + processes
        return ShieldPlan.make(
            shields: games, status: ["games": status], processes: all, frozen: frozen, exempt: exempt,
            safety: ShieldSafety(me: me, among: all))
    }

    func scoped(
        _ pid: Int32, comm: String, pgid: Int32? = nil, frozen: Bool = false, path: String = Self.path,
        uid: UInt32 = 1000
    ) -> ProcessFacts {
        var p = facts(pid, comm: comm, pgid: pgid, sid: 400, uid: uid)
        p.scope = AppScope(path: path, frozen: frozen)
        return p
    }

    @Test func onlyADesktopProgramsOwnScopeUnderTheUsersManagerIsOne() {
        #expect(AppScope.isAppScope(Self.path, uid: 1000))
        #expect(!AppScope.isAppScope(Self.path, uid: 1001), "another user's manager")
        #expect(!AppScope.isAppScope("/user.slice/user-1000.slice/session-2.scope", uid: 1000))
        #expect(
            !AppScope.isAppScope(
                "/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-1f2e.scope", uid: 1000))
        #expect(
            !AppScope.isAppScope("/user.slice/user-1000.slice/user@1000.service/app.slice/app-x.service", uid: 1000))
        #expect(!AppScope.isAppScope("/user.slice/user@1000.service/../../app-x-1.scope", uid: 1000))
        #expect(!AppScope.isAppScope("user@1000.service/app-x-1.scope", uid: 1000), "not from the root")
        #expect(!AppScope.isAppScope("/user@1000.service//app-x-1.scope", uid: 1000))
        #expect(!AppScope.isAppScope("/", uid: 1000))
    }

    @Test func aProgramInItsOwnScopeIsFrozenThroughTheScopeWithEveryMember() {
        // The game and a helper that left its group (setsid): the scope holds both.
        let game = scoped(600, comm: "fakegame")
        let helper = scoped(610, comm: "helper", pgid: 610)
        let other = facts(700, comm: "editor", sid: 400)
        let p = plan([game, helper, other])
        #expect(p.freeze == [.scope(Self.path, members: [game.identity, helper.identity])])
        #expect(p.frozen == [game.identity, helper.identity])
        #expect(p.newlyHeld == ["games": [game.identity]])
    }

    @Test func aFrozenScopeIsNotFrozenAgainAndIsThawedAsAWholeWhenLifted() {
        // A process in a frozen scope reads `S`: the scope's own state says it is held.
        let game = scoped(600, comm: "fakegame", frozen: true)
        let helper = scoped(610, comm: "helper", pgid: 610, frozen: true)
        let again = plan([game, helper], frozen: [game.identity, helper.identity])
        #expect(again.isEmpty, "frozen again at every look")
        #expect(again.frozen == [game.identity, helper.identity])
        let lifted = plan([game, helper], status: .lifted(until: 99, lift: "L"), frozen: [game.identity])
        #expect(lifted.freeze.isEmpty)
        #expect(lifted.thaw == [.scope(Self.path, members: [game.identity, helper.identity])])
        // Frozen by an earlier hum that is gone (no record): the scope's state is the record.
        #expect(plan([game, helper], status: .off(until: 99)).thaw.count == 1)
        // A scope frozen by someone else, with nothing a shield names in it, is not hum's to thaw.
        let stranger = scoped(800, comm: "editor", frozen: true, path: Self.path + "x")
        #expect(plan([stranger]).thaw.isEmpty)
    }

    @Test func aScopeWithAMemberThatMayNotBeTouchedFallsBackToTheGroup() {
        // Another user's process in the scope (it should never be there, but then nothing of it is frozen whole).
        let game = scoped(600, comm: "fakegame")
        let foreign = scoped(620, comm: "daemon", pgid: 620, uid: 0)
        #expect(plan([game, foreign]).freeze == [.group(600, members: [game.identity])])
        // A scope holding a process of a pass (exempt) is not frozen whole either: the game alone.
        let passed = scoped(630, comm: "fakegame", pgid: 630)
        let p = plan([game, passed], exempt: [630])
        #expect(p.freeze == [.group(600, members: [game.identity])])
        // hum itself in the scope (started from a launcher's scope): the scope is never frozen.
        var humInScope = hum
        humInScope.scope = AppScope(path: Self.path, frozen: false)
        let all = [shell, humInScope, game]
        let mine = ShieldPlan.make(
            shields: games, status: ["games": .up], processes: all, frozen: [], exempt: [],
            safety: ShieldSafety(me: me, among: all))
        #expect(!mine.freeze.contains { if case .scope = $0 { true } else { false } })
    }
}
