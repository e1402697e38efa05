import Testing

@testable import HumAudio
@testable import HumCore

/// The generator's own loudness figure (HumCore has no libebur128) agrees with libebur128, and the peak holding
/// built on it keeps a crackling loop inside what a file at the reference level can hold.
@Suite struct SynthLoudnessTests {
    static let sr = 48_000.0

    static func libebur128(_ channels: [[Float]]) throws -> Double {
        try LoudnessMeter.measure(
            LoopMastering.interleave(channels), channels: channels.count, sampleRate: Int(sr)
        ).integratedLUFS
    }

    /// Steady pink noise, bursts with silence between (the gates at work), a low rumble and a mono loop (counted
    /// as dual mono): within 0.1 LU of libebur128 each.
    @Test func loudnessAgreesWithLibebur128() throws {
        var rng = SplitMix64(seed: 11)
        let pink = Loop.scaled(
            Loop.filtered(Loop.whiteNoise(frames: 240_000, rng: &rng), PinkingFilter(sampleRate: Self.sr)), 0.1)
        var bursts = Loop.scaled(Loop.whiteNoise(frames: 480_000, rng: &rng), 0.2)
        for i in bursts.indices where (i / 48_000) % 3 != 0 { bursts[i] *= 0.001 }
        let rumble = Loop.scaled(
            Loop.filtered(Loop.whiteNoise(frames: 240_000, rng: &rng), Biquad.lowPass(80, sampleRate: Self.sr)), 0.5)
        let cases: [[[Float]]] = [[pink, pink.reversed()], [bursts, bursts], [rumble, rumble], [pink]]
        for channels in cases {
            let ours = Loop.loudness(channels, sampleRate: Self.sr)
            let theirs = try Self.libebur128(channels)
            #expect(abs(ours - theirs) < 0.1, "ours \(ours), libebur128 \(theirs)")
        }
    }

    /// Clicks 40 dB over a quiet bed come out at most `headroom` (+ a little for the 16 kHz low-pass) over the
    /// loop's loudness, while the bed is left as it was.
    @Test func holdingPeaksRoundsOffOnlyThePeaks() throws {
        var rng = SplitMix64(seed: 12)
        var loop = Loop.scaled(
            Loop.filtered(Loop.whiteNoise(frames: 96_000, rng: &rng), PinkingFilter(sampleRate: Self.sr)), 0.01)
        let quietBefore = Loop.rms(Array(loop[40_000..<44_000]))
        for at in stride(from: 1_000, to: 96_000, by: 24_000) {
            for i in 0..<20 { loop[at + i] += (i % 2 == 0 ? 1 : -1) * Float(20 - i) / 20 }
        }
        let held = Loop.holdingPeaks([loop, loop], headroom: 18, sampleRate: Self.sr)
        let loudness = try Self.libebur128(held)
        let peak = held[0].reduce(0) { max($0, abs($1)) }
        #expect(SynthMath.decibels(Double(peak)) - loudness <= 18.5)
        #expect(SynthMath.decibels(Double(loop.reduce(0) { max($0, abs($1)) })) - loudness > 25)
        // The bed between the clicks: unchanged but for the low-pass at 16 kHz (pink noise has little there).
        let quietAfter = Loop.rms(Array(held[0][40_000..<44_000]))
        #expect(abs(SynthMath.decibels(quietAfter / quietBefore)) < 0.3)
    }
}
