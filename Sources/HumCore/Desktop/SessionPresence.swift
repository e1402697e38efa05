/// Whether the person is at the machine, as the login manager sees the session: locked (logind's `LockedHint`, or
/// its `Lock` signal until `Unlock`) or idle (`IdleHint`) is away. The seam between the player and the system bus:
/// `LogindPresence` in HumBus watches logind, `ScriptedPresence` in HumTestSupport is told by a test. Either calls
/// `onChange` on the player's loop, so a focus round hears of it between two polls like any other event.
public protocol SessionPresence: AnyObject {
    /// Told each time the session goes away or comes back (never twice the same in a row).
    var onChange: ((SessionHints) -> Void)? { get set }
    /// Told once why the session cannot be watched (no system bus, no logind, no session): hum works as without.
    var onProblem: ((String) -> Void)? { get set }
    /// Told once the session is watched (what is watched, for `--verbose`): changes from then on are heard.
    var onWatching: ((String) -> Void)? { get set }
    /// Starts watching (after `onChange` and `onProblem` are set: either may be told at once).
    func start()
    /// Stops watching: nothing is told after it.
    func close()
}

/// What logind says of the session: locked, idle. Away when either holds.
public struct SessionHints: Sendable, Equatable {
    public var locked: Bool
    public var idle: Bool

    public init(locked: Bool = false, idle: Bool = false) {
        self.locked = locked
        self.idle = idle
    }

    public var away: Bool { locked || idle }

    /// `locked`, `idle`, `locked and idle`, `back`: for the record and `--verbose`.
    public var text: String {
        switch (locked, idle) {
        case (true, true): "locked and idle"
        case (true, false): "locked"
        case (false, true): "idle"
        case (false, false): "back"
        }
    }
}

/// What a focus round does while the session is away (setting `focus.when-away`): `pause` (the default) pauses it and
/// fades the mix out, and resumes it on return; `keep` lets it run (the away time is still recorded on the round);
/// `stop` ends the rounds (the round is recorded as interrupted). Away time is never counted as focus with `pause`
/// and `stop`.
public enum AwayPolicy: String, Sendable, CaseIterable {
    case pause
    case keep
    case stop
}
