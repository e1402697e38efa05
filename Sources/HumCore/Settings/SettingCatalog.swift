/// Every setting hum has: one place for keys, types, defaults, descriptions and validation (`hum config`).
///
/// Where a value comes from, weakest first: the default here, the value stored in the database (`hum config set`,
/// shared by every process), the setting's environment variable (`HUM_…`, for one shell or one service), and the
/// command line, which always wins. The ledger's settings have no environment variable: the rules of the bank must
/// be the same for every process that writes it.
public enum SettingCatalog {
    public static let earnRatio = "earn.ratio"
    public static let earnDailyCap = "earn.daily-cap"
    public static let emergencyWeekly = "emergency.weekly"
    public static let focusLength = "focus.length"
    public static let focusShortBreak = "focus.short-break"
    public static let focusLongBreak = "focus.long-break"
    public static let focusLongEvery = "focus.long-every"
    public static let focusRounds = "focus.rounds"
    public static let focusFade = "focus.fade"
    public static let focusAutoAdvance = "focus.auto-advance"
    public static let focusDailyGoal = "focus.daily-goal"
    public static let focusOnEvent = "focus.on-event"
    public static let focusInhibit = "focus.inhibit"
    public static let focusWhenAway = "focus.when-away"
    public static let playMix = "play.mix"
    public static let playDevice = "play.device"
    public static let playSpeakers = "play.speakers"
    public static let notifyDesktop = "notify.desktop"
    public static let notifyBell = "notify.bell"
    public static let shieldNotify = "shield.notify"
    public static let nudgeEvery = "nudge.every"
    public static let uiBlink = "ui.blink"
    public static let reviewCommand = "review.command"
    public static let reviewTimeout = "review.timeout"
    public static let strictEmergencyWait = "strict.emergency-wait"
    public static let dayStartsAt = "day.starts-at"
    public static let shieldAction = "shield.action"
    public static let shieldGrace = "shield.grace"
    public static let syncDir = "sync.dir"
    public static let syncStrict = "sync.strict"
    /// Named `hum focus` options: `profile.deep`.
    public static let profilePrefix = "profile."

    static let year = DurationText.maximumMilliseconds / 1000

    /// The fixed settings, in the order `hum config list` shows them.
    public static let definitions: [SettingDefinition] = [
        .init(
            key: focusLength, kind: .duration(min: 1, max: year, whole: false), defaultText: "25m",
            summary: "length of a focus round (hum focus --focus)", environment: "HUM_FOCUS_LENGTH"),
        .init(
            key: focusShortBreak, kind: .duration(min: 1, max: year, whole: false), defaultText: "5m",
            summary: "length of a short break (--short-break)", environment: "HUM_FOCUS_SHORT_BREAK"),
        .init(
            key: focusLongBreak, kind: .duration(min: 1, max: year, whole: false), defaultText: "15m",
            summary: "length of a long break (--long-break)", environment: "HUM_FOCUS_LONG_BREAK"),
        .init(
            key: focusLongEvery, kind: .count(FocusPlan.longBreakEveryRange), defaultText: "4",
            summary: "a long break after every Nth focus round, 0 for never (--long-every)",
            environment: "HUM_FOCUS_LONG_EVERY"),
        .init(
            key: focusRounds, kind: .count(FocusPlan.roundsRange), defaultText: "4",
            summary: "focus rounds in a session (--rounds)", environment: "HUM_FOCUS_ROUNDS"),
        .init(
            key: focusFade, kind: .duration(min: 0, max: year, whole: false), defaultText: "10s",
            summary: "fade out over a round's end, in over its start (--fade)", environment: "HUM_FOCUS_FADE"),
        .init(
            key: focusAutoAdvance, kind: .choice(FocusPlan.AutoAdvance.allCases.map(\.rawValue)), defaultText: "all",
            summary: "which phases start by themselves (--auto-advance)", environment: "HUM_FOCUS_AUTO_ADVANCE"),
        .init(
            key: focusDailyGoal, kind: .duration(min: 0, max: 86_400, whole: true), defaultText: "2h",
            summary: "focused time a day should reach (hum report, the streak); 0s: any focus counts",
            environment: "HUM_FOCUS_DAILY_GOAL"),
        .init(
            key: focusOnEvent, kind: .command, defaultText: "",
            summary: "a command run at every phase change, without a shell (--on-event)",
            environment: "HUM_FOCUS_ON_EVENT"),
        .init(
            key: focusInhibit, kind: .toggle, defaultText: "off",
            summary: "keep the machine from sleeping or idling while a focus round runs (--inhibit)",
            environment: "HUM_FOCUS_INHIBIT"),
        .init(
            key: focusWhenAway, kind: .choice(AwayPolicy.allCases.map(\.rawValue)), defaultText: "pause",
            summary: "what a focus round does while the session is locked or idle (logind): pause, keep or stop",
            environment: "HUM_FOCUS_WHEN_AWAY"),
        .init(
            key: playMix, kind: .mix, defaultText: "",
            summary: "the mix played when none is named: words like rain=40, or @NAME of a saved mix",
            environment: "HUM_PLAY_MIX"),
        .init(
            key: playDevice, kind: .device, defaultText: "default", summary: "the ALSA device to play to (--device)",
            environment: "HUM_DEVICE"),
        .init(
            key: playSpeakers, kind: .choice(SpeakerSize.allCases.map(\.rawValue)), defaultText: "full",
            summary:
                "small: laptop or phone speakers; each sound is high-passed at 150 Hz when loaded and lifted (at most "
                + "+20 dB) by the loudness it lost, so the mix keeps its balance",
            environment: "HUM_SPEAKERS"),
        .init(
            key: notifyDesktop, kind: .toggle, defaultText: "on",
            summary: "a desktop notification when a phase runs out (over D-Bus)", environment: "HUM_NOTIFY_DESKTOP"),
        .init(
            key: notifyBell, kind: .toggle, defaultText: "on",
            summary: "the terminal bell when a phase runs out", environment: "HUM_NOTIFY_BELL"),
        .init(
            key: shieldNotify, kind: .toggle, defaultText: "on",
            summary: "a desktop notification when a shield freezes a program, with Spend and Emergency buttons",
            environment: "HUM_SHIELD_NOTIFY"),
        .init(
            key: nudgeEvery, kind: .duration(min: 0, max: 86_400, whole: true), defaultText: "0s",
            summary:
                "while no round runs and you are at the machine, a notification this often asks how the time went "
                + "(0s: never)",
            environment: "HUM_NUDGE_EVERY"),
        .init(
            key: uiBlink, kind: .toggle, defaultText: "off",
            summary: "the full screen's clock blinks its colons once a second (off: nothing on it flashes)",
            environment: "HUM_UI_BLINK"),
        .init(
            key: earnRatio, kind: .ratio, defaultText: "3",
            summary: "focused seconds per earned second (3: 25m of focus earns 8m20s)", environment: nil),
        .init(
            key: earnDailyCap, kind: .duration(min: 0, max: 86_400, whole: true), defaultText: "3h",
            summary: "the most a day can earn (days begin at day.starts-at)", environment: nil),
        .init(
            key: emergencyWeekly, kind: .duration(min: 0, max: 7 * 86_400, whole: true), defaultText: "10m",
            summary: "the emergency reserve per ISO week", environment: nil),
        .init(
            key: reviewCommand, kind: .ledgerRule, defaultText: "local",
            summary: "who reviews contracts' proofs: local, or a command (see 'hum proof --help')", environment: nil),
        .init(
            key: reviewTimeout, kind: .ledgerRule, defaultText: "1m",
            summary: "how long that command has to answer", environment: nil),
        .init(
            key: strictEmergencyWait, kind: .ledgerRule, defaultText: "10s",
            summary: "the wait before an emergency draw while a strict contract runs", environment: nil),
        .init(
            key: dayStartsAt, kind: .wallTime, defaultText: "00:00",
            summary:
                "when a day begins for quotas, the daily cap and reports (04:00: the hours after midnight count for "
                + "the day before)",
            environment: nil),
        .init(
            key: shieldAction, kind: .choice(ShieldAction.allCases.map(\.rawValue)), defaultText: "freeze",
            summary: "what a shield does to its programs: freeze them, or terminate them after shield.grace",
            environment: nil),
        .init(
            key: shieldGrace, kind: .duration(min: 1, max: 3600, whole: true), defaultText: "10s",
            summary: "with shield.action terminate: how long a program stays frozen before it is asked to end",
            environment: nil),
        .init(
            key: syncDir, kind: .folder, defaultText: "",
            summary: "the synced folder this device writes its journal to and merges the others' from (hum sync init)",
            environment: nil),
        .init(
            key: syncStrict, kind: .toggle, defaultText: "off",
            summary:
                "with sync: spend only what this device's own entries hold, so the merged bank never goes negative",
            environment: nil),
    ]

    /// The fixed keys, in order.
    public static let keys: [String] = definitions.map(\.key)

    /// The definition of a key: a fixed setting, or a profile (`profile.NAME`).
    public static func definition(_ key: String) throws(SettingError) -> SettingDefinition {
        if let fixed = definitions.first(where: { $0.key == key }) { return fixed }
        if key.hasPrefix(profilePrefix) {
            let name = String(key.dropFirst(profilePrefix.count))
            guard isProfileName(name) else {
                throw .badValue(
                    key: key, value: name, expected: "a profile name of 1 to 64 letters, digits, '-' or '_'")
            }
            return SettingDefinition(
                key: key, kind: .profile, defaultText: "", summary: "the focus profile \(name) (hum focus --profile)",
                environment: nil)
        }
        throw .unknownKey(key)
    }

    /// A profile's name: 1 to 64 ASCII letters, digits, `-` or `_`.
    public static func isProfileName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            }
    }

    /// Checks a value for a key and returns it in its written form.
    public static func normalise(_ key: String, _ value: String) throws(SettingError) -> String {
        try definition(key).normalise(value)
    }
}

/// The settings in force: the stored values and the environment, read through the catalogue. Pure: the caller
/// hands in what the database holds and the process's environment.
public struct Settings: Sendable {
    /// Where a value came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        case builtIn
        case stored
        case environment(String)

        public var description: String {
            switch self {
            case .builtIn: "default"
            case .stored: "setting"
            case .environment(let name): "environment \(name)"
            }
        }
    }

    public struct Value: Sendable, Equatable {
        public var key: String
        /// The value in its written form ("" for none).
        public var text: String
        public var source: Source
    }

    /// What the database's `config` table holds, key to value.
    public var stored: [String: String]
    public var environment: [String: String]
    /// Values that were set but could not be read (a value written by hand, a bad `HUM_…`): each ignored, with why.
    public private(set) var ignored: [String] = []
    private var values: [String: Value] = [:]

    public init(stored: [String: String], environment: [String: String] = [:]) {
        self.stored = stored
        self.environment = environment
        for definition in SettingCatalog.definitions {
            var value = Value(key: definition.key, text: definition.defaultText, source: .builtIn)
            if let text = stored[definition.key] {
                do throws(SettingError) {
                    value = Value(key: definition.key, text: try definition.normalise(text), source: .stored)
                } catch {
                    ignored.append(
                        "the stored \(error.message); using \(value.text.isEmpty ? "none" : value.text) until it is "
                            + "changed ('hum config set \(definition.key) …') or removed ('hum config unset "
                            + "\(definition.key)')")
                }
            }
            if let name = definition.environment, let text = environment[name], !text.isEmpty {
                do throws(SettingError) {
                    value = Value(key: definition.key, text: try definition.normalise(text), source: .environment(name))
                } catch {
                    ignored.append("\(name): \(error.message); using \(value.text.isEmpty ? "none" : value.text)")
                }
            }
            values[definition.key] = value
        }
    }

    /// A fixed setting's value and where it came from.
    public func value(_ key: String) -> Value {
        values[key] ?? Value(key: key, text: "", source: .builtIn)
    }

    public func text(_ key: String) -> String { value(key).text }

    /// Every fixed setting, in the catalogue's order.
    public var all: [Value] { SettingCatalog.keys.compactMap { values[$0] } }

    /// The stored profiles, by name (a profile that cannot be read is left out and named in `ignored`).
    public var profiles: [(name: String, profile: FocusProfile)] {
        stored.keys.filter { $0.hasPrefix(SettingCatalog.profilePrefix) }.sorted().compactMap { key in
            guard let text = stored[key], let profile = try? FocusProfile(text: text) else { return nil }
            return (String(key.dropFirst(SettingCatalog.profilePrefix.count)), profile)
        }
    }

    public func profile(_ name: String) -> FocusProfile? {
        stored[SettingCatalog.profilePrefix + name].flatMap { try? FocusProfile(text: $0) }
    }

    public func seconds(_ key: String) -> Int64 {
        (try? DurationText.parseMilliseconds(text(key))).map { $0 / 1000 } ?? 0
    }

    public func duration(_ key: String) -> Duration {
        .milliseconds((try? DurationText.parseMilliseconds(text(key))) ?? 0)
    }

    public func count(_ key: String) -> Int { Int(text(key)) ?? 0 }

    public func isOn(_ key: String) -> Bool { text(key) == "on" }

    /// When a day begins (`day.starts-at`), for shield quotas, the daily cap and reports.
    public var dayBoundary: DayBoundary { DayBoundary(settingText: text(SettingCatalog.dayStartsAt)) }

    /// What a shield does to its programs (`shield.action`), and after how long (`shield.grace`).
    public var shieldAction: ShieldAction { ShieldAction(rawValue: text(SettingCatalog.shieldAction)) ?? .freeze }
    public var shieldGraceSeconds: Int64 { seconds(SettingCatalog.shieldGrace) }

    /// The daily focus goal in seconds (0: any focus meets it).
    public var dailyGoalSeconds: Int64 { seconds(SettingCatalog.focusDailyGoal) }

    /// The focus plan the settings describe (hum's defaults where nothing is set).
    public func focusPlan() throws(FocusPlan.Problem) -> FocusPlan {
        try FocusPlan(
            focus: duration(SettingCatalog.focusLength), shortBreak: duration(SettingCatalog.focusShortBreak),
            longBreak: duration(SettingCatalog.focusLongBreak), longBreakEvery: count(SettingCatalog.focusLongEvery),
            rounds: count(SettingCatalog.focusRounds), fade: duration(SettingCatalog.focusFade),
            autoAdvance: FocusPlan.AutoAdvance(rawValue: text(SettingCatalog.focusAutoAdvance)) ?? .all)
    }

    /// The ledger's three, as the ledger's rules read them.
    public var ledger: LedgerConfig {
        var config = LedgerConfig()
        for key in LedgerConfig.keys { try? config.set(key, to: text(key)) }
        return config
    }
}
