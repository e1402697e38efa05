import HumCore
import Testing

@testable import HumSynth

@Suite struct SoundSynthLoopTests {
    static let sr = 48_000.0

    /// Taking out the mean removes DC and leaves every other component of the loop as it was.
    @Test func withoutDCTakesOutTheMeanAndNothingElse() {
        let n = 4_800
        let tone = Loop.sine(frames: n, cycles: 7)
        let offset = tone.map { $0 * 0.5 + 0.03 }
        let clean = Loop.withoutDC(offset)
        let mean = clean.reduce(0.0) { $0 + Double($1) } / Double(n)
        #expect(abs(mean) < 1e-7)
        for i in 0..<n { #expect(abs(clean[i] - tone[i] * 0.5) < 1e-6) }
        #expect(Loop.withoutDC([]) == [])
    }

    /// The circular pass gives what the filter would output after the loop had played forever: the third of
    /// three straight copies.
    @Test func circularFilteringIsTheSteadyState() {
        var rng = SplitMix64(seed: 3)
        let x = Loop.whiteNoise(frames: 4_800, rng: &rng)
        let filters: [FilterChain] = [
            FilterChain([Biquad.lowPass(200, sampleRate: Self.sr)]),
            FilterChain([
                Biquad.highPass(40, sampleRate: Self.sr), Biquad.peak(300, q: 2, gainDB: 6, sampleRate: Self.sr),
            ]),
        ]
        for filter in filters {
            let circular = Loop.filtered(x, filter)
            let straight = Grain.filtered(x + x + x, filter)
            for i in 0..<x.count { #expect(abs(circular[i] - straight[2 * x.count + i]) < 1e-5) }
        }
        // The pinking filter's lowest pole (10 Hz) needs a longer loop to forget where it started: a second.
        let long = Loop.whiteNoise(frames: 48_000, rng: &rng)
        let pink = Loop.filtered(long, PinkingFilter(sampleRate: Self.sr))
        let pinkStraight = Grain.filtered(long + long + long, PinkingFilter(sampleRate: Self.sr))
        #expect(zip(pink, pinkStraight[(2 * long.count)...]).allSatisfy { abs($0 - $1) < 1e-4 })
    }

    @Test func sweptFilterIsPeriodicToo() {
        var rng = SplitMix64(seed: 4)
        let x = Loop.whiteNoise(frames: 9_600, rng: &rng)
        let sweep = Loop.exponentialMap(Loop.sine(frames: x.count, cycles: 3), low: 200, high: 2_000)
        let out = Loop.filteredVarying(x, sampleRate: Self.sr) { f, v, i in
            f.process(v, cutoff: Double(sweep[i]), q: 2).bandPass
        }
        // Run the same thing straight over two copies: the second copy matches the circular result.
        var f = StateVariableFilter(sampleRate: Self.sr)
        var straight: [Float] = []
        for k in 0..<(2 * x.count) {
            straight.append(f.process(x[k % x.count], cutoff: Double(sweep[k % x.count]), q: 2).bandPass)
        }
        #expect(zip(out, straight[x.count...]).allSatisfy { abs($0 - $1) < 1e-5 })
    }

    @Test func grainsWrapAroundTheLoopEnd() {
        var loop = [Float](repeating: 0, count: 10)
        Loop.add([1, 2, 3, 4], at: 8, gain: 2, into: &loop)
        #expect(loop == [6, 8, 0, 0, 0, 0, 0, 0, 2, 4])
        Loop.add([1], at: -1, into: &loop)
        #expect(loop[9] == 5)
    }

    @Test func smoothRandomRepeatsOncePerLoopAndSpansMinusOneToOne() {
        var rng = SplitMix64(seed: 5)
        let curve = Loop.smoothRandom(frames: 48_000, cycles: 2...9, rng: &rng)
        let peak = curve.map { abs($0) }.max() ?? 0
        #expect(abs(peak - 1) < 1e-3)
        let continuity = LoopContinuity(interleaved: curve, channels: 1)
        #expect(continuity.seamStep <= continuity.largestStep)
        #expect(continuity.seamStep < 1e-3)
    }

    @Test func pinkingFallsThreeDecibelsPerOctave() {
        let pink = PinkingFilter(sampleRate: Self.sr)
        var f = 40.0
        while f <= 10_000 {
            let octave = SynthMath.decibels(
                pink.magnitude(at: 2 * f, sampleRate: Self.sr) / pink.magnitude(at: f, sampleRate: Self.sr))
            #expect(abs(octave - -3.01) < 0.6, "octave from \(f) Hz falls \(octave) dB")
            f *= 2
        }
        #expect(abs(pink.magnitude(at: 1_000, sampleRate: Self.sr) - 1) < 1e-9)
    }

    @Test func biquadDesignsHitTheirMarks() {
        #expect(
            abs(
                SynthMath.decibels(Biquad.lowPass(1_000, sampleRate: Self.sr).magnitude(at: 1_000, sampleRate: Self.sr))
                    - -3.01) < 0.05)
        #expect(
            abs(
                SynthMath.decibels(Biquad.highPass(100, sampleRate: Self.sr).magnitude(at: 100, sampleRate: Self.sr))
                    - -3.01) < 0.05)
        #expect(
            abs(Biquad.bandPass(2_000, q: 3, sampleRate: Self.sr).magnitude(at: 2_000, sampleRate: Self.sr) - 1) < 1e-6)
        #expect(
            abs(
                SynthMath.decibels(
                    Biquad.peak(300, q: 1, gainDB: 6, sampleRate: Self.sr).magnitude(at: 300, sampleRate: Self.sr)) - 6)
                < 1e-6)
        #expect(
            abs(
                SynthMath.decibels(
                    Biquad.lowShelf(300, gainDB: 6, sampleRate: Self.sr).magnitude(at: 20, sampleRate: Self.sr)) - 6)
                < 0.1)
        #expect(
            abs(
                SynthMath.decibels(
                    Biquad.highShelf(3_000, gainDB: -6, sampleRate: Self.sr).magnitude(at: 20_000, sampleRate: Self.sr))
                    - -6) < 0.2)
    }

    @Test func decayingSineRingsAtItsFrequencyAndDiesAway() {
        let grain = Grain.decayingSine(frequency: 1_000, decay: 0.01, sampleRate: Self.sr, attack: 0)
        #expect(grain.count == Int(0.07 * Self.sr) + 1)
        // Zero crossings upward: one per cycle over the first 20 ms.
        var crossings = 0
        for i in 1..<960 where grain[i - 1] < 0 && grain[i] >= 0 { crossings += 1 }
        #expect(abs(crossings - 20) <= 1)
        #expect(abs(grain.last!) < 0.002)
    }

    @Test func limiterHoldsTheCeilingAndLeavesQuietPartsAlone() {
        var rng = SplitMix64(seed: 6)
        var x = Loop.scaled(Loop.whiteNoise(frames: 48_000, rng: &rng), 0.1)
        x[100] = 0.9
        x[47_999] = -0.8
        let limited = LoopLimiter.limit([x], ceiling: 0.5, sampleRate: Self.sr)[0]
        #expect(limited.map { abs($0) }.max()! <= 0.5 + 1e-6)
        // Half a second after the peak the gain is back within a thousandth of unity.
        #expect(abs(limited[24_000] - x[24_000]) <= 1e-3 * abs(x[24_000]))
        // The peak at the very end pulls the gain down at the very start, as the loop plays it.
        #expect(limited[2] != x[2])
        let untouched = LoopLimiter.limit([Loop.scaled(x, 0.5)], ceiling: 0.5, sampleRate: Self.sr)[0]
        #expect(untouched == Loop.scaled(x, 0.5))
    }

    @Test func continuityFindsAJumpAtTheSeam() {
        let ramp = (0..<100).map { Float($0) / 100 }
        let c = LoopContinuity(interleaved: ramp, channels: 1)
        #expect(abs(c.seamStep - 0.99) < 1e-6)
        #expect(abs(c.largestStep - 0.01) < 1e-6)
        #expect(!c.isSeamless)
        let sine = Loop.sine(frames: 480, cycles: 3)
        let stereo = zip(sine, sine).flatMap { [$0, -$1] }
        #expect(LoopContinuity(interleaved: stereo, channels: 2).isSeamless)
    }
}
