import HumCore

/// What the full screen gets from the command that opens it, as values and closures: the sounds that can be added,
/// the settings it follows, the bank, the saved mixes, the focus plan, the display. HumCLI fills them in from its
/// context (the catalogue, the settings, the ledger, ncurses); a test fills them in with its own.
public struct DeskServices {
    /// Every sound that can be added (built-in ones with their descriptions, then the user's).
    public var sounds: [DeskSound]
    /// The setting ui.blink.
    public var blink: Bool
    /// The wall clock and zone the big clock shows.
    public var calendar: LocalCalendar
    /// The bank as the ledger holds it now; nil when it cannot be read.
    public var readBank: () -> DeskBank?
    /// The focus rounds `f` starts: the plan of the settings, as a bare `hum focus` would run it.
    public var focusRequest: () throws -> FocusRequest
    /// Saves the mix under a name (`S`).
    public var saveMix: (Mix, String) throws -> Void
    /// The saved mixes (`l`).
    public var savedMixes: () throws -> [DeskMix]
    /// A saved mix by name; nil when there is none.
    public var mixNamed: (String) throws -> Mix?
    /// The last warning held back while the screen holds the terminal (without its `hum: `), taken once.
    public var heldMessage: () -> String?
    /// Opens the display, with colour or without; a display that cannot open throws a `UserFacingError`.
    public var openDisplay: (Bool) throws -> any DeskDisplay
    /// Writes a line on the shell's screen once the full screen is gone.
    public var say: (String) -> Void

    public init(
        sounds: [DeskSound], blink: Bool, calendar: LocalCalendar, readBank: @escaping () -> DeskBank?,
        focusRequest: @escaping () throws -> FocusRequest, saveMix: @escaping (Mix, String) throws -> Void,
        savedMixes: @escaping () throws -> [DeskMix], mixNamed: @escaping (String) throws -> Mix?,
        heldMessage: @escaping () -> String?, openDisplay: @escaping (Bool) throws -> any DeskDisplay,
        say: @escaping (String) -> Void
    ) {
        self.sounds = sounds
        self.blink = blink
        self.calendar = calendar
        self.readBank = readBank
        self.focusRequest = focusRequest
        self.saveMix = saveMix
        self.savedMixes = savedMixes
        self.mixNamed = mixNamed
        self.heldMessage = heldMessage
        self.openDisplay = openDisplay
        self.say = say
    }
}
