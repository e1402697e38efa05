import HumCore
import HumStore
import HumSystem

/// A pass's own command tree is exempt from every shield (`hum pass 15m -- steam` while `games` is up), for as long
/// as the pass is open. The guard recognises the pass's processes by the `HUM_PASS_ID=<id>` entry that every process
/// of a pass's command inherits (PassRun), for the pass open in the ledger now.
///
/// Chosen over the pass telling the player its process group through the control socket because it is
/// level-triggered like the rest of the guard: a player started (or restarted) after the pass still knows the pass's
/// processes, a process that left the pass's group (setsid) still carries the entry, and nothing new crosses the
/// socket (nor is lost when the player is not there to hear it). It costs one read of /proc/PID/environ per process
/// a plan would freeze, and only then. A process that clears its environment is not recognised (frozen as any
/// other); setting the entry by hand exempts nothing once the pass is settled.
extension ShieldGuard {
    /// The pids among those `plan` would freeze that belong to the command of the pass open now.
    func passProcesses(among plan: ShieldPlan) -> Set<Int32> {
        let candidates = plan.freeze.flatMap(\.processes)
        guard !candidates.isEmpty, let db = try? openDatabase(), let pass = try? db.openPass() else { return [] }
        let tag = "\(PassRun.environmentKey)=\(pass.id)"
        var tagged: Set<Int32> = []
        for identity in candidates where ProcessFactsReader.environment(of: identity.pid).contains(tag) {
            tagged.insert(identity.pid)
        }
        return tagged
    }
}
