import HumCore
import HumStore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The watchdog of a lift (`hum pass 15m --on games`, run by the player's guard): there is no command to stop, but
/// a shield to bring back up. Fail closed: if the player dies during the lift, the lift it paid for runs to its
/// deadline, and then this process freezes what the shields that are up name, and settles the pass.
extension Watchdog {
    /// The player running the lift died (or stopped answering): wait for the lift's deadline, freeze, settle.
    static func relock(_ shield: String, _ spec: Spec, ownerDied: Bool, _ environment: PlayerEnvironment) -> Int32 {
        let why = ownerDied ? "died" : "stopped answering"
        environment.stderr.write(
            "hum: watchdog: the hum running the lift of \(shield.visible) \(why); the shield comes back up at its "
                + "deadline\n")
        // The lift's precise end; its deadline in the ledger is the whole second after, so it is ended there first
        // (then the shield is up for everyone who reads it, this process's freeze included).
        while case let left = spec.start + spec.limit - environment.monotonic(), left > 0 {
            usleep(UInt32(min(left, 1) * 1_000_000) + 1_000)
        }
        if let id = spec.liftID { _ = try? database(environment).endLift(id: id, by: "watchdog") }
        let frozen = freezeShielded(environment)
        environment.stderr.write(
            "hum: watchdog: the lift of \(shield.visible) is over; froze \(frozen) process group(s)\n")
        guard let passID = spec.passID else { return ExitCode.success }
        return settle(passID, used: Int64(spec.limit.rounded()), environment: environment, retryFor: retryFor)
    }

    /// Freezes what every shield that is up now names (never thaws: that is the guard's work). Returns how many
    /// freezes were sent.
    static func freezeShielded(_ environment: PlayerEnvironment) -> Int {
        guard let inputs = try? database(environment).shieldInputs() else { return 0 }
        let states = ShieldState.shielded(inputs, now: environment.calendar.clock.nowEpochSeconds())
        let reader = ProcessFactsReader(
            readsDesktopIDs: inputs.shields.contains { $0.targets.contains { $0.kind == .desktopID } })
        let processes = reader.snapshot()
        var plan = ShieldPlan.make(
            shields: inputs.shields, status: states, processes: processes, frozen: [], exempt: [],
            safety: ShieldSafety(me: ProcessFactsReader.me(), among: processes))
        plan.thaw = []
        return ProcessFreezer().carryOut(plan).frozen.count
    }
}
