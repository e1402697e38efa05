import HumCore

/// Short sounds to scatter along a loop with `Loop.add`: the drops, bubbles, crackles and clacks of the recipes.
public enum Grain {
    /// A sine that starts at `frequency`, glides by `chirp` (relative change per second, e.g. 0.5 rises half an
    /// octave-ish over a second) and dies away exponentially with time constant `decay` seconds: a bubble (Minnaert
    /// resonance) when the glide rises, a knock or a thump when it is low and short.
    public static func decayingSine(
        frequency: Double, chirp: Double = 0, decay: Double, sampleRate: Double,
        attack: Double = 0.0005, phase: Double = 0
    ) -> [Float] {
        let length = Int(decay * 7 * sampleRate) + 1  // down by 60 dB
        var out = [Float](repeating: 0, count: length)
        var cycles = phase
        let attackFrames = max(1.0, attack * sampleRate)
        let fall = SynthMath.exp(-1 / (decay * sampleRate))
        var envelope = 1.0
        for i in 0..<length {
            let t = Double(i) / sampleRate
            let f = frequency * (1 + chirp * t)
            cycles += f / sampleRate
            let rise = min(1, Double(i) / attackFrames)
            out[i] = Float(SynthMath.sinCycles(cycles) * envelope * rise)
            envelope *= fall
        }
        return out
    }

    /// White noise shaped by an attack and an exponential decay (time constant `decay` seconds).
    public static func noiseBurst(
        decay: Double, attack: Double = 0.0002, sampleRate: Double,
        rng: inout SplitMix64
    ) -> [Float] {
        let length = Int((attack + decay * 7) * sampleRate) + 1
        var out = [Float](repeating: 0, count: length)
        let attackFrames = max(1.0, attack * sampleRate)
        let fall = SynthMath.exp(-1 / (decay * sampleRate))
        var envelope = 1.0
        for i in 0..<length {
            let rise = min(1, Double(i) / attackFrames)
            out[i] = rng.nextSignedUnit() * Float(envelope * rise)
            if Double(i) >= attackFrames { envelope *= fall }
        }
        return out
    }

    /// A grain through a filter (from rest: a grain starts in silence, so no circular pass is needed).
    public static func filtered<P: SampleProcessor>(_ grain: [Float], _ processor: P) -> [Float] {
        var p = processor
        return grain.map { p.process($0) }
    }

    /// A smooth bump: raised-cosine rise over `attack` seconds, hold, then exponential fall with time constant
    /// `decay`: the loudness curve of a wave or a roll of thunder.
    public static func envelope(attack: Double, hold: Double = 0, decay: Double, sampleRate: Double) -> [Float] {
        let a = Int(attack * sampleRate)
        let h = Int(hold * sampleRate)
        let d = Int(decay * 7 * sampleRate)
        var out = [Float](repeating: 0, count: a + h + d)
        for i in 0..<a { out[i] = Float(0.5 - 0.5 * SynthMath.cos(SynthMath.pi * Double(i) / Double(a))) }
        for i in a..<(a + h) { out[i] = 1 }
        let fall = SynthMath.exp(-1 / (decay * sampleRate))
        var e = 1.0
        for i in (a + h)..<out.count {
            out[i] = Float(e)
            e *= fall
        }
        return out
    }
}

/// Keeps a loop's peaks under a ceiling with a smooth gain curve, computed around the loop so the curve is as
/// periodic as the signal: the rare loud crackle or thunder clap is turned down for a few milliseconds instead of
/// everything being turned down for it.
public enum LoopLimiter {
    /// - Parameters:
    ///   - channels: equal-length loops (the same gain goes on all, so the stereo image stays put).
    ///   - ceiling: the highest sample magnitude allowed (linear).
    ///   - attack, release: time constants of the gain's dive ahead of a peak and of its recovery after it.
    public static func limit(
        _ channels: [[Float]], ceiling: Float, sampleRate: Double,
        attack: Double = 0.002, release: Double = 0.08
    ) -> [[Float]] {
        guard let n = channels.first?.count, n > 0 else { return channels }
        var needed = [Float](repeating: 1, count: n)
        var anyOver = false
        for i in 0..<n {
            var peak: Float = 0
            for c in channels.indices { peak = max(peak, abs(channels[c][i])) }
            if peak > ceiling {
                needed[i] = ceiling / peak
                anyOver = true
            }
        }
        guard anyOver else { return channels }
        // Recovery after a peak (forward) and a dive before it (backward), each going twice round the loop so that
        // a peak near the end reaches the start.
        let rel = Float(SynthMath.exp(-1 / (release * sampleRate)))
        let att = Float(SynthMath.exp(-1 / (attack * sampleRate)))
        var gain = needed
        var g: Float = 1
        for k in 0..<(2 * n) {
            let i = k % n
            g = min(needed[i], 1 - (1 - g) * rel)
            gain[i] = g
        }
        g = 1
        for k in 0..<(2 * n) {
            let i = n - 1 - (k % n)
            g = min(gain[i], 1 - (1 - g) * att)
            gain[i] = g
        }
        return channels.map { channel in
            var out = channel
            for i in 0..<n { out[i] *= gain[i] }
            return out
        }
    }
}
