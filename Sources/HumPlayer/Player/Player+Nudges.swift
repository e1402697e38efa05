import HumCore
import HumStore

#if canImport(Glibc)
    import Glibc
#endif

/// The nudges (docs/rules.md, "Nudges"): with `nudge.every` set, while no round runs and the session is there, the
/// player asks every interval how it went, in a desktop notification whose buttons log it as `hum log DUR
/// --productive` and `--distracting` do. One timer on the player's loop, armed at the next nudge (`NudgeSchedule`)
/// and disarmed while rounds run, while the session is away, when nudges are off and when no notifier is attached:
/// nothing wakes without a nudge to show.
final class Nudges {
    private let environment: PlayerEnvironment
    private let loop: any EventLoopProtocol
    private var timer: (any LoopTimer)!
    private(set) var schedule: NudgeSchedule
    /// The length the nudge shown asks about (what its buttons log), until one of them logged it.
    private(set) var asked: Int64?
    /// Asked when nudges are on: the player watches the session from then on.
    var onWanted: (() -> Void)?

    var notifier: (any NudgeNotifier)? {
        didSet {
            notifier?.onVerdict = { [unowned self] verdict in self.pressed(verdict) }
            arm()
        }
    }

    init(environment: PlayerEnvironment, loop: any EventLoopProtocol) throws(LoopError) {
        self.environment = environment
        self.loop = loop
        schedule = NudgeSchedule(every: 0, quietSince: loop.monotonicSeconds)
        timer = try loop.makeTimer(clock: .monotonic) { [unowned self] in self.fire() }
    }

    /// Reads `nudge.every` again (at the start, and when `hum config set` tells the player).
    func reread() {
        let every = Self.every(environment)
        schedule.every = every
        if every > 0 { onWanted?() }
        arm()
    }

    /// Rounds began (breaks and a wait included) or ended.
    func rounds(running: Bool) {
        schedule.rounds(running: running, at: loop.monotonicSeconds)
        arm()
    }

    /// The session went away or came back.
    func session(away: Bool) {
        schedule.session(away: away, at: loop.monotonicSeconds)
        arm()
    }

    func close() { timer.disarm() }

    private func arm() {
        guard notifier != nil, let due = schedule.due else {
            timer.disarm()
            return
        }
        timer.arm(after: max(0.001, due - loop.monotonicSeconds))
    }

    private func fire() {
        guard let due = schedule.due, loop.monotonicSeconds >= due - 0.001, let notifier else {
            arm()
            return
        }
        let every = schedule.every
        schedule.nudged(at: loop.monotonicSeconds)
        asked = every
        notifier.show(.asking(seconds: every))
        arm()
    }

    /// A button: logs the length asked about, once; a refusal is said back.
    func pressed(_ verdict: HourVerdict) {
        guard let seconds = asked else { return }
        do {
            let db = try LedgerAccess.open(environment)
            let day = try db.logHours(verdict, seconds: seconds, source: .nudge)
            asked = nil
            notifier?.show(.logged(verdict, seconds: seconds, day: day.date))
        } catch {
            let reason = (error as? any UserFacingError)?.message ?? "\(error)"
            environment.stderr.write("hum: nudge: \(verdict.label) (the nudge's button) was not logged: \(reason)\n")
            notifier?.show(.refused(verdict, reason: reason))
        }
    }

    /// `nudge.every` in seconds (0: off): stored, or from the environment; without a database, the environment's.
    static func every(_ environment: PlayerEnvironment) -> Int64 {
        var settings = Settings(stored: [:], environment: environment.variables)
        if access(environment.paths.databasePath, F_OK) == 0,
            let stored = try? LedgerAccess.open(environment, reading: true).settings(
                environment: environment.variables)
        {
            settings = stored
        }
        return max(0, settings.seconds(SettingCatalog.nudgeEvery))
    }
}

extension Player {
    /// Starts the nudges' timer (armed only when `nudge.every` is set and a notifier is attached).
    func startNudges() {
        do {
            let nudges = try Nudges(environment: environment, loop: loop)
            nudges.onWanted = { [unowned self] in self.watchPresence() }
            self.nudges = nudges
            nudges.reread()
        } catch {
            environment.warn("this player cannot nudge (\(error))")
        }
    }
}
