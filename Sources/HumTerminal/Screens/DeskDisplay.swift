#if canImport(Glibc)
    import Glibc
#endif

/// What the full screen draws on and reads keys from. `CursesScreen` is the real one (ncurses on stdin and stdout);
/// a test's decodes keys from a pipe and keeps the frames, so the screen's controller runs without a terminal.
public protocol DeskDisplay: AnyObject {
    /// The descriptor keys come on: the screen's loop watches it and then calls `keys()`.
    var input: Int32 { get }
    var columns: Int { get }
    var rows: Int { get }
    func draw(_ frame: DeskFrame)
    /// The keys waiting (none waits).
    func keys() -> [Key]
    /// Follows a new terminal size.
    func resize()
    /// Gives the terminal back.
    func close()
}

extension CursesScreen: DeskDisplay {
    /// ncurses reads stdin.
    public var input: Int32 { STDIN_FILENO }
}
