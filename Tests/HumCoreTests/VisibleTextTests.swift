import Testing

@testable import HumCore

@Suite struct VisibleTextTests {
    @Test func escapeSequencesAndNewlinesAreShownNotObeyed() {
        #expect(VisibleText.escape("a\u{1B}[2Jb\nc") == "a\\e[2Jb\\nc")
        #expect(VisibleText.escape("tab\there\r\n") == "tab\\there\\r\\n")
        #expect(VisibleText.escape("\u{0}\u{7}\u{1F}\u{7F}") == "\\u{0}\\u{7}\\u{1f}\\u{7f}")
        #expect(VisibleText.escape("csi\u{9B}31m c1\u{80}\u{9F}") == "csi\\u{9b}31m c1\\u{80}\\u{9f}")
        #expect(VisibleText.escape("\u{202E}txt.exe\u{2028}") == "\\u{202e}txt.exe\\u{2028}")
    }

    @Test func ordinaryTextIsKeptAsItIs() {
        for text in ["", "youtube", "café au lait", "雨の音 🌧", "e\u{301}", "back\\slash", "100% (ok)", "\u{A0}nbsp"] {
            #expect(VisibleText.escape(text) == text)
            #expect(text.visible == text)
        }
    }

    /// Whatever the input, the result holds no character a terminal would obey, and is one line.
    @Test func noControlCharacterSurvives() {
        var rng = SplitMix64(seed: 9)
        for _ in 0..<2000 {
            var text = ""
            for _ in 0..<Int(rng.next() % 20) {
                let pick = rng.next() % 4
                let value: UInt32 =
                    pick == 0
                    ? UInt32(rng.next() % 0xA0)
                    : pick == 1 ? 0x2000 + UInt32(rng.next() % 0x70) : UInt32(rng.next() % 0x3000)
                if let scalar = Unicode.Scalar(value) { text.unicodeScalars.append(scalar) }
            }
            let shown = VisibleText.escape(text)
            #expect(!shown.unicodeScalars.contains(where: VisibleText.needsEscape), "\(Array(text.unicodeScalars))")
            #expect(!shown.contains("\n"))
        }
    }
}
