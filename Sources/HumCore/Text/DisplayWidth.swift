/// How many terminal columns text takes: a CJK ideograph, a Hangul syllable, a fullwidth form or an emoji takes
/// two, a combining mark or a zero-width character none, anything else one. Tables and lines that must fit 80
/// columns count with this, not with `String.count` (a goal in Japanese of 40 characters takes 80 columns).
///
/// The width of a character (a grapheme cluster) is its first scalar's, made 2 by an emoji presentation selector
/// (U+FE0F) and 0 when that scalar is itself a mark or format character. The wide ranges are the East Asian Wide
/// and Fullwidth blocks of Unicode's EastAsianWidth.txt, grouped into blocks; emoji are read from the scalar's
/// `isEmojiPresentation` property.
public enum DisplayWidth {
    /// The columns of one character.
    public static func columns(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value < 0x7F { return first.value < 0x20 ? 0 : 1 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if first.properties.isEmojiPresentation || isWide(first.value) { return 2 }
        if scalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji { return 2 }
        return 1
    }

    /// The columns of a text (no escape sequences in it).
    public static func columns<S: StringProtocol>(_ text: S) -> Int {
        var total = 0
        for character in text { total += columns(character) }
        return total
    }

    /// The longest start of `text` that fits `width` columns, with "…" at its end when something was cut.
    public static func fit<S: StringProtocol>(_ text: S, columns width: Int) -> String {
        guard width > 0 else { return "" }
        if columns(text) <= width { return String(text) }
        var out = ""
        var used = 0
        for character in text {
            let w = columns(character)
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// `text` followed by spaces up to `width` columns (as it is when it is wider).
    public static func padded<S: StringProtocol>(_ text: S, to width: Int) -> String {
        let w = columns(text)
        return w >= width ? String(text) : String(text) + String(repeating: " ", count: width - w)
    }

    /// Spaces and then `text`, `width` columns in all (as it is when it is wider).
    public static func rightAligned<S: StringProtocol>(_ text: S, to width: Int) -> String {
        let w = columns(text)
        return w >= width ? String(text) : String(repeating: " ", count: width - w) + text
    }

    static func isWide(_ v: UInt32) -> Bool {
        switch v {
        case 0x1100...0x115F,  // Hangul Jamo initial consonants
            0x231A...0x231B, 0x2329...0x232A,  // watch, hourglass, angle brackets
            0x2E80...0x303E,  // CJK radicals, Kangxi, CJK symbols and punctuation
            0x3041...0x33FF,  // Hiragana, Katakana, Bopomofo, Hangul compatibility, Kanbun, CJK compatibility
            0x3400...0x4DBF,  // CJK extension A
            0x4E00...0x9FFF,  // CJK unified ideographs
            0xA000...0xA4CF,  // Yi
            0xA960...0xA97F,  // Hangul Jamo extended A
            0xAC00...0xD7A3,  // Hangul syllables
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFE10...0xFE19, 0xFE30...0xFE6F,  // vertical forms, CJK compatibility forms, small forms
            0xFF00...0xFF60, 0xFFE0...0xFFE6,  // fullwidth forms
            0x16FE0...0x16FE4, 0x17000...0x18CFF,  // Tangut
            0x1B000...0x1B16F,  // Kana supplement and extended
            0x1F200...0x1F2FF,  // enclosed ideographic supplement
            0x20000...0x2FFFD, 0x30000...0x3FFFD:  // CJK extensions B and later
            return true
        default:
            return false
        }
    }
}
