import HumCore

/// The shields' guard of this player (Shields/ShieldGuard.swift): every running player guards the shields, started
/// with it and stopped (thawing what it froze) when it ends.
extension Player {
    /// Starts the guard; a player whose loop cannot give it timers plays on, unguarded, and says so.
    func startShields() {
        do {
            let guarding = try ShieldGuard(environment: environment, loop: loop)
            guarding.onChange = { [unowned self] in self.changed([.shields]) }
            // The notices' buttons ask what `hum pass --on` and `hum emergency --on` ask, of the same interpreter.
            let notices = ShieldNotices(
                shieldGuard: guarding, environment: environment, lift: { [unowned self] in try self.handle(.lift($0)) })
            guarding.onScanned = { [unowned notices] in notices.scanned($0, processes: $1, notFrozen: $2) }
            shieldNotices = notices
            // Strong mode's root helper, where one runs, holds the same sites by the kernel's rules.
            let strong = StrongShieldSync(variables: environment.variables)
            guarding.onEvaluated = { strong.update(shields: $0, states: $1, now: Double($2)) }
            shieldGuard = guarding
            guarding.start()
        } catch {
            environment.warn("the shields cannot be guarded by this player (\(error))")
        }
    }

    /// `shields` (read them again now), `lift` (a pass that lifts a shield) and `end-lift` (`hum pass end`).
    func handleShields(_ command: PlayerCommand) throws {
        guard let shieldGuard, !shieldGuard.stopped else {
            throw PlayerError.refused("this player guards no shields; nothing was held")
        }
        switch command {
        case .shields: shieldGuard.reread()
        case .lift(let request): try shieldGuard.lift(request)
        case .endLift(let shield): try shieldGuard.endLift(shield: shield)
        default: break
        }
    }
}
