import Testing

@testable import HumCore

/// A small machine: init, a kernel thread, a terminal (its shell leads a session), hum run from that shell, and
/// programs of this user and of another.
private struct Machine {
    static let terminal = facts(300, comm: "xterm", ppid: 1, sid: 300)
    static let shell = facts(400, comm: "bash", ppid: 300, sid: 400)
    static let hum = facts(500, comm: "hum", ppid: 400, sid: 400)
    static let pager = facts(501, comm: "less", ppid: 400, pgid: 500, sid: 400)
    static let game = facts(600, comm: "fakegame", ppid: 1, sid: 400)
    static let foreground = facts(700, comm: "vim", ppid: 400, sid: 400)
    static let others = facts(800, comm: "fakegame", ppid: 1, sid: 800, uid: 65534)
    static let initProcess = facts(1, comm: "init", ppid: 0, pgid: 1, sid: 1, uid: 0)
    static let kthread = facts(2, comm: "kthreadd", ppid: 0, pgid: 0, sid: 0, uid: 1000, kernel: true)
    static let worker = facts(9, comm: "kworker/0:1", cmdline: [], ppid: 2, pgid: 0, sid: 0, uid: 1000, kernel: true)
    static let all = [initProcess, kthread, worker, terminal, shell, hum, pager, game, foreground, others]
    static let me = ShieldSafety.Me(pid: 500, uid: 1000, pgid: 500, foregroundGroup: 700)
    static let safety = ShieldSafety(me: me, among: all)
}

@Suite struct ShieldSafetyTests {
    @Test func protectedProcessesAndWhy() {
        let s = Machine.safety
        #expect(s.ancestors == [400, 300, 1])
        #expect(s.protection(of: Machine.initProcess) == .initProcess)
        #expect(s.protection(of: Machine.kthread) == .kernelThread)
        #expect(s.protection(of: Machine.worker) == .kernelThread)
        #expect(s.protection(of: Machine.hum) == .hum)
        #expect(s.protection(of: Machine.shell) == .humAncestor)
        #expect(s.protection(of: Machine.terminal) == .humAncestor)
        #expect(s.protection(of: Machine.pager) == .humGroup)
        #expect(s.protection(of: Machine.foreground) == .terminalForeground)
        #expect(s.protection(of: Machine.others) == .otherUser)
        #expect(s.protection(of: facts(900, comm: "zsh", ppid: 1, sid: 900)) == .sessionLeader)
        #expect(s.protection(of: Machine.game) == nil)
    }

    @Test func aGroupIsTouchedOnlyWhenEveryMemberMayBe() {
        let helper = facts(601, comm: "helper", ppid: 600, pgid: 600, sid: 400)
        let intruder = facts(602, comm: "sshd", ppid: 1, pgid: 600, sid: 400, uid: 0)
        let s = Machine.safety
        #expect(s.mayTouchGroup(600, among: Machine.all + [helper]))
        #expect(!s.mayTouchGroup(600, among: Machine.all + [helper, intruder]))
        #expect(!s.mayTouchGroup(500, among: Machine.all))
        #expect(!s.mayTouchGroup(1, among: Machine.all))
        #expect(!s.mayTouchGroup(0, among: Machine.all))
        #expect(!s.mayTouchGroup(4242, among: Machine.all))
    }

    @Test func aPatternThatMatchesHumOrItsShellIsRefused() throws {
        let s = Machine.safety
        #expect(s.refusal(for: .app("fakegame"), among: Machine.all) == nil)
        let hum = try #require(s.refusal(for: .app("hum"), among: Machine.all))
        #expect(hum.reason == .hum && hum.pid == 500 && hum.kind == .refused)
        #expect(hum.message.contains("\"--app hum\" matches \"hum\" (pid 500), hum itself"))
        #expect(s.refusal(for: .app("bash"), among: Machine.all)?.reason == .humAncestor)
        #expect(s.refusal(for: .match("^/usr/bin/(x|ba)"), among: Machine.all)?.reason == .humAncestor)
        #expect(s.refusal(for: .app("init"), among: Machine.all)?.reason == .initProcess)
        #expect(s.refusal(for: .app("vim"), among: Machine.all)?.reason == .terminalForeground)
        // hum's own command line holds the pattern it is given (so does a shell's that runs it): not a match.
        let adding = facts(
            500, comm: "hum", cmdline: ["hum", "shield", "add", "g", "--match", "java .*minecraft"], ppid: 400, sid: 400
        )
        let shell = facts(
            400, comm: "sh", cmdline: ["sh", "-c", "hum shield add g --match 'java .*minecraft'"], sid: 400)
        let safety = ShieldSafety(me: Machine.me, among: [shell, adding])
        #expect(safety.refusal(for: .match("java .*minecraft"), among: [shell, adding]) == nil)
        #expect(safety.refusal(for: .match("^sh -c"), among: [shell, adding])?.reason == .humAncestor)
        // Another user's process or a kernel thread is simply never touched: the pattern may also name them.
        #expect(s.refusal(for: .match("kworker|fakegame"), among: Machine.all) == nil)
    }
}
