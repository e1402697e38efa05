import HumCore
import HumSystem

/// `shield.action = terminate`: a program a shield holds is frozen as always, then, once it has been held for
/// `shield.grace`, asked to end (SIGTERM, and SIGCONT so that a frozen program runs its handler), and killed
/// (SIGKILL) if it is still there `ShieldAction.killAfter` seconds later while a shield is still up. Only processes
/// the plan holds (this user's, safe to touch, read a moment before) are asked, and each is checked again against
/// the safety rules and its start time before its signal. A process asked to end is left running (not frozen again)
/// so that it can end cleanly.
extension ShieldGuard {
    /// Whether a program held or asked to end is due for its next signal at `now` (monotonic seconds).
    func terminationDue(now: Double) -> Bool {
        guard action == .terminate else { return false }
        let grace = Double(graceSeconds)
        return held.values.contains { $0 + grace <= now }
            || terminating.values.contains { $0 + Double(ShieldAction.killAfter) <= now }
    }

    /// Keeps since when each process the plan holds has been held (`frozen`, the whole plan's), forgetting those no
    /// longer held (thawed by a lift, gone).
    func noteHeld(now: Double) {
        guard action == .terminate else {
            held = [:]
            terminating = [:]
            return
        }
        held = held.filter { frozen.contains($0.key) }
        for id in frozen where held[id] == nil && terminating[id] == nil { held[id] = now }
    }

    /// Sends what is due among `processes` (a snapshot read now): SIGTERM to those held for the grace, SIGKILL to
    /// those asked to end `killAfter` seconds ago and still there while a shield is up.
    func terminateDue(among processes: [ProcessFacts], now: Double) {
        let safety = ShieldSafety(me: ProcessFactsReader.me(), among: processes)
        let living = Dictionary(processes.map { ($0.identity, $0) }, uniquingKeysWith: { a, _ in a })
        terminating = terminating.filter { living[$0.key].map { !$0.isDead } ?? false }
        let anyUp = states.values.contains(.up)
        let freezer = ProcessFreezer()
        for (id, asked) in terminating where asked + Double(ShieldAction.killAfter) <= now {
            guard anyUp, let p = living[id], safety.protection(of: p) == nil else {
                terminating[id] = nil
                continue
            }
            if case .failed(let why) = freezer.terminate(id, kill: true) { say("could not kill pid \(id.pid): \(why)") }
        }
        for (id, since) in held where since + Double(graceSeconds) <= now {
            held[id] = nil
            guard let p = living[id], safety.protection(of: p) == nil else { continue }
            switch freezer.terminate(id, kill: false) {
            case .done:
                terminating[id] = now
                environment.stderr.write(
                    "hum: shield: asked \(p.exe ?? p.comm) (pid \(id.pid)) to end after \(graceSeconds)s frozen\n")
            case .gone: break
            case .failed(let why): say("could not terminate pid \(id.pid): \(why)")
            }
        }
    }
}
