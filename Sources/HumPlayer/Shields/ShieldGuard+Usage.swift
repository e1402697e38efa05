import HumCore
import HumStore
import HumSystem

/// Which shield and day measured time belongs to.
struct UsageKey: Hashable {
    var shield: String
    var day: CivilDate
}

/// Distracting time (docs/shields.md): while a shield is lifted, the guard looks once a second whether any of its
/// programs runs (a process it names, neither stopped nor dead; one the look thawed counts as running), and the
/// time to the next look is counted for it (`ShieldUsageMeter`), on the day `day.starts-at` puts it in. What is
/// measured is written to the ledger when a shield's programs stop being measured (the lift ended, they stopped),
/// at least once a minute while they run, and when the guard stops.
extension ShieldGuard {
    /// Written at least this often (seconds) while measured time accumulates: what a crash can lose.
    static let usageWriteEvery: Double = 60

    /// One look's measurement: the watched processes as the look left them, `thawed` what it just resumed.
    func measureUsage(thawed: Set<ProcessIdentity>, now: Double, ending: Bool = false) {
        let lifted = ending ? [] : inputs.shields.filter { states[$0.name]?.isLifted ?? false }
        var running: Set<String> = []
        if !lifted.isEmpty {
            let matcher = ShieldMatcher(shields: lifted)
            for p in reader.current(watched) where !p.isDead && !frozen.contains(p.identity) {
                guard !p.isHeld || thawed.contains(p.identity) else { continue }
                running.formUnion(matcher.shields(holding: p))
            }
        }
        let added = usageMeter.observe(at: now, running: running)
        if !added.isEmpty {
            let day = inputs.dayBoundary.day(of: environment.calendar.clock.nowEpochSeconds(), zone: inputs.zone)
            for (shield, seconds) in added { pendingUsage[UsageKey(shield: shield, day: day), default: 0] += seconds }
        }
        // Written when nothing is measured any more (a lift ended), and at least once a minute.
        if !pendingUsage.isEmpty && (running.isEmpty || now - usageWritten >= Self.usageWriteEvery) {
            writeUsage(now: now)
        }
    }

    /// Ends the measurement now (the guard stops) and writes what it holds.
    func finishUsage() {
        let now = environment.monotonic()
        measureUsage(thawed: [], now: now, ending: true)
        writeUsage(now: now)
    }

    /// Writes the whole seconds measured; the fractions wait for more.
    func writeUsage(now: Double) {
        usageWritten = now
        var whole: [(shield: String, day: CivilDate, seconds: Int64)] = []
        for (key, seconds) in pendingUsage {
            let n = Int64(seconds.rounded(.down))
            if n > 0 { whole.append((key.shield, key.day, n)) }
        }
        guard !whole.isEmpty, let db = try? openDatabase() else { return }
        do {
            try db.addMeasuredUsage(whole)
            for item in whole {
                let key = UsageKey(shield: item.shield, day: item.day)
                pendingUsage[key, default: 0] -= Double(item.seconds)
                if (pendingUsage[key] ?? 0) < 0.001 { pendingUsage[key] = nil }
            }
        } catch {
            say(
                "the distracting time could not be written (\((error as? any UserFacingError)?.message ?? "\(error)")); it is kept and written later"
            )
        }
    }
}
