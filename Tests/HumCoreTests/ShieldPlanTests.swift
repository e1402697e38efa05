import Testing

@testable import HumCore

@Suite struct ShieldPlanTests {
    let me = ShieldSafety.Me(pid: 500, uid: 1000, pgid: 500, foregroundGroup: nil)
    let games = [
        Shield(name: "games", targets: [.app("fakegame")], created: Timestamp(epochSeconds: 0, offsetSeconds: 0))
    ]
    let shell = facts(400, comm: "bash", ppid: 1, sid: 400)
    let hum = facts(500, comm: "hum", ppid: 400, sid: 400)

    func plan(
        _ processes: [ProcessFacts], status: ShieldStatus = .up, frozen: Set<ProcessIdentity> = [],
        exempt: Set<Int32> = []
    ) -> ShieldPlan {
        let all = [shell, hum] + processes
        return ShieldPlan.make(
            shields: games, status: ["games": status], processes: all, frozen: frozen, exempt: exempt,
            safety: ShieldSafety(me: me, among: all))
    }

    @Test func aNamedProgramIsFrozenWithItsWholeGroup() {
        let game = facts(600, comm: "fakegame", sid: 400)
        let helper = facts(601, comm: "helper", ppid: 600, pgid: 600, sid: 400)
        let other = facts(700, comm: "editor", sid: 400)
        let p = plan([game, helper, other])
        #expect(p.freeze == [.group(600, members: [game.identity, helper.identity])])
        #expect(p.thaw == [])
        #expect(p.frozen == [game.identity, helper.identity])
        #expect(p.newlyHeld == ["games": [game.identity]])
    }

    @Test func aGroupWithAMemberThatMayNotBeTouchedIsFrozenProcessByProcess() {
        // The game shares a group with another user's process: only the game is signalled.
        let game = facts(600, comm: "fakegame", sid: 400)
        let foreign = facts(601, comm: "daemon", ppid: 1, pgid: 600, sid: 400, uid: 0)
        #expect(plan([game, foreign]).freeze == [.process(game.identity)])
        // A game in hum's own group (started in the same pipeline) is left alone with hum's group.
        let inHumsGroup = facts(602, comm: "fakegame", ppid: 400, pgid: 500, sid: 400)
        #expect(plan([inHumsGroup]).freeze.isEmpty)
        #expect(plan([inHumsGroup]).untouchable == [inHumsGroup.identity: .humGroup])
    }

    @Test func protectedProcessesAreNeverFrozenWhateverMatches() {
        let match = [
            Shield(name: "games", targets: [.match("fakegame|hum|bash|init|kworker")], created: games[0].created)
        ]
        let initProcess = facts(1, comm: "init", cmdline: ["/sbin/init", "fakegame"], ppid: 0, pgid: 1, sid: 1, uid: 0)
        let worker = facts(9, comm: "kworker", cmdline: ["kworker"], ppid: 2, pgid: 0, sid: 0, kernel: true)
        let others = facts(800, comm: "fakegame", sid: 800, uid: 65534)
        let leader = facts(900, comm: "fakegame", ppid: 1, sid: 900)
        let all = [shell, hum, initProcess, worker, others, leader]
        let p = ShieldPlan.make(
            shields: match, status: ["games": .up], processes: all, frozen: [], exempt: [],
            safety: ShieldSafety(me: me, among: all))
        #expect(p.freeze.isEmpty && p.frozen.isEmpty)
        #expect(p.untouchable[hum.identity] == .hum)
        #expect(p.untouchable[shell.identity] == .humAncestor)
        #expect(p.untouchable[initProcess.identity] == .initProcess)
        #expect(p.untouchable[worker.identity] == .kernelThread)
        #expect(p.untouchable[others.identity] == .otherUser)
        #expect(p.untouchable[leader.identity] == .sessionLeader)
    }

    @Test func aPasssCommandTreeIsExemptAndThawedIfFrozen() {
        let passed = facts(600, comm: "fakegame", sid: 400, state: "T")
        let child = facts(601, comm: "fakegame", ppid: 600, pgid: 600, sid: 400)
        let another = facts(700, comm: "fakegame", sid: 400)
        let p = plan([passed, child, another], frozen: [passed.identity], exempt: [600, 601])
        #expect(p.freeze == [.group(700, members: [another.identity])])
        // Nothing in the pass's group is wanted frozen, so the group is resumed as a whole.
        #expect(p.thaw == [.group(600, members: [passed.identity, child.identity])])
        #expect(p.frozen == [another.identity])
    }

    @Test func liftingThawsAndRelockingFreezesAgain() {
        let game = facts(600, comm: "fakegame", sid: 400, state: "T")
        let lifted = plan([game], status: .lifted(until: 99, lift: "L"), frozen: [game.identity])
        #expect(lifted.freeze == [] && lifted.thaw == [.group(600, members: [game.identity])])
        #expect(lifted.frozen.isEmpty)
        // Stopped by an earlier hum that is gone (no record): still thawed, the kernel's state is the record.
        #expect(plan([game], status: .off(until: 99)).thaw == [.group(600, members: [game.identity])])
        var running = game
        running.state = "S"
        #expect(plan([running]).freeze == [.group(600, members: [game.identity])])
        // Already stopped and wanted so: nothing to do (carrying a plan out twice does nothing more).
        let again = plan([game], frozen: [game.identity])
        #expect(again.isEmpty && again.frozen == [game.identity])
        // Resumed behind hum's back (kill -CONT): frozen again.
        #expect(plan([running], frozen: [game.identity]).freeze == [.group(600, members: [game.identity])])
    }

    @Test func aProcessStoppedByUsThatNoShieldNamesAnyMoreIsThawed() {
        // The shield was removed: the record alone says hum froze it.
        let game = facts(600, comm: "fakegame", sid: 400, state: "T")
        let p = ShieldPlan.make(
            shields: [], status: [:], processes: [shell, hum, game], frozen: [game.identity], exempt: [],
            safety: ShieldSafety(me: me, among: [shell, hum, game]))
        #expect(p.thaw == [.group(600, members: [game.identity])])
        // A stopped process that neither a shield names nor a record holds is not hum's to resume.
        let stranger = facts(700, comm: "editor", sid: 400, state: "T")
        #expect(plan([stranger]).thaw.isEmpty)
    }

    @Test func zombiesAreLeftOut() {
        let dead = facts(600, comm: "fakegame", sid: 400, state: "Z")
        let p = plan([dead])
        #expect(p.isEmpty && p.frozen.isEmpty)
    }
}
