import CCurses
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The controlling terminal: raw key input and a live status line, restored to how it was on `restore()`.
///
/// Capabilities come from terminfo (clear to end of line, hide and show the cursor), with ANSI as the fallback.
public final class Terminal: @unchecked Sendable {
    // @unchecked: used from the frontend's main loop only.
    private var saved = termios()
    private var raw = false
    /// The descriptor keys are read from.
    public let input: Int32
    private let output: Int32
    public let clearToEndOfLine: String
    public let hideCursor: String
    public let showCursor: String

    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) {
        self.input = input
        self.output = output
        var error: Int32 = 0
        if setupterm(nil, output, &error) == OK {
            clearToEndOfLine = Terminal.capability("el") ?? "\u{1B}[K"
            hideCursor = Terminal.capability("civis") ?? ""
            showCursor = Terminal.capability("cnorm") ?? ""
        } else {
            clearToEndOfLine = "\u{1B}[K"
            hideCursor = ""
            showCursor = ""
        }
    }

    private static func capability(_ name: String) -> String? {
        guard let value = tigetstr(name) else { return nil }
        // terminfo returns (char *)-1 for a name that is not a string capability.
        if UInt(bitPattern: value) == UInt.max { return nil }
        return String(cString: value)
    }

    /// Width in columns (80 when unknown).
    public var columns: Int {
        var size = winsize()
        if ioctl(output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    /// Keys arrive one by one, without echo; Ctrl-C still raises SIGINT.
    public func enterRawMode() {
        guard !raw, tcgetattr(input, &saved) == 0 else { return }
        var t = saved
        t.c_lflag &= ~tcflag_t(ICANON | ECHO)
        t.c_cc.6 = 0  // VMIN (Linux index): reads return at once
        t.c_cc.5 = 0  // VTIME
        if tcsetattr(input, TCSANOW, &t) == 0 { raw = true }
        write(hideCursor)
    }

    public func restore() {
        if raw {
            var t = saved
            tcsetattr(input, TCSANOW, &t)
            raw = false
        }
        write(showCursor)
    }

    /// Replaces the current line with `text`, cut to the terminal's width.
    public func statusLine(_ text: String) {
        write("\r" + StatusText.fit(text, columns: columns - 1) + clearToEndOfLine)
    }

    /// Ends the status line so what follows starts on a fresh line.
    public func endStatusLine() { write("\r" + clearToEndOfLine) }

    /// Waits up to `milliseconds` for input and decodes the keys that came (a lone Escape when nothing followed it).
    public func keys(waiting milliseconds: Int32, decoder: inout KeyDecoder) -> [Key] {
        var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, max(1, milliseconds))
        let keys = decoder.decode(readAvailable())
        return keys.isEmpty ? decoder.flushEscape() : keys
    }

    /// Reads whatever bytes are waiting (non-blocking in raw mode).
    public func readAvailable() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(input, &buffer, buffer.count)
        return n > 0 ? Array(buffer[0..<n]) : []
    }

    public func write(_ text: String) {
        guard !text.isEmpty else { return }
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(output, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }
}

/// Text helpers for the live line.
public enum StatusText {
    /// Cuts `text` to at most `columns` visible characters (escape sequences take no room), ending in "…" when cut.
    public static func fit(_ text: String, columns: Int) -> String {
        guard columns > 0 else { return "" }
        var visible = 0
        var out = ""
        var inEscape = false
        let total = visibleWidth(text)
        if total <= columns { return text }
        for ch in text {
            if ch == "\u{1B}" {
                inEscape = true
                out.append(ch)
                continue
            }
            if inEscape {
                out.append(ch)
                if ch.isLetter { inEscape = false }
                continue
            }
            let w = DisplayWidth.columns(ch)
            if visible + w > columns - 1 {
                out += "…"
                break
            }
            out.append(ch)
            visible += w
        }
        return out + (text.contains("\u{1B}") ? "\u{1B}[0m" : "")
    }

    public static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        for ch in text {
            if ch == "\u{1B}" {
                inEscape = true
                continue
            }
            if inEscape {
                if ch.isLetter { inEscape = false }
                continue
            }
            width += DisplayWidth.columns(ch)
        }
        return width
    }
}
