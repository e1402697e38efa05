import Testing

@testable import HumTerminal

@Suite struct KeyDecoderTests {
    @Test func decodesArrowsInBothForms() {
        var decoder = KeyDecoder()
        #expect(
            decoder.decode([0x1B, 0x5B, 0x41, 0x1B, 0x4F, 0x42, 0x1B, 0x5B, 0x43, 0x1B, 0x5B, 0x44]) == [
                .up, .down, .right, .left,
            ])
    }

    @Test func keepsASplitSequenceForTheNextRead() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.decode([0x5B]) == [])
        #expect(decoder.decode([0x41, UInt8(ascii: "q")]) == [.up, .character("q")])
    }

    @Test func ignoresOtherFunctionKeysAndGarbage() {
        var decoder = KeyDecoder()
        // F5 (ESC [ 1 5 ~), then 'm', then a stray UTF-8 byte.
        #expect(decoder.decode([0x1B, 0x5B, 0x31, 0x35, 0x7E, UInt8(ascii: "m"), 0xC3]) == [.character("m")])
        #expect(decoder.decode([0x03]) == [.interrupt])
    }

    @Test func fuzzNeverCrashes() {
        var decoder = KeyDecoder()
        var state: UInt64 = 99
        for _ in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let bytes = (0..<Int(state >> 60)).map { UInt8(truncatingIfNeeded: state >> UInt64(8 * ($0 % 7))) }
            _ = decoder.decode(bytes)
        }
        _ = decoder.flushEscape()
    }
}

@Suite struct MixerViewTests {
    func view() -> MixerView {
        MixerView(tracks: [.init(name: "rain", volume: 40), .init(name: "brown", volume: 25)], master: 80)
    }

    @Test func keysChangeTheSelectedTrack() {
        var v = view()
        #expect(v.handle(.right) == .volume(track: 0, 45))
        #expect(v.handle(.down) == .none)
        #expect(v.selected == 1)
        #expect(v.handle(.left) == .volume(track: 1, 20))
        #expect(v.handle(.character("m")) == .mute(track: 1, true))
        #expect(v.handle(.character("+")) == .master(85))
        #expect(v.handle(.character("-")) == .master(80))
        #expect(v.handle(.down) == .none)
        #expect(v.selected == 0)  // wraps
        #expect(v.handle(.up) == .none)
        #expect(v.selected == 1)
        #expect(v.handle(.character("q")) == .quit)
    }

    @Test func volumesStayWithinTheScale() {
        var v = MixerView(tracks: [.init(name: "a", volume: 98)], master: 3)
        #expect(v.handle(.right) == .volume(track: 0, 100))
        #expect(v.handle(.right) == .volume(track: 0, 100))
        #expect(v.handle(.character("-")) == .master(0))
    }

    @Test func lineShowsTracksMasterAndTime() {
        var v = view()
        _ = v.handle(.down)
        _ = v.handle(.character("m"))
        #expect(v.line(elapsedSeconds: 754, color: false) == "♪ rain 40 · ›brown muted‹ │ master 80 │ 12:34")
        #expect(v.line(elapsedSeconds: 0, color: true).contains("\u{1B}[7mbrown muted\u{1B}[0m"))
    }

    @Test func fitCutsToTheWidthIgnoringEscapes() {
        #expect(StatusText.fit("abcdef", columns: 4) == "abc…")
        #expect(StatusText.fit("abc", columns: 4) == "abc")
        #expect(StatusText.visibleWidth("\u{1B}[7mab\u{1B}[0m") == 2)
    }
}
