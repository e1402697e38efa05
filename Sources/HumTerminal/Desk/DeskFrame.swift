import HumCore

/// One screenful of the full screen, as plain values: a line of styled spans per terminal row, and where the volume
/// bars are (for mouse clicks). The layout makes it; the curses adapter draws it, line by line, only the lines that
/// changed since the last frame.
public struct DeskFrame: Equatable, Sendable {
    /// The few looks the screen uses: calm, one accent colour (earned time only).
    public enum Style: Equatable, Sendable {
        case plain, dim, bold, reverse
        /// The one accent colour, for earned time (reverse video without colour).
        case accent
    }

    public struct Span: Equatable, Sendable {
        public var text: String
        public var style: Style
        public init(_ text: String, _ style: Style = .plain) {
            self.text = text
            self.style = style
        }
    }

    public struct Line: Equatable, Sendable {
        public var spans: [Span] = []
        public init(_ spans: [Span] = []) { self.spans = spans }
        /// The line's characters, styles left out.
        public var text: String { spans.map(\.text).joined() }
        /// In terminal columns (a CJK character or an emoji takes two).
        public var width: Int { spans.reduce(0) { $0 + DisplayWidth.columns($1.text) } }
    }

    /// A volume bar on the screen: clicking at `column + k` sets the sound's volume to `k / (width - 1)` of 100.
    public struct Bar: Equatable, Sendable {
        public var row: Int
        public var column: Int
        public var width: Int
        /// The sound's name in the mix; nil for the master.
        public var sound: String?
        public var index: Int?
    }

    public var columns: Int
    public var rows: Int
    /// Exactly `rows` lines, none wider than `columns`.
    public var lines: [Line]
    public var bars: [Bar] = []

    public init(columns: Int, rows: Int) {
        self.columns = max(columns, 0)
        self.rows = max(rows, 0)
        lines = Array(repeating: Line(), count: self.rows)
    }

    /// Puts `spans` at `row` from `column`, cut to the width; what was there from that column on is replaced.
    public mutating func put(_ row: Int, _ column: Int, _ spans: [Span]) {
        guard lines.indices.contains(row), column < columns, column >= 0 else { return }
        var line = lines[row]
        var room = columns - column
        // Keep what is before `column`, padded to it.
        var kept: [Span] = []
        var width = 0
        for span in line.spans where width < column {
            let take = Self.prefix(span.text, columns: column - width)
            kept.append(Span(take, span.style))
            width += DisplayWidth.columns(take)
        }
        if width < column { kept.append(Span(String(repeating: " ", count: column - width))) }
        line.spans = kept
        for span in spans where room > 0 {
            let take = Self.prefix(span.text, columns: room)
            line.spans.append(Span(take, span.style))
            room -= DisplayWidth.columns(take)
        }
        lines[row] = line
    }

    /// The longest start of `text` that takes at most `columns` terminal columns (a wide character that would
    /// straddle the edge is left out).
    static func prefix(_ text: String, columns: Int) -> String {
        var out = ""
        var used = 0
        for character in text {
            let w = DisplayWidth.columns(character)
            if used + w > columns { break }
            out.append(character)
            used += w
        }
        return out
    }

    public mutating func put(_ row: Int, _ column: Int, _ text: String, _ style: Style = .plain) {
        put(row, column, [Span(text, style)])
    }

    /// Centres `spans` on `row`.
    public mutating func center(_ row: Int, _ spans: [Span]) {
        let width = spans.reduce(0) { $0 + DisplayWidth.columns($1.text) }
        put(row, max(0, (columns - width) / 2), spans)
    }

    public mutating func center(_ row: Int, _ text: String, _ style: Style = .plain) {
        center(row, [Span(text, style)])
    }

    /// The screen as text, one line per row, trailing spaces removed (for tests and screenshots).
    public var text: String {
        lines.map { line in
            var t = line.text
            while t.last == " " { t.removeLast() }
            return t
        }.joined(separator: "\n")
    }
}
