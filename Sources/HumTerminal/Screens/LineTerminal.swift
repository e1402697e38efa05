/// What the one-line screen needs of a terminal: the descriptor its keys come on, raw mode and back, and the line it
/// writes. `Terminal` is the real one (stdin and stdout); a test gives a pipe for the keys and keeps what is written,
/// so no test needs a terminal of its own.
public protocol LineTerminal: AnyObject {
    /// The descriptor keys are read from (non-blocking once in raw mode, or a pipe).
    var input: Int32 { get }
    /// Keys arrive one by one, without echo.
    func enterRawMode()
    /// The mode as it was before `enterRawMode`, and the cursor shown.
    func restore()
    /// Replaces the current line with `text`.
    func statusLine(_ text: String)
    /// Ends the status line so what follows starts on a fresh line.
    func endStatusLine()
    func write(_ text: String)
}

extension Terminal: LineTerminal {}
