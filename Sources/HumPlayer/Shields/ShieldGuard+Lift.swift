import HumCore
import HumStore
import HumSystem

/// A lift paid by the shield's daily quota and the bank (`hum pass 15m --on games`), run by the guard: the hold and the lift written in one
/// transaction, the shield's programs thawed at once, relocked at the deadline by the guard's own timer (the lift's
/// end is a change `ShieldState.nextChange` names), and the pass settled when the lift ends. A watchdog process
/// beside the player relocks at the deadline and settles if the player dies (Watchdog.swift).
struct RunningLift {
    /// The pass that paid; nil for an emergency draw (nothing to settle: a draw is not returned).
    var passID: String?
    var lift: ShieldLift
    /// Monotonic seconds when the lift opened: what the time used is measured from.
    var start: Double
    var seconds: Int64
    var forfeit: Bool
    var watchdog: Watchdog?
    /// Seconds of the lift the shield's daily quota paid: the first ones it runs; the bank paid the rest. A lift
    /// ended early used the quota's part first: what it did not run goes back to the bank (its part), then to the
    /// quota (its lift is ended on the record, and a quota counts what its lifts ran).
    var quotaSeconds: Int64 = 0
    /// The quota's own lift when the bank paid the rest (ended with the lift).
    var quotaLiftID: String? = nil
}

extension ShieldGuard {
    /// Lifts `request.shield` for at most `request.seconds`, paid by a pass, or by the emergency reserve when
    /// `request.emergency` gives a reason. Refused (nothing held) when the shield does not exist or is not up,
    /// another lift runs here, or when the ledger's rules say no (too little banked, another pass open, the reserve
    /// spent).
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
        if request.emergency == nil,
            let lock = ShieldState.lock(on: name, inputs, now: environment.calendar.clock.nowEpochSeconds())
        {
            throw PlayerError.refused(lock.message + "; nothing was held")
        }
        if let running {
            guard running.lift.shield != name else {
                throw PlayerError.refused(notUp(name, .lifted(until: running.lift.deadline, lift: running.lift.id)))
            }
            throw PlayerError.refused(
                "the shield \(running.lift.shield) is lifted, and a player lifts one shield at a time ('hum pass end' "
                    + "ends that lift); nothing was held")
        }
        var rng = SystemRandomNumberGenerator()
        var passID = request.emergency == nil ? Identifier.make(using: &rng) : nil
        let opened: (decision: LedgerDecision?, lift: ShieldLift)
        var paid: HumDatabase.PaidLift? = nil
        do {
            if let reason = request.emergency {
                let drawn = try db.drawEmergency(
                    seconds: request.seconds, reason: reason, strictNote: request.strictNote, lifting: name)
                opened = (drawn.decision, drawn.lift)
            } else {
                // Today's quota of the shield first, then the bank.
                let lift = try db.openPaidLift(
                    passID: passID ?? "", seconds: request.seconds, forfeit: request.forfeit, lifting: name)
                if lift.decision == nil { passID = nil }
                opened = (lift.decision, lift.lift)
                paid = lift
            }
        } catch let refusal as LedgerRefusal {
            throw PlayerError.refused(refusal.message)
        } catch ShieldLiftRefusal.notUp(_, let state) {
            // Decided in the transaction that would have written the lift (two asked at once: one wins).
            throw PlayerError.refused(notUp(name, state))
        } catch let error as ShieldStoreError {
            throw PlayerError.refused(error.message + "; nothing was held")
        } catch let lock as ScheduleLock {
            // A lock window opened between the look above and the transaction.
            throw PlayerError.refused(lock.message + "; nothing was held")
        }
        // The watchdog first, so that the thaw never runs unwatched: it relocks at its own `start + seconds` if
        // this player dies, which is at or before this player's end (taken after the thaw).
        let watchdog = Watchdog.start(
            words: ["pass", "\(request.seconds)s", "--on", name],
            spec: .init(
                passID: passID, tag: "\(Watchdog.liftKey)=\(name)/\(opened.lift.id)", start: environment.monotonic(),
                limit: Double(request.seconds), grace: 0),
            environment: environment)
        running = RunningLift(
            passID: passID, lift: opened.lift, start: environment.monotonic(), seconds: request.seconds,
            forfeit: request.forfeit, watchdog: watchdog, quotaSeconds: paid?.quotaSeconds ?? 0,
            quotaLiftID: paid?.quotaLift?.id)
        reread()
        // The lift lasts its whole length from the moment its programs resumed; the ledger's deadline is the whole
        // second after that (a bound for when no hum is left to end it), this timer the precise end.
        running?.start = environment.monotonic()
        liftTimer?.arm(after: Double(request.seconds))
        let payer = paid.map { " (" + $0.payers + ")" } ?? ""
        environment.stderr.write(
            "hum: shield: \(name) lifted for \(DurationText.format(seconds: request.seconds))\(payer), until "
                + "\(environment.calendar.stamp(opened.lift.deadline).localClock)\n")
    }

    /// Ends the running lift now (`hum pass end`): the shield is up again at once and the pass is settled for the
    /// time the lift ran; the rest goes back to the bank unless the pass forfeits it. Refused when no lift runs
    /// (or not one of `shield`).
    func endLift(shield: String?) throws {
        guard let running, shield == nil || shield == running.lift.shield else {
            throw PlayerError.refused(
                "no lift\(shield.map { " of the shield \($0)" } ?? "") runs in this player; nothing was ended "
                    + "(a pass that runs a command ends when its command does)")
        }
        endRunningLift(early: true, relock: true)
    }

    /// The running lift's timer: at its precise end, the shield comes back up and the pass is settled.
    func liftReachedItsEnd() {
        guard let running else { return }
        let left = running.start + Double(running.seconds) - environment.monotonic()
        if left > 0 {
            liftTimer?.arm(after: left)
            return
        }
        endRunningLift(early: false, relock: true)
    }

    /// Why a shield that is not up cannot be lifted, for the person who asked.
    func notUp(_ name: String, _ state: ShieldStatus) -> String {
        switch state {
        case .up: return "the shield \(name) could not be lifted; nothing was held"
        case .lifted(let until, _):
            return "the shield \(name) is already lifted until \(environment.calendar.stamp(until).localClock); "
                + "nothing was held"
        case .off(let until):
            return "the shield \(name) is off until \(environment.calendar.stamp(until).localClock), so its "
                + "programs run already; nothing was held ('hum shield on \(name)' turns it back on)"
        case .free(let until, let schedule):
            return "the shield \(name) is down in the free window of schedule \(schedule) until "
                + "\(environment.calendar.stamp(until).localClock), so its programs run already; nothing was held"
        }
    }

    /// Settles the running lift once the state says it is over (the shield was removed or turned off, the ledger's
    /// deadline passed).
    func liftMayHaveEnded() {
        guard let running else { return }
        if case .lifted(_, let id) = states[running.lift.shield], id == running.lift.id { return }
        endRunningLift(early: environment.monotonic() < running.start + Double(running.seconds), relock: false)
    }

    /// Ends the running lift and settles its pass: the time it ran is used (all of it when it reached its end), the
    /// rest goes back to the bank unless forfeited. `early`: it ends before its end (`hum pass end`, the player
    /// stops, the shield was turned off or removed). The lift is ended on the record first; with `relock`, the
    /// guard reads the shields again and freezes before the pass is settled (the settlement waits on the disk).
    func endRunningLift(early: Bool, relock: Bool) {
        guard let lift = running else { return }
        running = nil
        liftTimer?.disarm()
        let ran = Int64((environment.monotonic() - lift.start).rounded())
        let used = early ? min(lift.seconds, max(0, ran)) : lift.seconds
        guard let db = database else { return }
        _ = try? db.endLift(id: lift.lift.id)
        if let quotaLift = lift.quotaLiftID { _ = try? db.endLift(id: quotaLift) }
        if relock { reread() }
        let f = DurationText.format(seconds:)
        guard let passID = lift.passID else {
            lift.watchdog?.done()
            if let watchdog = lift.watchdog { spentWatchdogs.append(watchdog) }
            let what = lift.lift.budget == .quota ? "the quota's lift" : "the emergency lift"
            let back = lift.lift.budget == .quota && used < lift.seconds ? ", the rest back in today's quota" : ""
            environment.stderr.write(
                "hum: shield: \(lift.lift.shield) is up again; \(what) ran \(f(max(0, min(ran, lift.seconds))))\(back)\n"
            )
            return
        }
        // The quota's part runs first: the bank's pass used what ran after it.
        let bankUsed = max(0, used - lift.quotaSeconds)
        do {
            let entry = try db.settlePass(id: passID, usedSeconds: bankUsed).entry
            lift.watchdog?.done()
            let rest =
                (entry.forfeit ?? false) ? "the rest forfeited" : "\(f(entry.amount)) back in the bank"
            environment.stderr.write(
                "hum: shield: \(lift.lift.shield) is up again; pass settled: \(f(entry.used ?? used)) used, \(rest)\n")
        } catch is LedgerRefusal {
            lift.watchdog?.done()  // settled already (a reconciliation took this player for dead)
        } catch {
            // Not written (a full disk): the watchdog retries; after it, the next hum command settles.
            lift.watchdog?.couldNotSettle(used: bankUsed)
            say("the lift's pass could not be settled (\(error)); the watchdog retries")
        }
        if let watchdog = lift.watchdog { spentWatchdogs.append(watchdog) }
    }
}
