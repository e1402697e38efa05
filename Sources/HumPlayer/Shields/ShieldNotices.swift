import HumCore
import HumStore

/// The shields' desktop notices (docs/shields.md, "Notifications"): once per shield per episode (`ShieldEpisodes`),
/// when the guard has frozen a program of it, a notice says so with the bank and the way out; its buttons run the
/// same request as `hum pass 15m --on SHIELD` and `hum emergency 5m --on SHIELD`, through the player's one
/// interpreter, and a refusal comes back as a notice of its own. The notices go to a `ShieldNotifier` (the
/// session bus, attached with the desktop; a recording double in tests); episodes that begin before one is attached
/// are told when it is, if they still last. `shield.notify = off` keeps them all unsaid.
final class ShieldNotices {
    private unowned let shieldGuard: ShieldGuard
    private let environment: PlayerEnvironment
    /// Runs a lift as the player's interpreter runs `hum pass --on` and `hum emergency --on`.
    private let lift: (ShieldLiftRequest) throws -> Void
    private(set) var episodes = ShieldEpisodes()
    /// The programs each shield's episode began with, by their names.
    private var programs: [String: [String]] = [:]
    /// Episodes that began while no notifier was attached.
    private var untold: Set<String> = []

    var notifier: (any ShieldNotifier)? {
        didSet {
            notifier?.onAction = { [unowned self] shield, action in self.pressed(action, on: shield) }
            let waiting = untold.sorted()
            untold = []
            for shield in waiting where episodes.held[shield] != nil { tell(shield) }
        }
    }

    init(shieldGuard: ShieldGuard, environment: PlayerEnvironment, lift: @escaping (ShieldLiftRequest) throws -> Void) {
        self.shieldGuard = shieldGuard
        self.environment = environment
        self.lift = lift
    }

    /// After one look of the guard: the episodes that begin are told.
    func scanned(_ plan: ShieldPlan, processes: [ProcessFacts], notFrozen: Set<ProcessIdentity>) {
        let held = plan.newlyHeld.mapValues { $0.filter { !notFrozen.contains($0) } }
        let up = Set(shieldGuard.inputs.shields.map(\.name).filter { shieldGuard.states[$0]?.isUp ?? true })
        let begun = episodes.update(newlyHeld: held, frozen: plan.frozen, up: up)
        programs = programs.filter { episodes.held[$0.key] != nil }
        untold = untold.filter { episodes.held[$0] != nil }
        guard !begun.isEmpty else { return }
        var byIdentity: [ProcessIdentity: ProcessFacts] = [:]
        for process in processes { byIdentity[process.identity] = process }
        for shield in begun {
            programs[shield] = ShieldNotice.programNames((held[shield] ?? []).compactMap { byIdentity[$0] })
            tell(shield)
        }
    }

    /// Says that `shield` holds its programs, with the bank as it is now.
    private func tell(_ shield: String) {
        guard let notifier else {
            untold.insert(shield)
            return
        }
        guard wanted else { return }
        let banked = try? shieldGuard.openDatabase()?.bankStatus().balance
        notifier.show(.held(shield: shield, programs: programs[shield] ?? [], banked: banked))
    }

    /// `shield.notify` (on unless set off; read when a notice is due, so a change applies at once).
    private var wanted: Bool {
        let stored = (try? shieldGuard.openDatabase()?.settings(environment: environment.variables))
        let settings = stored ?? Settings(stored: [:], environment: environment.variables)
        return settings.isOn(SettingCatalog.shieldNotify)
    }

    /// A button: the same request as the command it stands for; a refusal is said back.
    func pressed(_ action: ShieldNotice.Action, on shield: String) {
        let names = programs[shield] ?? []
        do {
            // A strict contract asks an emergency for a wait and a confirmation on a terminal (`hum emergency`):
            // a button cannot give them, so it draws nothing.
            if action == .emergency, let db = try shieldGuard.openDatabase(), try db.runningStrictContract() != nil {
                throw PlayerError.refused(
                    "a strict contract runs, so an emergency waits and asks you to confirm on a terminal: "
                        + "\(action.command(shield: shield)); nothing was drawn")
            }
            try lift(action.request(shield: shield))
            let until = shieldGuard.lines.first { $0.name == shield }?.until?.localClock
            notifier?.show(.lifted(shield: shield, programs: names, action: action, until: until))
        } catch {
            let reason = (error as? any UserFacingError)?.message ?? "\(error)"
            environment.stderr.write(
                "hum: shield: \(action.label) (the notification of \(shield)) refused: \(reason)\n")
            notifier?.show(.refused(shield: shield, programs: names, action: action, reason: reason))
        }
    }
}
