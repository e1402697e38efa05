import Testing

@testable import HumCore

/// An offline render mixes on one thread (`Mixer.mixUnlimited`) and limits on another (`LimiterStage`): the frames
/// must be those `Mixer.render` gives, to the bit, however the mix is cut into pieces on its way to the limiter,
/// whether the limiter works hard or not at all, and for a mix shorter than the limiter's line.
@Suite struct LimiterStageTests {
    /// Two mixers of the same noise at `volume` (loud enough to limit at 100), ending at `end` with a fade.
    static func mixers(volume: Float, end: Int64, fade: Int64) -> (Mixer, Mixer) {
        var rng = SplitMix64(seed: 7)
        var y: Float = 0
        let noise = (0..<(9_600 * 2)).map { _ -> Float in
            y = 0.9 * y + 0.45 * rng.nextSignedUnit()
            return y
        }
        let square = (0..<4_800).map { i in Float(i % 40 < 20 ? 0.8 : -0.8) }
        func make() -> Mixer {
            let controls = MixerControls(volumes: [volume, volume])
            let mixer = Mixer(
                sampleRate: 48000,
                tracks: [
                    .init(loop: LoopBuffer(interleaved: noise, channels: 2)),
                    .init(loop: LoopBuffer(interleaved: square, channels: 1)),
                ],
                controls: controls, fadeInFrames: 480)
            controls.scheduleEnd(atFrame: end, fadeFrames: fade)
            return mixer
        }
        return (make(), make())
    }

    /// Through `render`, 16384 frames at a time, as render did.
    static func rendered(_ mixer: Mixer) -> [Float] {
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: 16384 * 2)
        while !mixer.finished {
            let n = buffer.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frames: 16384) }
            out += buffer[..<(2 * n)]
        }
        return out
    }

    /// Mixed in room of `room` frames at a time, limited in pieces of the sizes `pieces` cycles through.
    static func split(_ mixer: Mixer, room: Int, pieces: [Int]) -> [Float] {
        var stage = LimiterStage(sampleRate: 48000)
        defer { stage.deallocate() }
        var mixed: [Float] = []
        var buffer = [Float](repeating: 0, count: room * 2)
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { mixer.mixUnlimited(into: $0.baseAddress!, frames: room) }
            if n == 0 { break }
            mixed += buffer[..<(2 * n)]
        }
        var out: [Float] = []
        var scratch = [Float](repeating: .nan, count: (mixed.count / 2 + stage.delay) * 2)
        var at = 0
        var k = 0
        while at < mixed.count / 2 {
            let n = min(pieces[k % pieces.count], mixed.count / 2 - at)
            k += 1
            let made = mixed.withUnsafeBufferPointer { input in
                scratch.withUnsafeMutableBufferPointer {
                    stage.process(input.baseAddress! + 2 * at, frames: n, into: $0.baseAddress!)
                }
            }
            out += scratch[..<(2 * made)]
            at += n
        }
        let held = scratch.withUnsafeMutableBufferPointer { stage.finish(into: $0.baseAddress!) }
        out += scratch[..<(2 * held)]
        return out
    }

    @Test(arguments: [(Float(100), Int64(100_000)), (40, 100_000), (100, 50), (100, 127), (100, 2_175)])
    func theSplitLimiterGivesWhatRenderGives(volume: Float, end: Int64) {
        for (room, pieces) in [(16384, [16384]), (2048, [1, 127, 2048, 3000]), (5000, [777, 64, 4096])] {
            let (a, b) = Self.mixers(volume: volume, end: end, fade: min(end / 2, 9_000))
            let expected = Self.rendered(a)
            let actual = Self.split(b, room: room, pieces: pieces)
            #expect(expected.count == Int(end) * 2)
            #expect(actual.count == expected.count, "room \(room), pieces \(pieces)")
            let same = zip(actual, expected).allSatisfy { $0.bitPattern == $1.bitPattern }
            #expect(same, "room \(room), pieces \(pieces), volume \(volume), end \(end)")
        }
    }

    /// At full volume the limiter works: the test above compares frames it changed, not only ones it let through.
    @Test func atFullVolumeTheLimiterIsAtWork() {
        let (a, _) = Self.mixers(volume: 100, end: 48_000, fade: 100)
        let out = Self.rendered(a)
        #expect(out.map(abs).max()! <= TruePeakLimiter.threshold + 1e-6)
        let (quiet, _) = Self.mixers(volume: 100, end: 48_000, fade: 100)
        var raw = [Float](repeating: 0, count: 48_000 * 2 + 4096)
        var at = 0
        while true {
            let n = raw.withUnsafeMutableBufferPointer {
                quiet.mixUnlimited(into: $0.baseAddress! + 2 * at, frames: min(4096, $0.count / 2 - at))
            }
            if n == 0 { break }
            at += n
        }
        #expect(raw.map(abs).max()! > 1)  // the mix itself goes over full scale
    }
}
