/// A view of the player in its own process that the player draws on itself: the terminal's one-line screen
/// (HumTerminal's `LineScreen`). The player tells it every change, clears it to print a line, rings its bell at a
/// chime, and closes it when it ends. Here, below both, so the player (HumPlayer) calls it and the screen
/// (HumTerminal) conforms to it without either importing the other.
public protocol PlayerView: AnyObject {
    /// Shows a status (something changed).
    func show(_ status: PlayerStatus)
    /// Clears the view so a line can be printed; the next `show` draws it again.
    func interrupt()
    /// The terminal bell (a chime with `notify.bell`).
    func bell()
    /// Gives the terminal back.
    func close()
}
