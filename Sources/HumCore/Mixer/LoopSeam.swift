/// Makes a sound loop without a click or a gap.
///
/// A file whose end already flows into its start (pre-cut, or measured to join smoothly) loops as it is. Any
/// other is looped through a crossfade computed once: play [C, L−C) and then a seam of C frames that blends the
/// tail [L−C, L) out while the head [0, C) blends in, after which the loop continues at frame C. Nothing of it
/// costs anything at play time.
///
/// The blend keeps the loudness steady whatever the material: for uncorrelated sound (rain, noise) equal power
/// (cos/sin), for material where tail and head are alike (a drone) equal gain, and in between a blend normalized
/// by the measured correlation r: a = cos θ / √(1 + r sin 2θ), b = sin θ / √(1 + r sin 2θ).
public enum LoopSeam {
    public struct Plan: Equatable, Sendable {
        /// Crossfade length in frames; 0 when the file loops as it is.
        public var crossfadeFrames: Int
        /// Correlation of tail and head, clamped to 0…1 (0 when not crossfaded).
        public var correlation: Float
    }

    /// Decides how a file loops. `sampleRate` sets the crossfade bounds (50–500 ms): a tenth of the file, so
    /// longer files get gentler seams, never more than a third of it.
    public static func plan(_ samples: [Float], channels: Int, sampleRate: Int) -> Plan {
        let frames = samples.count / channels
        guard frames >= 4 else { return Plan(crossfadeFrames: 0, correlation: 0) }
        if joinsSmoothly(samples, channels: channels) { return Plan(crossfadeFrames: 0, correlation: 0) }
        let minimum = sampleRate / 20, maximum = sampleRate / 2
        let length = min(max(frames / 10, minimum), maximum, frames / 3)
        guard length >= 2 else { return Plan(crossfadeFrames: 0, correlation: 0) }
        return Plan(crossfadeFrames: length, correlation: correlation(samples, channels: channels, length: length))
    }

    /// True when the step from the last frame to the first is no larger than the file's own typical large step
    /// (its 99.9th percentile of sample-to-sample steps): such a file already loops without a click.
    public static func joinsSmoothly(_ samples: [Float], channels: Int) -> Bool {
        let frames = samples.count / channels
        let typical = stepPercentile(samples, channels: channels, fraction: 0.999)
        for c in 0..<channels {
            let seam = abs(samples[c] - samples[(frames - 1) * channels + c])
            if seam > typical { return false }
        }
        return true
    }

    /// The given percentile of |x[n] − x[n−1]| over all channels, from a histogram (linear time, no sort): steps
    /// of full-scale audio lie in [0, 2], binned at 2/65536 resolution; the bin's upper edge is returned.
    static func stepPercentile(_ samples: [Float], channels: Int, fraction: Double) -> Float {
        let bins = 65536
        let scale = Float(bins) / 2
        var histogram = [Int32](repeating: 0, count: bins)
        let frames = samples.count / channels
        var total = 0
        samples.withUnsafeBufferPointer { s in
            histogram.withUnsafeMutableBufferPointer { h in
                for c in 0..<channels {
                    var previous = s[c]
                    var i = channels + c
                    while i < frames * channels {
                        let x = s[i]
                        let bin = Int(min(abs(x - previous) * scale, Float(bins - 1)))
                        h[bin] += 1
                        previous = x
                        i += channels
                    }
                }
            }
        }
        total = max(0, frames - 1) * channels
        let wanted = Int((Double(total) * fraction).rounded(.up))
        var seen = 0
        for (bin, count) in histogram.enumerated() {
            seen += Int(count)
            if seen >= wanted { return Float(bin + 1) / scale }
        }
        return 2
    }

    static func correlation(_ samples: [Float], channels: Int, length: Int) -> Float {
        let frames = samples.count / channels
        var xy = 0.0, xx = 0.0, yy = 0.0
        for i in 0..<(length * channels) {
            let tail = Double(samples[(frames - length) * channels + i]), head = Double(samples[i])
            xy += tail * head
            xx += tail * tail
            yy += head * head
        }
        guard xx > 0, yy > 0 else { return 0 }
        return Float(min(1, max(0, xy / (xx * yy).squareRoot())))
    }

    /// The loop as it will be played: the file itself, or [C, L−C) followed by the crossfaded seam.
    public static func makeLoop(_ samples: [Float], channels: Int, plan: Plan) -> [Float] {
        let c = plan.crossfadeFrames
        guard c > 0 else { return samples }
        let frames = samples.count / channels
        var out = Array(samples[(c * channels)..<((frames - c) * channels)])
        out.reserveCapacity((frames - c) * channels)
        let r = plan.correlation
        for i in 0..<c {
            let theta = (Float(i) + 0.5) / Float(c) * (Float.pi / 2)
            let (cosine, sine) = cosSin(theta)
            let norm = 1 / (1 + r * 2 * sine * cosine).squareRoot()
            let a = cosine * norm, b = sine * norm
            for ch in 0..<channels {
                let tail = samples[(frames - c + i) * channels + ch]
                let head = samples[i * channels + ch]
                out.append(a * tail + b * head)
            }
        }
        return out
    }

    /// cos and sin on [0, π/2] by series (pure Swift; libm is not imported in the core).
    static func cosSin(_ x: Float) -> (Float, Float) {
        let x = Double(x), x2 = x * x
        var s = x, c = 1.0, ts = x, tc = 1.0
        for n in 1...9 {
            ts *= -x2 / Double((2 * n) * (2 * n + 1))
            tc *= -x2 / Double((2 * n - 1) * (2 * n))
            s += ts
            c += tc
        }
        return (Float(c), Float(s))
    }
}
