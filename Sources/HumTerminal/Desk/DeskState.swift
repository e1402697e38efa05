import HumCore

/// The bank as the full screen shows it: figures read from the ledger by the frontend.
public struct DeskBank: Equatable, Sendable {
    /// An open pass: its label and when it ends.
    public struct Pass: Equatable, Sendable {
        public var label: String?
        /// The end, in seconds since the epoch (the time left is counted from the state's `nowEpoch`).
        public var deadlineEpoch: Int64
        public init(label: String?, deadlineEpoch: Int64) {
            self.label = label
            self.deadlineEpoch = deadlineEpoch
        }
    }

    public var balanceSeconds: Int64
    public var earnedTodaySeconds: Int64
    public var dailyCapSeconds: Int64
    public var emergencyLeftSeconds: Int64
    public var emergencyWeeklySeconds: Int64
    public var pass: Pass?

    public init(
        balanceSeconds: Int64, earnedTodaySeconds: Int64, dailyCapSeconds: Int64, emergencyLeftSeconds: Int64,
        emergencyWeeklySeconds: Int64, pass: Pass? = nil
    ) {
        self.balanceSeconds = balanceSeconds
        self.earnedTodaySeconds = earnedTodaySeconds
        self.dailyCapSeconds = dailyCapSeconds
        self.emergencyLeftSeconds = emergencyLeftSeconds
        self.emergencyWeeklySeconds = emergencyWeeklySeconds
        self.pass = pass
    }
}

/// A sound that can be added: a built-in one (with the manifest's description) or a user sound.
public struct DeskSound: Equatable, Sendable {
    public var name: String
    public var description: String
    public init(name: String, description: String) {
        self.name = name
        self.description = description
    }
}

/// A saved mix, for the load list.
public struct DeskMix: Equatable, Sendable {
    public var name: String
    public var summary: String
    public init(name: String, summary: String) {
        self.name = name
        self.summary = summary
    }
}

/// Everything the full screen shows, as one value: the player's status, the wall-clock time, the bank, and the
/// screen's own state (which panel is open, the cursor, the filter, whether the controls are shown). Pure: the
/// frontend fills in what comes from outside; `DeskKeys` changes it; `DeskLayout` draws it.
public struct DeskState: Equatable, Sendable {
    /// What the lower part of the screen shows.
    public enum Panel: Equatable, Sendable {
        /// The mixer and the bank.
        case main
        /// The list of sounds to add, filtered as you type.
        case add
        /// The name to save the mix as.
        case save
        /// The saved mixes to load.
        case load
        /// Every key.
        case help
    }

    public var status: PlayerStatus?
    /// The time of day, `HH:MM`, from the frontend's clock.
    public var clock = "--:--"
    /// The wall clock, in seconds since the epoch (for the time an open pass has left).
    public var nowEpoch: Int64 = 0
    /// The setting ui.blink: the clock's colons blink (shown in even seconds of `nowEpoch`). Off by default:
    /// nothing on the screen flashes unless asked.
    public var blink = false
    public var bank: DeskBank?
    /// Every sound that can be added (built-in and user sounds).
    public var sounds: [DeskSound] = []
    public var mixes: [DeskMix] = []
    public var panel: Panel = .main
    /// The add panel's filter.
    public var filter = ""
    /// The save panel's name.
    public var name = ""
    /// The cursor in the add or load list.
    public var cursor = 0
    /// The selected sound of the mix.
    public var selected = 0
    /// False after a while without a key: only the clock and a one-line summary remain.
    public var controlsShown = true
    /// A line for the user (what a key did, an error), until the next key.
    public var message: String?
    /// Seconds a round just earned, shown briefly in the accent colour.
    public var earned: Int64?
    public var color: Bool

    public init(color: Bool) { self.color = color }

    /// Takes the bank as read again. Time earned today since the last reading (a round that earned) is shown
    /// briefly: returns true when it starts to show.
    public mutating func receive(bank next: DeskBank?) -> Bool {
        defer { bank = next }
        guard let before = bank?.earnedTodaySeconds, let now = next?.earnedTodaySeconds, now > before else {
            return false
        }
        earned = now - before
        return true
    }

    /// Seconds an open pass has left.
    public func secondsLeft(_ pass: DeskBank.Pass) -> Int64 { max(0, pass.deadlineEpoch - nowEpoch) }

    /// The sounds the add panel lists: those not in the mix whose name or description holds the filter (ignoring
    /// case), names that start with it first.
    public var matches: [DeskSound] {
        let inMix = Set((status?.mix.tracks ?? []).map { $0.sound.lowercased() })
        let needle = filter.lowercased()
        let candidates = sounds.filter { !inMix.contains($0.name.lowercased()) }
        guard !needle.isEmpty else { return candidates }
        let byName = candidates.filter { $0.name.lowercased().hasPrefix(needle) }
        let rest = candidates.filter {
            !$0.name.lowercased().hasPrefix(needle)
                && ($0.name.lowercased().contains(needle) || $0.description.lowercased().contains(needle))
        }
        return byName + rest
    }

    /// The selected sound, kept within the mix.
    public var selectedTrack: Mix.Track? {
        guard let tracks = status?.mix.tracks, !tracks.isEmpty else { return nil }
        return tracks[min(max(selected, 0), tracks.count - 1)]
    }

    /// Whether the end-of-round fade is under way: the last `fade` seconds of a running focus phase.
    public var fading: Bool {
        guard let focus = status?.focus, focus.phase == .focus, !focus.paused, !focus.waiting,
            let fade = focus.fadeSeconds, fade > 0
        else { return false }
        return focus.remainingSeconds <= fade
    }
}
