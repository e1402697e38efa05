/// The desktop notice that a shield holds a program (docs/shields.md, "Notifications"): said once when the guard
/// freezes a shield's programs, in the words of a friend, with the way out and two buttons that do what
/// `hum pass 15m --on SHIELD` and `hum emergency 5m --on SHIELD` do. Pure text: the bus adapter sends it
/// (`ShieldNotifier`).
public struct ShieldNotice: Equatable, Sendable {
    /// A button of the notice: what pressing it asks of the player.
    public enum Action: String, CaseIterable, Sendable {
        /// A lift paid from the bank, as `hum pass 15m --on SHIELD`.
        case spend
        /// A lift drawn from the weekly reserve, as `hum emergency 5m --reason … --on SHIELD`.
        case emergency

        public var seconds: Int64 {
            switch self {
            case .spend: 15 * 60
            case .emergency: 5 * 60
            }
        }

        public var label: String {
            switch self {
            case .spend: "Spend \(seconds / 60) min"
            case .emergency: "Emergency \(seconds / 60) min"
            }
        }

        /// The command a person would type for it.
        public func command(shield: String) -> String {
            switch self {
            case .spend: "hum pass \(seconds / 60)m --on \(shield)"
            case .emergency: "hum emergency \(seconds / 60)m --reason … --on \(shield)"
            }
        }

        /// The request the button sends to the player's interpreter: the one `hum pass` and `hum emergency` send.
        public func request(shield: String) -> ShieldLiftRequest {
            switch self {
            case .spend: ShieldLiftRequest(shield: shield, seconds: seconds, forfeit: false)
            case .emergency:
                ShieldLiftRequest(
                    shield: shield, seconds: seconds, forfeit: false, emergency: ShieldNotice.emergencyReason)
            }
        }
    }

    /// The reason recorded with an emergency drawn by the notice's button.
    public static let emergencyReason = "the Emergency button of the shield's notification"

    /// The shield the notice speaks of: a new notice of the same shield replaces the one still shown.
    public var shield: String
    public var summary: String
    public var body: String
    /// The buttons, in order (the server draws them only when it can).
    public var actions: [Action]

    public init(shield: String, summary: String, body: String, actions: [Action]) {
        self.shield = shield
        self.summary = summary
        self.body = body
        self.actions = actions
    }

    /// The programs of `shield` were just frozen: `Telegram is shielded` / `42 min banked · hum pass 15m --on
    /// social`. `banked`: the bank's balance in seconds, nil when it could not be read (then not said).
    public static func held(shield: String, programs: [String], banked: Int64?) -> ShieldNotice {
        let way = Action.spend.command(shield: shield)
        return ShieldNotice(
            shield: shield, summary: "\(listed(programs, or: shield)) \(programs.count > 1 ? "are" : "is") shielded",
            body: banked.map { "\(minutes($0)) banked · \(way)" } ?? way, actions: Action.allCases)
    }

    /// A button's lift was refused (`reason`, as `hum pass` would say it): the shield stays up, and the buttons stay
    /// for the other way out.
    public static func refused(shield: String, programs: [String], action: Action, reason: String) -> ShieldNotice {
        ShieldNotice(
            shield: shield,
            summary: "\(listed(programs, or: shield)) \(programs.count > 1 ? "stay" : "stays") shielded: "
                + "\(action.label) was not possible",
            body: reason, actions: Action.allCases)
    }

    /// A button's lift opened: until when, and how to end it early.
    public static func lifted(shield: String, programs: [String], action: Action, until: String?) -> ShieldNotice {
        let from = action == .spend ? "from the bank" : "from the emergency reserve"
        return ShieldNotice(
            shield: shield,
            summary: "\(listed(programs, or: shield)) \(programs.count > 1 ? "are" : "is") free"
                + (until.map { " until \($0)" } ?? " for \(action.seconds / 60) min"),
            body: "\(action.seconds / 60) min \(from) · hum pass end shields it again early", actions: [])
    }

    /// Whole minutes: "42 min", "0 min" (a friend rounds down: the bank never holds less than said).
    static func minutes(_ seconds: Int64) -> String { "\(max(0, seconds) / 60) min" }

    /// "Telegram", "steam and Telegram", "steam, Telegram and 2 more"; the shield's name when no program is known.
    static func listed(_ programs: [String], or shield: String) -> String {
        switch programs.count {
        case 0: shield
        case 1: programs[0]
        case 2: "\(programs[0]) and \(programs[1])"
        case 3: "\(programs[0]), \(programs[1]) and \(programs[2])"
        default: "\(programs[0]), \(programs[1]) and \(programs.count - 2) more"
        }
    }

    /// A process's name as people know it: its desktop application's (`org.telegram.desktop` → `Telegram`), else
    /// its command name, whole when the kernel cut it to 15 bytes (from the executable's or argv[0]'s name).
    public static func programName(_ process: ProcessFacts) -> String {
        if let id = process.desktopID, let name = applicationName(desktopID: id) { return name }
        if process.comm.utf8.count >= 15 {
            for whole in [process.exe, process.argv0Name].compactMap({ $0 }) where whole.hasPrefix(process.comm) {
                return whole
            }
        }
        return process.comm
    }

    /// The name in a desktop application id: its last part that is not a generic word, capitalised when it is all
    /// lower case (`org.mozilla.firefox` → `Firefox`, `com.valvesoftware.Steam` → `Steam`).
    public static func applicationName(desktopID id: String) -> String? {
        let generic: Set<String> = ["desktop", "app", "application", "client"]
        let parts = id.split(separator: ".").map(String.init).filter { !$0.isEmpty }
        guard let part = parts.last(where: { !generic.contains($0.lowercased()) }) ?? parts.last else { return nil }
        guard part == part.lowercased(), let first = part.first else { return part }
        return first.uppercased() + part.dropFirst()
    }

    /// The distinct names of `processes`, in order.
    public static func programNames(_ processes: [ProcessFacts]) -> [String] {
        var seen: Set<String> = []
        return processes.map(programName).filter { seen.insert($0).inserted }
    }
}

/// Where the guard's notices go: the desktop's notification server (HumBus), or a recording double in tests.
/// Calls never wait; a notice that cannot be shown is dropped.
public protocol ShieldNotifier: AnyObject {
    /// Shows `notice`, replacing the notice of the same shield if one is still shown.
    func show(_ notice: ShieldNotice)
    /// A button of a shown notice was pressed: the shield and the button.
    var onAction: ((String, ShieldNotice.Action) -> Void)? { get set }
}

/// Once per shield per episode: an episode of a shield begins when the guard freezes a program of it while none of
/// its programs is frozen, and ends when none is any more (they were thawed by a lift or an off, or they ended) or
/// the shield is not up. Programs frozen later in the same episode bring no new notice.
public struct ShieldEpisodes: Sendable, Equatable {
    /// By shield, the processes it held that are still frozen.
    public private(set) var held: [String: Set<ProcessIdentity>] = [:]

    public init() {}

    /// After one look at the processes: `newlyHeld` (a plan's, without the processes whose freeze failed),
    /// `frozen` (what is frozen now), `up` (the shields that are up). Returns the shields whose episode begins now,
    /// sorted.
    public mutating func update(
        newlyHeld: [String: [ProcessIdentity]], frozen: Set<ProcessIdentity>, up: Set<String>
    ) -> [String] {
        var begun: [String] = []
        var next: [String: Set<ProcessIdentity>] = [:]
        for shield in up {
            let kept = (held[shield] ?? []).intersection(frozen)
            let new = Set(newlyHeld[shield] ?? []).intersection(frozen)
            if kept.isEmpty, !new.isEmpty { begun.append(shield) }
            let all = kept.union(new)
            if !all.isEmpty { next[shield] = all }
        }
        held = next
        return begun.sorted()
    }
}
