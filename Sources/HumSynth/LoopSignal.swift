import HumCore

/// Building loops that are periodic by construction.
///
/// A loop of N frames is an array of N samples that is read as if it went round and round: sample N-1 is
/// followed by sample 0. Everything here keeps that true:
/// - noise is N random samples, read circularly;
/// - modulation is a sum of sines with a whole number of cycles per loop;
/// - events (raindrops, crackles, waves) are added at index (start + j) mod N, so one that rings past the end
///   carries on at the start;
/// - a filter with state runs over the loop twice and keeps the second pass, so its state at the start is the
///   state it had at the end (the first pass's transient decays long before: the slowest filter here settles in
///   well under a second, a loop lasts thirty or more).
/// So the end flows into the start exactly as any sample flows into the next.
public enum Loop {
    /// `frames` samples of white noise, uniform in [-1, 1).
    public static func whiteNoise(frames: Int, rng: inout SplitMix64) -> [Float] {
        var out = [Float](repeating: 0, count: frames)
        for i in 0..<frames { out[i] = rng.nextSignedUnit() }
        return out
    }

    /// Runs `processor` over the loop twice and returns the second pass: the output of the loop played forever.
    public static func filtered<P: SampleProcessor>(_ signal: [Float], _ processor: P) -> [Float] {
        var p = processor
        for x in signal { _ = p.process(x) }
        var out = signal
        for i in out.indices { out[i] = p.process(signal[i]) }
        return out
    }

    /// A filter whose settings change along the loop: `body(filter, input, index)` gives each output sample.
    /// Runs twice like `filtered`, so settings read by index must themselves be periodic (control curves are).
    public static func filteredVarying(
        _ signal: [Float], sampleRate: Double,
        _ body: (inout StateVariableFilter, Float, Int) -> Float
    ) -> [Float] {
        var f = StateVariableFilter(sampleRate: sampleRate)
        for i in signal.indices { _ = body(&f, signal[i], i) }
        var out = signal
        for i in signal.indices { out[i] = body(&f, signal[i], i) }
        return out
    }

    /// Adds `grain × gain` starting at `start`, wrapping past the end of the loop.
    public static func add(_ grain: [Float], at start: Int, gain: Float = 1, into loop: inout [Float]) {
        let n = loop.count
        guard n > 0 else { return }
        var index = ((start % n) + n) % n
        for g in grain {
            loop[index] += g * gain
            index += 1
            if index == n { index = 0 }
        }
    }

    /// Adds `b × gain` to `a`, sample by sample.
    public static func mix(_ b: [Float], gain: Float = 1, into a: inout [Float]) {
        precondition(a.count == b.count)
        for i in a.indices { a[i] += b[i] * gain }
    }

    /// Multiplies by a control curve sample by sample.
    public static func modulated(_ signal: [Float], by curve: [Float]) -> [Float] {
        precondition(signal.count == curve.count)
        var out = signal
        for i in out.indices { out[i] *= curve[i] }
        return out
    }

    public static func scaled(_ signal: [Float], _ gain: Float) -> [Float] {
        signal.map { $0 * gain }
    }

    /// The loop with its mean taken out: for a periodic loop that is exactly its 0 Hz component, so this removes DC
    /// and nothing else (a thump that always starts on the same polarity leaves one, and a speaker wastes excursion
    /// on it).
    public static func withoutDC(_ signal: [Float]) -> [Float] {
        guard !signal.isEmpty else { return signal }
        var sum = 0.0
        for x in signal { sum += Double(x) }
        let mean = Float(sum / Double(signal.count))
        return signal.map { $0 - mean }
    }

    /// The integrated loudness of a loop, LUFS, as BS.1770-4 measures it: K-weighting (a +4 dB shelf above 1.7 kHz
    /// and a 38 Hz high-pass), mean square summed over the channels (a mono loop
    /// counts twice: it plays on both speakers), 400 ms blocks every 100 ms, the -70 LUFS and the relative -10 LU
    /// gates. Within a tenth of a dB of libebur128 (the generator measures with it); for recipes that shape their
    /// peaks relative to their loudness.
    public static func loudness(_ channels: [[Float]], sampleRate: Double) -> Double {
        guard let frames = channels.first?.count, frames > 0 else { return -.infinity }
        var squares = [Double](repeating: 0, count: frames)
        // At 48 kHz the standard's own coefficients; at other rates the same curves designed anew.
        let kWeighting =
            sampleRate == 48_000
            ? FilterChain([
                Biquad(
                    b0: 1.53512485958697, b1: -2.69169618940638, b2: 1.19839281085285, a0: 1,
                    a1: -1.69065929318241, a2: 0.73248077421585),
                Biquad(b0: 1, b1: -2, b2: 1, a0: 1, a1: -1.99004745483398, a2: 0.99007225036621),
            ])
            : FilterChain([
                Biquad.highShelf(1_681.97, gainDB: 4.0, sampleRate: sampleRate),
                Biquad.highPass(38.13, q: 0.5003, sampleRate: sampleRate),
            ])
        for channel in channels {
            let weighted = filtered(channel, kWeighting)
            let weight = channels.count == 1 ? 2.0 : 1.0
            for i in 0..<frames { squares[i] += weight * Double(weighted[i]) * Double(weighted[i]) }
        }
        // Block powers, from running sums.
        let block = Int(0.4 * sampleRate)
        let hop = Int(0.1 * sampleRate)
        var prefix = [Double](repeating: 0, count: frames + 1)
        for i in 0..<frames { prefix[i + 1] = prefix[i] + squares[i] }
        var powers: [Double] = []
        var start = 0
        while start + block <= frames {
            powers.append((prefix[start + block] - prefix[start]) / Double(block))
            start += hop
        }
        if powers.isEmpty { powers = [prefix[frames] / Double(frames)] }
        func lufs(_ p: Double) -> Double { -0.691 + 10 * SynthMath.log10(max(p, 1e-30)) }
        let absolute = powers.filter { lufs($0) > -70 }
        guard !absolute.isEmpty else { return -.infinity }
        let relative = lufs(absolute.reduce(0, +) / Double(absolute.count)) - 10
        let gated = absolute.filter { lufs($0) > relative }
        return lufs(gated.reduce(0, +) / Double(gated.count))
    }

    /// Peaks held to `headroom` dB over the loop's loudness, for a sound of sharp transients (crackles, ticks) that
    /// must fit under a file's true-peak limit at the reference loudness: a soft clip rounds off the few that reach
    /// it, and nothing is left above 16 kHz, where a clipped click's edges would make peaks between the samples.
    /// Twice, as the clip lowers the loudness a little. A mastering limiter would instead turn everything down
    /// around each peak, the background with it.
    public static func holdingPeaks(_ channels: [[Float]], headroom: Double, sampleRate: Double) -> [[Float]] {
        let top = FilterChain([
            Biquad.lowPass(16_000, sampleRate: sampleRate), Biquad.lowPass(16_000, sampleRate: sampleRate),
        ])
        var out = channels
        for _ in 0..<2 {
            let level = loudness(out, sampleRate: sampleRate)
            guard level.isFinite else { return out }  // silence (or next to it): nothing to hold
            let ceiling = SynthMath.amplitude(dB: level + headroom)
            out = out.map { filtered(softClipped($0, ceiling: ceiling), top) }
        }
        return out
    }

    /// A soft clip (tanh) whose output never passes `ceiling`: transparent far below it, rounding off only the
    /// few peaks that reach it. On a click it only spreads the click's spectrum a little, which no one hears.
    public static func softClipped(_ signal: [Float], ceiling: Double) -> [Float] {
        guard ceiling > 0 else { return signal }
        return signal.map { Float(ceiling * SynthMath.tanh(Double($0) / ceiling)) }
    }

    /// Root mean square.
    public static func rms(_ signal: [Float]) -> Double {
        guard !signal.isEmpty else { return 0 }
        var sum = 0.0
        for x in signal { sum += Double(x) * Double(x) }
        return (sum / Double(signal.count)).squareRoot()
    }

    /// Scaled to a root mean square of `target` (left alone when silent).
    public static func normalizedRMS(_ signal: [Float], to target: Double = 1) -> [Float] {
        let r = rms(signal)
        return r > 0 ? scaled(signal, Float(target / r)) : signal
    }

    /// A smooth random curve in [-1, 1] that repeats exactly once per loop: a sum of sines with `cycles` whole
    /// cycles per loop each (random amplitude falling as 1/cycles^tilt, random phase), computed every `step`
    /// frames and interpolated linearly in between.
    public static func smoothRandom(
        frames: Int, cycles: ClosedRange<Int>, tilt: Double = 1, rng: inout SplitMix64,
        step: Int = 32
    ) -> [Float] {
        let points = max(1, (frames + step - 1) / step)
        var control = [Double](repeating: 0, count: points)
        for k in cycles {
            let amplitude = Double(rng.next() >> 11) / Double(1 << 53) * SynthMath.pow(Double(k), -tilt)
            let phase = Double(rng.next() >> 11) / Double(1 << 53)
            for p in 0..<points {
                let t = Double(p * step) / Double(frames)
                control[p] += amplitude * SynthMath.sinCycles(Double(k) * t + phase)
            }
        }
        let peak = control.reduce(0) { max($0, abs($1)) }
        if peak > 0 { for p in control.indices { control[p] /= peak } }
        return interpolated(control, step: step, frames: frames)
    }

    /// A sine with a whole number of cycles per loop, in [-1, 1].
    public static func sine(frames: Int, cycles: Int, phase: Double = 0) -> [Float] {
        var out = [Float](repeating: 0, count: frames)
        for i in 0..<frames {
            out[i] = Float(SynthMath.sinCycles(Double(cycles) * Double(i) / Double(frames) + phase))
        }
        return out
    }

    /// Control points every `step` frames, interpolated linearly and circularly (the last point leads back to the
    /// first) to `frames` samples.
    public static func interpolated(_ control: [Double], step: Int, frames: Int) -> [Float] {
        var out = [Float](repeating: 0, count: frames)
        let n = control.count
        for i in 0..<frames {
            let p = i / step
            let frac = Double(i - p * step) / Double(step)
            let a = control[p % n]
            let b = control[(p + 1) % n]
            out[i] = Float(a + (b - a) * frac)
        }
        return out
    }

    /// Maps a curve in [-1, 1] onto [low, high] exponentially (for frequencies and levels).
    public static func exponentialMap(_ curve: [Float], low: Double, high: Double) -> [Float] {
        let ratio = high / low
        return curve.map { Float(low * SynthMath.pow(ratio, (Double($0) + 1) / 2)) }
    }
}

/// Uniform and shaped random numbers for recipes.
extension SplitMix64 {
    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Uniform in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// Log-uniform in `range` (both ends positive): equal chances per octave.
    public mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        range.lowerBound * SynthMath.pow(range.upperBound / range.lowerBound, unit())
    }

    /// Exponentially distributed with the given mean: the gap between events of a Poisson process.
    public mutating func exponential(mean: Double) -> Double {
        -mean * SynthMath.log(1 - unit())
    }

    /// Roughly normal (sum of four uniforms), mean 0, standard deviation 1.
    public mutating func gaussian() -> Double {
        (unit() + unit() + unit() + unit() - 2) * 3.0.squareRoot()
    }
}
