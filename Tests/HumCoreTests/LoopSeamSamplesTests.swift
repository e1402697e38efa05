import Testing

@testable import HumCore

/// The 16-bit loop building (what the loader uses) against the float one it replaces: the same decisions and
/// the same samples.
@Suite struct LoopSeamSamplesTests {
    /// Noise held as 16-bit, as a 16-bit file decodes: (the samples, the same as float).
    func noise16(frames: Int, channels: Int, seed: UInt64, smooth: Float, jump: Int16 = 0) -> ([Int16], [Float]) {
        var rng = SplitMix64(seed: seed)
        var y: Float = 0
        var samples = (0..<(frames * channels)).map { _ -> Int16 in
            y = smooth * y + (1 - smooth) * rng.nextSignedUnit() * 0.5
            return LoopBuffer.quantize(y)
        }
        samples[samples.count - 1] = samples[samples.count - 1] &+ jump
        return (samples, samples.map { Float($0) / 32768 })
    }

    /// The percentile test as it was first written: a histogram of every step, walked to the 99.9th percentile.
    func joinsSmoothlyByHistogram(_ samples: [Float], channels: Int) -> Bool {
        let bins = 65536
        let scale = Float(bins) / 2
        var histogram = [Int](repeating: 0, count: bins)
        let frames = samples.count / channels
        for c in 0..<channels {
            var i = channels + c
            while i < frames * channels {
                histogram[Int(min(abs(samples[i] - samples[i - channels]) * scale, Float(bins - 1)))] += 1
                i += channels
            }
        }
        let wanted = Int((Double(max(0, frames - 1) * channels) * 0.999).rounded(.up))
        var seen = 0
        var typical: Float = 2
        for (bin, count) in histogram.enumerated() {
            seen += count
            if seen >= wanted {
                typical = Float(bin + 1) / scale
                break
            }
        }
        return (0..<channels).allSatisfy { abs(samples[$0] - samples[(frames - 1) * channels + $0]) <= typical }
    }

    @Test func theCountingPercentileDecidesAsTheHistogramDid() {
        var checked = 0
        for seed in UInt64(1)...40 {
            let channels = Int(seed % 2) + 1
            // Smooth material, and a seam step swept across the file's own large steps, so both answers occur.
            let (samples, floats) = noise16(
                frames: 3000, channels: channels, seed: seed, smooth: 0.9, jump: Int16(seed * 37 % 700))
            let expected = joinsSmoothlyByHistogram(floats, channels: channels)
            #expect(LoopSeam.joinsSmoothly(floats, channels: channels) == expected)
            #expect(samples.withUnsafeBufferPointer { LoopSeam.joinsSmoothly($0, channels: channels) } == expected)
            checked += expected ? 1 : 0
            // Unquantized floats too.
            var rng = SplitMix64(seed: seed)
            let raw = (0..<2000).map { _ in rng.nextSignedUnit() * Float(seed) / 50 }
            #expect(
                LoopSeam.joinsSmoothly(raw, channels: channels) == joinsSmoothlyByHistogram(raw, channels: channels))
        }
        #expect(checked > 0 && checked < 40)
    }

    @Test(arguments: [1, 2])
    func the16BitPlanAndInPlaceLoopEqualTheFloatOnes(channels: Int) {
        let (samples, floats) = noise16(frames: 48000, channels: channels, seed: 7, smooth: 0.99, jump: 9000)
        let plan = LoopSeam.plan(floats, channels: channels, sampleRate: 48000)
        #expect(plan.crossfadeFrames > 0)
        #expect(samples.withUnsafeBufferPointer { LoopSeam.plan($0, channels: channels, sampleRate: 48000) } == plan)
        let expected = LoopBuffer(
            interleaved: LoopSeam.makeLoop(floats, channels: channels, plan: plan), channels: channels)
        var inPlace = samples
        let start = inPlace.withUnsafeMutableBufferPointer {
            LoopSeam.makeLoopInPlace($0, channels: channels, plan: plan)
        }
        #expect(start == plan.crossfadeFrames)
        let loop = Array(inPlace[(start * channels)..<(plan.end(frames: 48000) * channels)])
        #expect(loop.count == expected.frames * channels)
        #expect(loop == Array(UnsafeBufferPointer(start: expected.samples, count: expected.frames * channels)))
    }

    @Test func aLoopIsAViewOfItsStorage() {
        let storage = SampleStorage(count: 10)
        for i in 0..<10 { storage.base[i] = Int16(i * 1000) }
        let loop = LoopBuffer(storage: storage, startFrame: 2, frames: 3, channels: 2)
        #expect(loop.frames == 3 && loop.memoryBytes == 20)
        #expect(loop.sample(frame: 0, channel: 0) == 4000 / 32768 && loop.sample(frame: 2, channel: 1) == 9000 / 32768)
        // The mixer plays the view, not the storage's start.
        let mixer = Mixer(sampleRate: 48000, tracks: [.init(loop: loop)], controls: MixerControls(volumes: [100]))
        let out = renderFrames(mixer, 4)
        #expect(out[0] == 4000 / 32768 && out[1] == 5000 / 32768 && out[6] == 4000 / 32768)
    }

    @Test func conversionRoundsHalvesAwayFromZeroAndClamps() {
        // The last two: just below ±0.5, where v ± 0.5 rounds (as a float) to ±1 before the truncation, as in the
        // conversion this one replaces (checked against it for every float in [−1.02, 1.02]).
        let belowHalf = Float(bitPattern: Float(0.5).bitPattern - 1) / 32768
        let input: [Float] = [
            0.5 / 32768, -0.5 / 32768, 1.5 / 32768, -1.5 / 32768, 2.5 / 32768, -2.5 / 32768,
            0.49 / 32768, 1, -1, 1.5, -7, .nan, .infinity, -.infinity, 0.25, belowHalf, -belowHalf,
        ]
        let expected: [Int16] = [1, -1, 2, -2, 3, -3, 0, 32767, -32768, 32767, -32768, 0, 32767, -32768, 8192, 1, -1]
        var out = [Int16](repeating: 99, count: input.count)
        input.withUnsafeBufferPointer { i in
            out.withUnsafeMutableBufferPointer { LoopBuffer.convert(i, into: $0.baseAddress!) }
        }
        #expect(out == expected)
        #expect(input.map(LoopBuffer.quantize) == expected)
    }
}
