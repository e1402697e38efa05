import Testing

@testable import HumAudio
@testable import HumCore
@testable import HumSynth

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

    /// The reverb's tail falls 60 dB in about the decay asked for, and run round a loop it is periodic like the rest.
    @Test func roomReverbDecaysAsAskedAndLoops() {
        var impulse = [Float](repeating: 0, count: 96_000)
        impulse[0] = 1
        let tail = Grain.filtered(
            impulse, RoomReverb(sampleRate: Self.sr, size: 1, decay: 0.5, damping: 0, wet: 1, dry: 0))
        func energy(_ range: Range<Int>) -> Double { tail[range].reduce(0) { $0 + Double($1) * Double($1) } }
        // From the first 100 ms to 100 ms half a second later: 60 dB down, give or take the combs' beating.
        let fall = 10 * SynthMath.log10(energy(2_400..<7_200) / energy(26_400..<31_200))
        #expect((50...70).contains(fall), "fell \(fall) dB in 0.5 s")
        var rng = SplitMix64(seed: 13)
        let noise = Loop.whiteNoise(frames: 48_000, rng: &rng)
        let looped = Loop.filtered(noise, RoomReverb(sampleRate: Self.sr, size: 1, decay: 0.3, wet: 0.5))
        let straight = Grain.filtered(
            noise + noise + noise, RoomReverb(sampleRate: Self.sr, size: 1, decay: 0.3, wet: 0.5))
        for i in 0..<noise.count { #expect(abs(looped[i] - straight[2 * noise.count + i]) < 1e-4) }
    }
}
