import HumCore
import HumStore
import HumSystem

/// A lift paid from the bank (`hum pass 15m --on games`), run by the guard: the hold and the lift written in one
/// transaction, the shield's programs thawed at once, relocked at the deadline by the guard's own timer (the lift's
/// end is a change `ShieldState.nextChange` names), and the pass settled when the lift ends. A watchdog process
/// beside the player relocks at the deadline and settles if the player dies (Watchdog.swift).
struct RunningLift {
    var passID: String
    var lift: ShieldLift
    /// Monotonic seconds when the lift opened: what the time used is measured from.
    var start: Double
    var seconds: Int64
    var forfeit: Bool
    var watchdog: Watchdog?
}

extension ShieldGuard {
    /// Lifts `request.shield` for at most `request.seconds`, paid by a pass. Refused (nothing held) when the shield
    /// does not exist or is not up, or when the ledger's rules say no (too little banked, another pass open).
    func lift(_ request: ShieldLiftRequest) throws {
        guard !stopped else { throw PlayerError.refused("the player is stopping; nothing was held") }
        reread()
        let name = request.shield
        guard let db = try openDatabase(), inputs.shields.contains(where: { $0.name == name }) else {
            let known = inputs.shields.map(\.name)
            throw PlayerError.refused(
                "there is no shield \(name.quoted)"
                    + (known.isEmpty ? "" : " (there are \(known.joined(separator: ", ")))") + "; nothing was held")
        }
        // A lock window of a schedule keeps the shield up: a bank's pass cannot lift it (the emergency reserve can).
        if let lock = ShieldState.lock(
            on: name, inputs, now: environment.calendar.clock.nowEpochSeconds())
        {
            throw PlayerError.refused(lock.message + "; nothing was held")
        }
        switch states[name] ?? .up {
        case .up: break
        case .free(let until, let schedule):
            throw PlayerError.refused(
                "the shield \(name) is down in the free window of schedule \(schedule) until "
                    + "\(environment.calendar.stamp(until).localClock), so its programs run already; nothing was held")
        case .lifted(let until, _):
            throw PlayerError.refused(
                "the shield \(name) is already lifted until \(environment.calendar.stamp(until).localClock); nothing "
                    + "was held")
        case .off(let until):
            throw PlayerError.refused(
                "the shield \(name) is off until \(environment.calendar.stamp(until).localClock), so its programs "
                    + "run already; nothing was held ('hum shield on \(name)' turns it back on)")
        }
        var rng = SystemRandomNumberGenerator()
        let passID = Identifier.make(using: &rng)
        let opened: (decision: LedgerDecision, lift: ShieldLift)
        do {
            opened = try db.openPass(id: passID, seconds: request.seconds, forfeit: request.forfeit, lifting: name)
        } catch let refusal as LedgerRefusal {
            throw PlayerError.refused(refusal.message)
        }
        let start = environment.monotonic()
        let watchdog = Watchdog.start(
            words: ["pass", "\(request.seconds)s", "--on", name],
            spec: .init(
                passID: passID, tag: "\(Watchdog.liftKey)=\(name)", start: start, limit: Double(request.seconds),
                grace: 0),
            environment: environment)
        running = RunningLift(
            passID: passID, lift: opened.lift, start: start, seconds: request.seconds, forfeit: request.forfeit,
            watchdog: watchdog)
        environment.stderr.write(
            "hum: shield: \(name) lifted for \(DurationText.format(seconds: request.seconds)), until "
                + "\(environment.calendar.stamp(opened.lift.deadline).localClock)\n")
        reread()
    }

    /// Settles the running lift once the state says it is over (its deadline passed, the shield was removed or
    /// turned off).
    func liftMayHaveEnded() {
        guard let running else { return }
        if case .lifted(_, let id) = states[running.lift.shield], id == running.lift.id { return }
        endRunningLift(early: environment.calendar.clock.nowEpochSeconds() < running.lift.deadline)
    }

    /// Ends the running lift and settles its pass: the time it ran is used (all of it when it reached its
    /// deadline), the rest goes back to the bank unless forfeited. `early`: it ends before its deadline (the player
    /// stops, the shield was turned off or removed), so the lift is ended on the record too.
    func endRunningLift(early: Bool) {
        guard let lift = running else { return }
        running = nil
        let ran = Int64((environment.monotonic() - lift.start).rounded())
        let used = early ? min(lift.seconds, max(0, ran)) : lift.seconds
        guard let db = database else { return }
        if early { _ = try? db.endLift(id: lift.lift.id) }
        let f = DurationText.format(seconds:)
        do {
            let entry = try db.settlePass(id: lift.passID, usedSeconds: used).entry
            lift.watchdog?.done()
            let rest =
                (entry.forfeit ?? false) ? "the rest forfeited" : "\(f(entry.amount)) back in the bank"
            environment.stderr.write(
                "hum: shield: \(lift.lift.shield) is up again; pass settled: \(f(entry.used ?? used)) used, \(rest)\n")
        } catch is LedgerRefusal {
            lift.watchdog?.done()  // settled already (a reconciliation took this player for dead)
        } catch {
            // Not written (a full disk): the watchdog retries; after it, the next hum command settles.
            lift.watchdog?.couldNotSettle(used: used)
            say("the lift's pass could not be settled (\(error)); the watchdog retries")
        }
        if let watchdog = lift.watchdog { spentWatchdogs.append(watchdog) }
    }
}
