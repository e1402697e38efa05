import CCurses

#if canImport(Glibc)
    import Glibc
#endif

/// Why the full screen could not start.
public struct CursesProblem: Error, Sendable {
    public var message: String
}

/// The full screen through ncurses: it draws `DeskFrame`s (only the lines that changed since the last one, and
/// ncurses sends only the cells that changed), reads keys and mouse clicks without waiting, follows resizes, and
/// gives the terminal back as it was on `close()`, and on a crash through `TerminalRescue`.
///
/// Used from one thread (the frontend's event loop).
public final class CursesScreen {
    private var screen: OpaquePointer?
    private let color: Bool
    private var drawn: [DeskFrame.Line?] = []
    public private(set) var columns = 80
    public private(set) var rows = 24
    private var closed = false

    /// Takes over the terminal on stdin/stdout: the alternate screen, keys one by one without echo (Ctrl-C still
    /// raises SIGINT), no cursor, mouse clicks where the terminal reports them. `color`: the one accent colour,
    /// else reverse video.
    public init(color: Bool) throws(CursesProblem) {
        // ncursesw draws UTF-8 only under a UTF-8 locale; without one from the environment, C.UTF-8 (every glibc
        // has it) keeps the box characters from turning into escapes.
        setlocale(LC_ALL, "")
        if hum_locale_is_utf8() == 0 { setlocale(LC_CTYPE, "C.UTF-8") }
        TerminalRescue.save(fd: STDIN_FILENO)
        guard let screen = hum_newterm() else {
            throw CursesProblem(
                message:
                    "this terminal (TERM=\(getenv("TERM").map { String(cString: $0) } ?? "")) cannot show the "
                    + "full screen"
            )
        }
        self.screen = screen
        set_term(screen)
        // A terminal that cannot move the cursor cannot show a screen.
        if Self.capability("cup") == nil {
            Self.release(screen)
            throw CursesProblem(
                message:
                    "this terminal (TERM=\(getenv("TERM").map { String(cString: $0) } ?? "")) cannot move the cursor, "
                    + "so it cannot show the full screen; 'hum play' shows one line"
            )
        }
        TerminalRescue.arm(reset: Self.resetSequence())
        let window = hum_stdscr()
        // The modes the screen cannot work without; a terminal refusing one is named in the error.
        for (call, result) in [
            ("cbreak", cbreak()), ("noecho", noecho()), ("nonl", nonl()), ("keypad", keypad(window, true)),
            ("nodelay", nodelay(window, true)),
        ] where result == ERR {
            Self.release(screen)
            throw CursesProblem(message: "cannot set up the terminal for the full screen: \(call) failed")
        }
        curs_set(0)  // a terminal that cannot hide the cursor shows it: not worth refusing the screen for
        set_escdelay(25)
        mousemask(hum_mouse_button1(), nil)
        mouseinterval(0)
        self.color = color && has_colors()
        if self.color {
            start_color()
            use_default_colors()
            init_pair(1, Int16(COLOR_GREEN), -1)
        }
        columns = Int(hum_columns())
        rows = Int(hum_lines())
        drawn = Array(repeating: nil, count: rows)
    }

    deinit { close() }

    /// Gives the terminal back from a screen whose set-up failed (before the object was whole, so no deinit runs).
    private static func release(_ screen: OpaquePointer) {
        endwin()
        delscreen(screen)
        TerminalRescue.forget()
    }

    /// Whether the terminal on stdout can show the full screen: its type is known to terminfo and it can move the
    /// cursor (`TERM=dumb` cannot).
    public static func canShow() -> Bool {
        var error: Int32 = 0
        guard setupterm(nil, STDOUT_FILENO, &error) == OK else { return false }
        return capability("cup") != nil
    }

    private static func capability(_ name: String) -> String? {
        guard let value = tigetstr(name) else { return nil }
        if UInt(bitPattern: value) == UInt.max { return nil }
        return String(cString: value)
    }

    /// What gives the terminal back after a crash: leave the alternate screen, show the cursor, plain text, mouse
    /// reports off.
    private static func resetSequence() -> [UInt8] {
        let parts = ["sgr0", "cnorm", "rmcup"].compactMap(capability)
        return Array((parts.joined() + "\u{1B}[?1000l\u{1B}[?1002l\u{1B}[?1006l").utf8)
    }

    private func attributes(_ style: DeskFrame.Style) -> attr_t {
        switch style {
        case .plain: return hum_attr_normal()
        case .bold: return hum_attr_bold()
        case .dim: return hum_attr_dim()
        case .reverse: return hum_attr_reverse()
        case .accent: return color ? hum_attr_color_pair(1) | hum_attr_bold() : hum_attr_reverse()
        }
    }

    /// Draws a frame: only the lines that differ from what is on the screen.
    public func draw(_ frame: DeskFrame) {
        guard !closed else { return }
        let window = hum_stdscr()
        if drawn.count != frame.rows { drawn = Array(repeating: nil, count: frame.rows) }
        var changed = false
        for (row, line) in frame.lines.enumerated() where row < rows && drawn[row] != line {
            wmove(window, Int32(row), 0)
            for span in line.spans where !span.text.isEmpty {
                hum_attrset(window, attributes(span.style))
                waddstr(window, span.text)
            }
            hum_attrset(window, hum_attr_normal())
            // The last row's last cell: clearing to the end would scroll on some terminals; waddstr stops there.
            if line.width < columns { wclrtoeol(window) }
            drawn[row] = line
            changed = true
        }
        if changed { wrefresh(window) }
    }

    /// Reads the keys waiting (none waits).
    public func keys() -> [Key] {
        guard !closed else { return [] }
        var keys: [Key] = []
        let window = hum_stdscr()
        while true {
            let code = wgetch(window)
            if code == ERR { break }
            switch code {
            case KEY_UP: keys.append(.up)
            case KEY_DOWN: keys.append(.down)
            case KEY_LEFT: keys.append(.left)
            case KEY_RIGHT: keys.append(.right)
            case KEY_BACKSPACE, 8, 127: keys.append(.backspace)
            case KEY_ENTER, 10, 13: keys.append(.enter)
            case 27: keys.append(.escape)
            case 3: keys.append(.interrupt)
            case KEY_RESIZE: break  // the frontend follows SIGWINCH itself
            case KEY_MOUSE:
                var event = MEVENT()
                if getmouse(&event) == OK, hum_mouse_is_button1(event.bstate) != 0 {
                    keys.append(.click(column: Int(event.x), row: Int(event.y)))
                }
            case 0x20...0x7E: keys.append(.character(Character(UnicodeScalar(UInt8(code)))))
            default: break
            }
        }
        return keys
    }

    /// Follows a new terminal size (after SIGWINCH): everything is drawn again from a cleared screen.
    public func resize() {
        guard !closed else { return }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 {
            resizeterm(Int32(size.ws_row), Int32(size.ws_col))
        }
        columns = Int(hum_columns())
        rows = Int(hum_lines())
        let window = hum_stdscr()
        wclear(window)
        drawn = Array(repeating: nil, count: rows)
    }

    /// Gives the terminal back: the main screen as it was, the cursor, the modes.
    public func close() {
        guard !closed else { return }
        closed = true
        endwin()
        if let screen { delscreen(screen) }
        screen = nil
        TerminalRescue.forget()
    }
}
