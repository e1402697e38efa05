import HumCore
import HumStore
import HumSystem

/// A pass's own command tree is exempt from every shield (`hum pass 15m -- steam` while `games` is up), for as long
/// as the pass is open; so is an emergency draw's command (`hum emergency 5m --reason … -- firefox`) until its
/// deadline. The guard recognises their processes by the `HUM_PASS_ID=<id>` or `HUM_EMERGENCY_ID=<entry id>` entry
/// that every process of the command inherits (PassRun, EmergencyRun), for the pass open in the ledger now and the
/// emergency commands recorded as running and not past their deadline.
///
/// Chosen over the pass telling the player its process group through the control socket because it is
/// level-triggered like the rest of the guard: a player started (or restarted) after the pass still knows the pass's
/// processes, a process that left the pass's group (setsid) still carries the entry, and nothing new crosses the
/// socket (nor is lost when the player is not there to hear it). It costs one read of /proc/PID/environ per process
/// a plan would freeze, and only then. A process that clears its environment is not recognised (frozen as any
/// other); setting the entry by hand exempts nothing once the pass is settled or the draw's command has ended.
extension ShieldGuard {
    /// The pids among those `plan` would freeze that belong to the command of the pass open now or of an emergency
    /// draw's command still running.
    func passProcesses(among plan: ShieldPlan) -> Set<Int32> {
        let candidates = plan.freeze.flatMap(\.processes)
        guard !candidates.isEmpty, let db = try? openDatabase() else { return [] }
        var tags: Set<String> = []
        if let pass = try? db.openPass() { tags.insert("\(PassRun.environmentKey)=\(pass.id)") }
        let now = environment.calendar.clock.nowEpochSeconds()
        for entry in (try? db.runningEmergencies(at: now)) ?? [] {
            tags.insert("\(EmergencyRun.environmentKey)=\(entry)")
        }
        guard !tags.isEmpty else { return [] }
        var tagged: Set<Int32> = []
        for identity in candidates where ProcessFactsReader.environment(of: identity.pid).contains(where: tags.contains)
        {
            tagged.insert(identity.pid)
        }
        return tagged
    }
}
