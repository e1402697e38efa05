import Testing

@testable import HumCore

@Suite struct DisplayWidthTests {
    @Test func charactersTakeTheColumnsATerminalGivesThem() {
        #expect(DisplayWidth.columns("a") == 1 && DisplayWidth.columns("é") == 1)
        #expect(DisplayWidth.columns("e\u{301}") == 1, "a combining accent takes no column of its own")
        #expect(DisplayWidth.columns("集") == 2 && DisplayWidth.columns("한") == 2 && DisplayWidth.columns("Ａ") == 2)
        #expect(
            DisplayWidth.columns("🚀") == 2 && DisplayWidth.columns("❤\u{FE0F}") == 2 && DisplayWidth.columns("❤") == 1)
        #expect(DisplayWidth.columns("👩\u{200D}💻") == 2, "a joined emoji is one character")
        #expect(DisplayWidth.columns("\u{200B}") == 0)
        #expect(DisplayWidth.columns("rain 40 · 集中") == 14)
    }

    @Test func fittingCutsAtColumnsNotCharacters() {
        #expect(DisplayWidth.fit("集中して論文", columns: 6) == "集中…")
        #expect(DisplayWidth.fit("集中して論文", columns: 12) == "集中して論文")
        #expect(DisplayWidth.fit("abc", columns: 0).isEmpty)
        #expect(DisplayWidth.padded("集", to: 4) == "集  " && DisplayWidth.rightAligned("集", to: 3) == " 集")
        for text in ["集中して論文を書く", "ship it 🚀 now", "plain words here"] {
            for width in 1...20 {
                #expect(DisplayWidth.columns(DisplayWidth.fit(text, columns: width)) <= width, "\(text) \(width)")
            }
        }
    }
}
