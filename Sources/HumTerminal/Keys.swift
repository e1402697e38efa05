/// A key press, decoded from the bytes a terminal sends.
public enum Key: Equatable, Sendable {
    case up, down, left, right
    case character(Character)
    case enter, escape, interrupt
    /// Backspace (from the full screen's curses input; the line screen's decoder does not use it).
    case backspace
    /// A click of the first mouse button at a cell (0-based), where the terminal reports mouse events.
    case click(column: Int, row: Int)
}

/// Decodes terminal input bytes into keys: plain characters, and the arrow keys in both their CSI (`ESC [ A`) and
/// SS3 (`ESC O A`) forms. Bytes of a sequence split across reads are kept for the next call.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    public mutating func decode(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var i = 0
        while i < pending.count {
            let b = pending[i]
            if b == 0x1B {
                if i + 1 >= pending.count { break }  // wait for more
                let next = pending[i + 1]
                if next == UInt8(ascii: "[") || next == UInt8(ascii: "O") {
                    // Skip parameters (digits and ';') up to the final byte.
                    var j = i + 2
                    while j < pending.count, (0x30...0x3F).contains(pending[j]) { j += 1 }
                    if j >= pending.count { break }
                    switch pending[j] {
                    case UInt8(ascii: "A"): keys.append(.up)
                    case UInt8(ascii: "B"): keys.append(.down)
                    case UInt8(ascii: "C"): keys.append(.right)
                    case UInt8(ascii: "D"): keys.append(.left)
                    default: break  // another function key: ignored
                    }
                    i = j + 1
                } else {
                    keys.append(.escape)
                    i += 1
                }
                continue
            }
            switch b {
            case 0x03: keys.append(.interrupt)
            case 0x0A, 0x0D: keys.append(.enter)
            case 0x20...0x7E: keys.append(.character(Character(UnicodeScalar(b))))
            default: break  // other control bytes and non-ASCII: no meaning here
            }
            i += 1
        }
        pending.removeFirst(i)
        if pending.count > 16 { pending.removeAll() }  // garbage that never completes
        return keys
    }

    /// A lone ESC with nothing after it (the Escape key itself), when no more input came.
    public mutating func flushEscape() -> [Key] {
        if pending == [0x1B] {
            pending.removeAll()
            return [.escape]
        }
        return []
    }
}
