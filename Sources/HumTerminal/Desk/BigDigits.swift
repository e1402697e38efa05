/// Large digits for a clock read from across a desk, drawn with block characters (no font files): each glyph is
/// a 3×5 grid of cells, each cell two columns of `█` wide so the digits look square on a terminal's tall cells.
public enum BigDigits {
    /// Rows of a glyph.
    public static let height = 5
    /// Columns between two glyphs.
    public static let gap = 2

    /// The 3×5 pattern of each character that can be drawn; `#` is ink.
    static let patterns: [Character: [String]] = [
        "0": ["###", "#.#", "#.#", "#.#", "###"],
        "1": [".#.", "##.", ".#.", ".#.", "###"],
        "2": ["###", "..#", "###", "#..", "###"],
        "3": ["###", "..#", "###", "..#", "###"],
        "4": ["#.#", "#.#", "###", "..#", "..#"],
        "5": ["###", "#..", "###", "..#", "###"],
        "6": ["###", "#..", "###", "#.#", "###"],
        "7": ["###", "..#", "..#", "..#", "..#"],
        "8": ["###", "#.#", "###", "#.#", "###"],
        "9": ["###", "#.#", "###", "..#", "###"],
        ":": [".", "#", ".", "#", "."],
        " ": [".", ".", ".", ".", "."],
    ]

    /// The width `text` takes, in columns (characters without a glyph take none).
    public static func width(_ text: String) -> Int {
        let glyphs = text.compactMap { patterns[$0] }
        guard !glyphs.isEmpty else { return 0 }
        return glyphs.map { $0[0].count * 2 }.reduce(0, +) + gap * (glyphs.count - 1)
    }

    /// The `height` rows that draw `text`; characters without a glyph are left out.
    public static func render(_ text: String) -> [String] {
        let glyphs = text.compactMap { patterns[$0] }
        return (0..<height).map { row in
            glyphs.map { glyph in
                glyph[row].map { $0 == "#" ? "██" : "  " }.joined()
            }.joined(separator: String(repeating: " ", count: gap))
        }
    }
}
