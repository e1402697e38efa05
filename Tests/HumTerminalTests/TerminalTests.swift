import HumCore
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

@Suite struct PlayerLineTests {
    func status(focus: PlayerStatus.Focus? = nil, endsIn: Int64? = nil) -> PlayerStatus {
        PlayerStatus(
            pid: 1, session: "s", state: .playing,
            mix: Mix(
                tracks: [.init(sound: "rain", volume: 40), .init(sound: "/x/brown.flac", volume: 25)], master: 80),
            focus: focus, elapsedSeconds: 754, endsInSeconds: endsIn)
    }

    @Test func keysBecomeRequestsForTheSelectedSound() {
        var line = PlayerLine()
        let s = status()
        #expect(line.handle(.right, status: s) == .command(.volume(sound: "rain", volume: 45)))
        #expect(line.handle(.down, status: s) == .none)
        #expect(line.selected == 1)
        #expect(line.handle(.left, status: s) == .command(.volume(sound: "/x/brown.flac", volume: 20)))
        #expect(line.handle(.character("7"), status: s) == .command(.volume(sound: "/x/brown.flac", volume: 70)))
        #expect(line.handle(.character("m"), status: s) == .command(.mute(sound: "/x/brown.flac", muted: nil)))
        #expect(line.handle(.character("+"), status: s) == .command(.master(volume: 85)))
        #expect(line.handle(.character("-"), status: s) == .command(.master(volume: 75)))
        #expect(line.handle(.character(" "), status: s) == .command(.toggle))
        #expect(line.handle(.character("s"), status: s) == .none, "no rounds: nothing to skip")
        #expect(line.handle(.down, status: s) == .none)
        #expect(line.selected == 0)  // wraps
        #expect(line.handle(.character("?"), status: s) == .help)
        #expect(line.handle(.character("q"), status: s) == .quit)
    }

    @Test func volumesStayWithinTheScale() {
        var line = PlayerLine()
        var s = status()
        s.mix.tracks[0].volume = 98
        s.mix.master = 3
        #expect(line.handle(.right, status: s) == .command(.volume(sound: "rain", volume: 100)))
        #expect(line.handle(.character("-"), status: s) == .command(.master(volume: 0)))
    }

    @Test func theLineShowsTheMixTheClockAndTheCountdown() {
        var line = PlayerLine()
        _ = line.handle(.down, status: status())
        var s = status()
        s.mix.tracks[1].muted = true
        #expect(line.text(s, color: false) == "♪ rain 40 · ›brown muted‹ │ master 80 │ 12:34")
        #expect(line.text(s, color: true).contains("\u{1B}[7mbrown muted\u{1B}[0m"))
        #expect(line.text(status(endsIn: 65), color: false).hasSuffix("│ 01:05 left"))
        let focus = PlayerStatus.Focus(
            phase: .focus, round: 2, rounds: 4, remainingSeconds: 300, plannedSeconds: 1500, deadline: nil,
            paused: true, waiting: false, goal: nil, tags: [])
        #expect(
            line.text(status(focus: focus), color: false).hasPrefix(
                "focus 2/4 05:00 ████████████████░░░░ (paused)  ♪ rain 40"))
        // A name from outside cannot steer the terminal.
        s.mix.tracks[0].sound = "ra\u{1B}[2Jin"
        #expect(line.text(s, color: false).hasPrefix("♪ ra\\e[2Jin 40"))
    }

    @Test func aStatusMovesOnWithTheClockOnlyWhereTimeRuns() {
        let running = PlayerStatus.Focus(
            phase: .focus, round: 1, rounds: 4, remainingSeconds: 100, plannedSeconds: 1500, deadline: nil,
            paused: false, waiting: false, goal: nil, tags: [])
        var paused = running
        paused.paused = true
        #expect(status(focus: running).advanced(by: 30).focus?.remainingSeconds == 70)
        #expect(status(focus: running).advanced(by: 300).focus?.remainingSeconds == 0)
        #expect(status(focus: paused).advanced(by: 30).focus?.remainingSeconds == 100)
        #expect(status(endsIn: 20).advanced(by: 5).endsInSeconds == 15)
        #expect(status().advanced(by: 6).elapsedSeconds == 760)
    }

    @Test func fitCutsToTheWidthIgnoringEscapes() {
        #expect(StatusText.fit("abcdef", columns: 4) == "abc…")
        #expect(StatusText.fit("abc", columns: 4) == "abc")
        #expect(StatusText.visibleWidth("\u{1B}[7mab\u{1B}[0m") == 2)
    }
}
