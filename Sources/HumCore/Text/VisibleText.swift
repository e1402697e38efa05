/// Text that came from people or other machines (labels, reasons, goals, tags, ids, sound and file names), made
/// safe to print on a terminal: every control character is shown as an escape instead of being obeyed.
///
/// A label holding `ESC [ 2 J` would otherwise clear the screen, and a newline would break a table's row in two.
/// Shown escaped: the C0 controls (U+0000–U+001F: `\t`, `\n`, `\r`, `\e` for ESC, `\u{7}` for the others), DEL
/// (`\u{7f}`), the C1 controls (U+0080–U+009F, `\u{9b}` for the 8-bit CSI), and the invisible characters that
/// change how a line is laid out: the line and paragraph separators (U+2028, U+2029) and the bidirectional
/// marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which can
/// make text read in another order than it is stored. Everything else, accents and emoji included, is kept as it
/// is. A backslash is not doubled: the output is for reading, not for parsing back (JSON output is exact).
public enum VisibleText {
    /// `text` with its control characters escaped; the same string when it has none.
    public static func escape<S: StringProtocol>(_ text: S) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x09: out += "\\t"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x1B: out += "\\e"
            default: out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    /// Whether a character is shown escaped.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

extension VisibleText {
    /// How many characters of a value a message quotes: enough to recognise it, never a screenful (a 100 kB word
    /// typed by mistake, or pasted, is not repeated back in full).
    public static let quoteLimit = 60
    /// A path is given more room (most paths fit whole): its end, the file's name, is what tells it apart.
    public static let pathLimit = 120

    /// `text` for a message: its control characters escaped (as `escape`), and at most `limit` characters shown
    /// (escapes counted as they print). A longer text keeps its start and ends with "…"; with `keepingEnd` (a
    /// path, where the file's name is at the end) it keeps its start and its end around "…".
    public static func clipped<S: StringProtocol>(_ text: S, limit: Int = quoteLimit, keepingEnd: Bool = false)
        -> String
    {
        // At most 4 scalars a character on average: a character of thousands of combining marks is clipped too.
        func take<C: Sequence<Character>>(_ characters: C, room: Int) -> (pieces: [String], all: Bool) {
            var pieces: [String] = []
            var shown = 0
            var scalars = 0
            for character in characters {
                let piece = escape(String(character))
                shown += piece.count
                scalars += piece.unicodeScalars.count
                guard shown <= room, scalars <= 4 * room else { return (pieces, false) }
                pieces.append(piece)
            }
            return (pieces, true)
        }
        let limit = max(2, limit)
        let whole = take(text, room: limit)
        if whole.all { return whole.pieces.joined() }
        guard keepingEnd else { return take(text, room: limit - 1).pieces.joined() + "…" }
        let tailRoom = (limit - 1) / 2
        let head = take(text, room: limit - 1 - tailRoom).pieces.joined()
        let tail = take(text.reversed(), room: tailRoom).pieces.reversed().joined()
        return head + "…" + tail
    }
}

extension StringProtocol {
    /// The text with its control characters shown escaped, for a terminal (see `VisibleText`).
    public var visible: String { VisibleText.escape(self) }

    /// The text as a message quotes it: in double quotes, escaped, and clipped to `VisibleText.quoteLimit`
    /// characters (`"xxxx…"`). Every message that repeats what someone typed or stored uses this (or `clipped`).
    public var quoted: String { "\"" + VisibleText.clipped(self) + "\"" }

    /// The text escaped and clipped as in `quoted`, without the quotes.
    public var clipped: String { VisibleText.clipped(self) }

    /// A path as a message quotes it: escaped, and clipped in its middle to `VisibleText.pathLimit` characters,
    /// keeping the start and the file's name.
    public var clippedPath: String {
        VisibleText.clipped(self, limit: VisibleText.pathLimit, keepingEnd: true)
    }
}
