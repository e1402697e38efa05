import HumCore
import HumStore

#if canImport(Glibc)
    import Glibc
#endif

/// The emergency reserve while a strict contract runs: still available, with deliberate friction. hum says why,
/// waits `strict.emergency-wait` (10 s by default; Ctrl-C gives up, nothing drawn), then asks for a confirmation
/// on a terminal. Off a terminal nobody can be asked: the draw is made after the same wait, and noted as such. The
/// draw is noted in the contract's history either way.
enum StrictFriction {
    /// Returns the note to record with the draw when a strict contract runs (nil when none does); throws when the
    /// person does not confirm.
    static func emergency(seconds: Int64, reason: String, db: HumDatabase, context: CommandContext) throws -> String? {
        guard let contract = try db.runningStrictContract() else { return nil }
        let wait = try db.config().strictEmergencyWaitSeconds
        let until = contract.endsAt.map { " until about \($0.localClock)" } ?? ""
        context.stderr.write(
            "hum: strict contract \(ContractText.short(contract.id)) (\(contract.goal.visible)) runs\(until). The "
                + "emergency reserve stays yours: hum waits \(DurationText.format(seconds: wait)), then asks you to "
                + "confirm; Ctrl-C gives up and draws nothing.\n"
        )
        if wait > 0 { sleepFully(seconds: wait) }
        guard context.stdinIsTerminal else {
            context.stderr.write("hum: not on a terminal, so no confirmation can be asked: drawing after the wait\n")
            return "waited \(DurationText.format(seconds: wait)); off a terminal, so no confirmation could be asked"
        }
        context.stderr.write(
            "hum: draw \(DurationText.format(seconds: seconds)) from the emergency reserve (\(reason.visible))? "
                + "Type yes: "
        )
        let answer = (readLine() ?? "").trimmingSpaces.lowercased()
        guard answer == "yes" else {
            throw HumError.failure("not confirmed; nothing was drawn from the reserve")
        }
        return "waited \(DurationText.format(seconds: wait)), confirmed on the terminal"
    }

    /// Sleeps the whole time, whatever signal handlers interrupt it.
    static func sleepFully(seconds: Int64) {
        var request = timespec(tv_sec: Int(seconds), tv_nsec: 0)
        var left = timespec()
        while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }
}
