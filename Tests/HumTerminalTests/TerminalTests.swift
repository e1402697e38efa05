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

    /// Keys encoded in every form a terminal sends (arrows with and without parameters, in CSI and SS3 form,
    /// characters, Ctrl-C, Enter as CR or LF), mixed with bytes that mean nothing here (other function keys, other
    /// control bytes, UTF-8), then cut into reads at random places: the decoder gives back exactly the keys.
    @Test func decodesGeneratedInputCutAnywhere() {
        var rng: UInt64 = 99
        func next() -> UInt64 {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return rng >> 33
        }
        for _ in 0..<2000 {
            var bytes: [UInt8] = []
            var expected: [Key] = []
            for _ in 0..<Int(next() % 12) {
                switch next() % 7 {
                case 0, 1:
                    let arrows: [(UInt8, Key)] = [(0x41, .up), (0x42, .down), (0x43, .right), (0x44, .left)]
                    let (final, key) = arrows[Int(next() % 4)]
                    let parameters: [UInt8] = next() % 2 == 0 ? [] : Array("1;\(next() % 9)".utf8)
                    bytes += [0x1B, next() % 3 == 0 ? 0x4F : 0x5B] + parameters + [final]
                    expected.append(key)
                case 2:
                    let c = UInt8(0x20 + next() % 95)
                    bytes.append(c)
                    expected.append(.character(Character(UnicodeScalar(c))))
                case 3:
                    bytes.append(0x03)
                    expected.append(.interrupt)
                case 4:
                    bytes.append(next() % 2 == 0 ? 0x0A : 0x0D)
                    expected.append(.enter)
                case 5:
                    bytes += [0x1B, 0x5B] + Array("\(next() % 30)".utf8) + [0x7E]  // F5, Insert, …: no key
                default:
                    bytes.append([0x01, 0x7F, 0xC3, 0xA9, 0x1F][Int(next() % 5)])  // no key either
                }
            }
            var decoder = KeyDecoder()
            var keys: [Key] = []
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + 1 + Int(next() % 5))
                keys += decoder.decode(Array(bytes[start..<end]))
                start = end
            }
            keys += decoder.flushEscape()
            #expect(keys == expected, "\(bytes)")
        }
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
