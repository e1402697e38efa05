import Testing

@testable import HumCore

/// The look-ahead limiter: transparent below full scale, its gain already down when a peak arrives, and no step in
/// its gain (its true-peak result is measured with libebur128 in HumAudioTests).
@Suite struct TruePeakLimiterTests {
    /// Runs interleaved stereo through a limiter in blocks of `block` frames; returns the output (the input
    /// delayed by `delay` frames, limited), with `delay` frames of silence fed after the input to play it out.
    static func limit(_ input: [Float], block: Int = 1000) -> (out: [Float], delay: Int, lookahead: Int) {
        var limiter = TruePeakLimiter(sampleRate: 48000, maximumBlock: 2048)
        defer { limiter.deallocate() }
        let padded = input + [Float](repeating: 0, count: 2 * limiter.delay)
        var out = [Float](repeating: .nan, count: padded.count)
        var done = 0
        while done < padded.count / 2 {
            let n = min(block, padded.count / 2 - done)
            padded.withUnsafeBufferPointer { limiter.input.update(from: $0.baseAddress! + 2 * done, count: 2 * n) }
            out.withUnsafeMutableBufferPointer { limiter.process(into: $0.baseAddress! + 2 * done, frames: n) }
            done += n
        }
        return (Array(out[(2 * limiter.delay)...]), limiter.delay, limiter.lookahead)
    }

    @Test func belowFullScaleTheOutputIsTheInputBitForBit() {
        var rng = SplitMix64(seed: 1)
        // Noise peaking at 0.45 (no point between samples can reach the threshold), then a low tone peaking at
        // 0.85 (its samples are near the threshold, its true peak is not over it: measured, left alone).
        var input = (0..<(2 * 30_000)).map { _ in rng.nextSignedUnit() * 0.45 }
        for i in 0..<30_000 {
            let v = Float(0.85 * sinApprox(2 * Double.pi * 100 * Double(i) / 48000))
            input += [v, -v]
        }
        let (out, delay, _) = Self.limit(input)
        #expect(delay == 96 + 16 + 15)
        #expect(out == input)
    }

    /// The gain, read off a quiet constant in the left channel while loud noise bursts in the right: never above
    /// what a peak needs when it leaves, and never moving by more than 1/lookahead between two samples.
    @Test func theGainIsDownBeforeAPeakAndMovesSmoothly() {
        var rng = SplitMix64(seed: 2)
        var input = [Float]()
        for burst in 0..<6 {
            for i in 0..<9600 {
                let loud = i >= 4000 && i < 4000 + 200 * (burst + 1)
                input += [0.01, loud ? rng.nextSignedUnit() * Float(1 + burst) : rng.nextSignedUnit() * 0.2]
            }
        }
        // A quiet second (the gain recovers), and in it one isolated spike far over full scale.
        for _ in 0..<48_000 { input += [0.01, rng.nextSignedUnit() * 0.2] }
        let spike = 57_600 + 40_000
        input[2 * spike + 1] = 4
        let (out, _, lookahead) = Self.limit(input)
        let gains = stride(from: 0, to: out.count, by: 2).map { out[$0] / 0.01 }
        var largestStep: Float = 0
        for i in 1..<gains.count { largestStep = max(largestStep, abs(gains[i] - gains[i - 1])) }
        #expect(largestStep <= 1 / Float(lookahead) + 1e-5)
        #expect(gains.min()! < 0.3)  // it did limit
        #expect(out.enumerated().allSatisfy { $0.offset % 2 == 0 || abs($0.element) <= TruePeakLimiter.threshold })
        // The spike: the gain is already down to what it needs (threshold / 4) as it passes.
        #expect(abs(out[2 * spike + 1]) <= TruePeakLimiter.threshold + 1e-6)
        #expect(gains[spike] <= TruePeakLimiter.threshold / 4 + 1e-5)
        #expect(gains[spike - lookahead - 20] > 0.99)  // and only just before
    }

    /// The true peak between samples: a tone at a quarter of the rate, phased so its samples miss its crests
    /// (sample peak 0.707 of the true one), at a true peak of +3 dBFS, comes out at the threshold or below,
    /// measured on the waveform rebuilt 16 times finer.
    @Test func peaksBetweenSamplesAreLimited() {
        var input = [Float]()
        for i in 0..<24_000 {
            let v = Float(1.41 * sinApprox(2 * Double.pi * 12_000 * Double(i) / 48000 + Double.pi / 4))
            input += [v, v]
        }
        let (out, _, _) = Self.limit(input)
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        // The steady part (after the attack and before the end): a sinc interpolation over ±32 samples.
        var truePeak: Float = 0
        for i in stride(from: 4000, to: 20_000, by: 7) {
            for step in 0..<16 {
                let t = Double(i) + Double(step) / 16
                var v = 0.0
                for k in (i - 32)...(i + 32) {
                    let x = Double.pi * (t - Double(k))
                    v += Double(left[k]) * (x == 0 ? 1 : sinApprox(x) / x)
                }
                truePeak = max(truePeak, Float(abs(v)))
            }
        }
        #expect(truePeak <= TruePeakLimiter.threshold * 1.02)
        #expect(truePeak > TruePeakLimiter.threshold * 0.9)
    }
    /// Runs `input` (interleaved stereo) through a limiter that skips what it can and one that measures every
    /// point over all 32 taps (`skipsWork` off), in blocks of `block` frames; the two outputs and final gains.
    static func skippingAndExact(_ input: [Float], block: Int) -> (fast: [Float], exact: [Float], gains: [Float]) {
        var fast = TruePeakLimiter(sampleRate: 48000, maximumBlock: 2048)
        var exact = TruePeakLimiter(sampleRate: 48000, maximumBlock: 2048)
        exact.skipsWork = false
        defer {
            fast.deallocate()
            exact.deallocate()
        }
        var a = [Float](repeating: 0, count: input.count)
        var b = a
        var done = 0
        while done < input.count / 2 {
            let n = min(block, input.count / 2 - done)
            input.withUnsafeBufferPointer {
                fast.input.update(from: $0.baseAddress! + 2 * done, count: 2 * n)
                exact.input.update(from: $0.baseAddress! + 2 * done, count: 2 * n)
            }
            a.withUnsafeMutableBufferPointer { fast.process(into: $0.baseAddress! + 2 * done, frames: n) }
            b.withUnsafeMutableBufferPointer { exact.process(into: $0.baseAddress! + 2 * done, frames: n) }
            done += n
        }
        return (a, b, [fast.gain, exact.gain])
    }

    /// The windows that come nearest what the limiter skips without interpolating: for a point of phase p, its 32
    /// samples given the signs of p's taps (so the point is their sum of |tap| · |sample|, the most it can be),
    /// the outer ones at level M and the 8 (or 4) central ones at level b, b swept so the point goes from 3 % under
    /// the threshold to 3 % over it in steps of 0.1 %; and the same with all 32 at one level, swept around the
    /// quiet level (threshold / 2.353). Each window stands alone in silence. Where a point is over, the limiter
    /// must limit exactly as if it had computed every point: a bound that let one through would show here.
    @Test func skippingNeverLetsAPointOverTheThresholdThrough() {
        let t = Double(TruePeakLimiter.threshold)
        var input = [Float]()
        func window(_ phase: Int, _ centralTaps: Range<Int>, central b: Double, outer m: Double, right: Bool) {
            let taps = TruePeakLimiter.taps[phase]
            input += [Float](repeating: 0, count: 2 * 97)  // from the last window's reach
            for k in 0..<32 {
                let level = centralTaps.contains(k) ? b : m
                let v = Float(taps[k] < 0 ? -level : level)
                input += right ? [0.1 * v, v] : [v, -0.5 * v]
            }
        }
        for phase in 0..<3 {
            let taps = TruePeakLimiter.taps[phase].map { Double(abs($0)) }
            for centralTaps in [TruePeakLimiter.centralTaps, TruePeakLimiter.innerTaps] {
                let central = centralTaps.reduce(0.0) { $0 + taps[$1] }
                let outer = taps.reduce(0, +) - central
                for m in [0.2, 0.35, 0.5, 0.7] {
                    for step in -30...30 {
                        let point = t * (1 + Double(step) / 1000)
                        let b = (point - outer * m) / central
                        window(phase, centralTaps, central: b, outer: m, right: step % 2 == 0)
                    }
                }
            }
            for step in -30...30 {
                let level = t * (1 + Double(step) / 1000) / taps.reduce(0, +)
                window(phase, 0..<32, central: level, outer: level, right: step % 2 != 0)
            }
        }
        input += [Float](repeating: 0, count: 2 * 200)
        for block in [1000, 3, 64] {
            let (fast, exact, gains) = Self.skippingAndExact(input, block: block)
            let differing = fast.indices.first { fast[$0] != exact[$0] }
            #expect(differing == nil, "block \(block): first differs at \(differing ?? -1)")
            #expect(gains[0] == gains[1])
            #expect(exact.map(abs).max()! < input.map(abs).max()!, "the windows over the threshold were limited")
        }
    }

    /// Tones at a quarter of the rate phased so their samples miss their crests (0.707 of the true peak), and
    /// alternating signs (a tone at half the rate), at levels swept across the threshold and across the quiet
    /// level in steps of 0.2 %, 2000 frames each: limited exactly as if every point were computed.
    @Test func tonesBetweenSamplesAtTheEdgeAreLimitedAsIfEveryPointWereComputed() {
        let t = Double(TruePeakLimiter.threshold)
        let quiet = t / Double(TruePeakLimiter.interpolationBound)
        var input = [Float]()
        for peak in [t, quiet] {
            for step in -15...15 {
                let level = peak * (1 + Double(step) / 500)
                for i in 0..<2000 {
                    let quarter = Float(level * sinApprox(2 * Double.pi * Double(i) / 4 + Double.pi / 4))
                    input += [quarter, step % 2 == 0 ? -quarter : 0.3 * quarter]
                }
                for i in 0..<2000 {
                    let v = Float(i % 2 == 0 ? level : -level)
                    input += [0.5 * v, v]
                }
            }
        }
        for block in [1000, 7] {
            let (fast, exact, gains) = Self.skippingAndExact(input, block: block)
            let differing = fast.indices.first { fast[$0] != exact[$0] }
            #expect(differing == nil, "block \(block): first differs at \(differing ?? -1)")
            #expect(gains[0] == gains[1])
        }
    }
}
