/// The options a person may give for focus rounds (`hum focus`'s command line, or none at all from the full
/// screen's `f`), each optional: what is not given comes from the profile, then the settings, then hum's defaults.
/// Pure: `resolve(settings:)` holds the layering, with the settings handed in.
public struct FocusOptions: Sendable, Equatable {
    /// The plan's options (nil: from the profile, the settings or hum's default).
    public var focus: Duration?
    public var shortBreak: Duration?
    public var longBreak: Duration?
    public var longEvery: Int?
    public var rounds: Int?
    public var fade: Duration?
    public var autoAdvance: FocusPlan.AutoAdvance?
    /// No bell and no desktop notification for this session.
    public var quiet = false
    /// Keep the machine awake while a focus round runs (also on by the setting focus.inhibit).
    public var inhibit = false
    public var goal: String?
    /// The history's tags (empty: the profile's).
    public var tags: [String] = []
    /// The `--on-event` command, split into words (nil: the setting focus.on-event).
    public var onEvent: [String]?
    /// The profile to use (`profile.NAME`), if any.
    public var profile: String?
    /// The mix words, in their written form (empty: the profile's, else the default mix).
    public var words: [String] = []
    /// No mix and no chime: the timer alone.
    public var noSound = false

    public init(
        focus: Duration? = nil, shortBreak: Duration? = nil, longBreak: Duration? = nil, longEvery: Int? = nil,
        rounds: Int? = nil, fade: Duration? = nil, autoAdvance: FocusPlan.AutoAdvance? = nil, quiet: Bool = false,
        inhibit: Bool = false, goal: String? = nil, tags: [String] = [], onEvent: [String]? = nil,
        profile: String? = nil, words: [String] = [], noSound: Bool = false
    ) {
        self.focus = focus
        self.shortBreak = shortBreak
        self.longBreak = longBreak
        self.longEvery = longEvery
        self.rounds = rounds
        self.fade = fade
        self.autoAdvance = autoAdvance
        self.quiet = quiet
        self.inhibit = inhibit
        self.goal = goal
        self.tags = tags
        self.onEvent = onEvent
        self.profile = profile
        self.words = words
        self.noSound = noSound
    }

    /// Why the options cannot be resolved: a usage error, said for the person.
    public struct Problem: UserFacingError, Equatable, Sendable {
        public var message: String
        public var kind: FailureKind { .usage }
        init(_ message: String) { self.message = message }
    }

    /// What to run, from these options over the profile over the settings over hum's defaults. Throws a
    /// `Problem` for an unknown profile or a saved focus.on-event with a quote left open, and `FocusPlan.Problem`
    /// for a plan that cannot run.
    public func resolve(settings: Settings) throws -> FocusResolution {
        var profile = FocusProfile()
        if let name = self.profile {
            guard let saved = settings.profile(name) else {
                let names = settings.profiles.map(\.name)
                let hint = Suggest.closest(to: name, in: names).map { "did you mean \($0)? " } ?? ""
                throw Problem(
                    "there is no profile \(name.quoted); \(hint)save one with 'hum config set profile.\(name) \"--focus "
                        + "50m ...\"'"
                )
            }
            profile = saved
        }
        func duration(_ given: Duration?, _ saved: Int64?, _ key: String) -> Duration {
            if let given { return given }
            if let saved { return .milliseconds(saved) }
            return settings.duration(key)
        }
        let plan = try FocusPlan(
            focus: duration(focus, profile.focus, SettingCatalog.focusLength),
            shortBreak: duration(shortBreak, profile.shortBreak, SettingCatalog.focusShortBreak),
            longBreak: duration(longBreak, profile.longBreak, SettingCatalog.focusLongBreak),
            longBreakEvery: longEvery ?? profile.longEvery ?? settings.count(SettingCatalog.focusLongEvery),
            rounds: rounds ?? profile.rounds ?? settings.count(SettingCatalog.focusRounds),
            fade: duration(fade, profile.fade, SettingCatalog.focusFade),
            autoAdvance: autoAdvance ?? profile.autoAdvance
                ?? FocusPlan.AutoAdvance(rawValue: settings.text(SettingCatalog.focusAutoAdvance)) ?? .all)
        let savedEvent = settings.text(SettingCatalog.focusOnEvent)
        // A saved command was split when it was set (SettingDefinition); one edited by hand is split here too.
        let saved = savedEvent.isEmpty ? nil : try? ShellWords.split(savedEvent)
        guard savedEvent.isEmpty || saved != nil else {
            throw Problem(
                "the setting focus.on-event has a quote left open; fix it with 'hum config set focus.on-event ...'")
        }
        var request = FocusRequest(
            plan: plan, goal: goal ?? profile.goal, tags: tags.isEmpty ? profile.tags : tags, quiet: quiet,
            onEvent: onEvent ?? saved)
        request.bell = !quiet && settings.isOn(SettingCatalog.notifyBell)
        request.notify = !quiet && settings.isOn(SettingCatalog.notifyDesktop)
        request.inhibit = inhibit || settings.isOn(SettingCatalog.focusInhibit) ? true : nil
        return FocusResolution(
            plan: plan, request: request, words: words.isEmpty && !noSound ? profile.mix : words,
            noSound: noSound || (words.isEmpty && profile.noSound))
    }
}

/// What focus options resolve to: the plan, the request a player runs, and the sounds.
public struct FocusResolution: Equatable, Sendable {
    public var plan: FocusPlan
    public var request: FocusRequest
    /// The mix words to play (empty: the default mix), and whether the session is silent.
    public var words: [String]
    public var noSound: Bool
}
