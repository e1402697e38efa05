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

        public init(crossfadeFrames: Int, correlation: Float) {
            self.crossfadeFrames = crossfadeFrames
            self.correlation = correlation
        }

        /// Loops as it is.
        public static let asItIs = Plan(crossfadeFrames: 0, correlation: 0)
    }

    /// Decides how a file loops. `sampleRate` sets the crossfade bounds (50–500 ms): a tenth of the file, so
    /// longer files get gentler seams, never more than a third of it.
    public static func plan(_ samples: [Float], channels: Int, sampleRate: Int) -> Plan {
        samples.withUnsafeBufferPointer { plan(of: $0, channels: channels, sampleRate: sampleRate) }
    }

    /// The plan for 16-bit samples (full scale 32768): the same as for the same samples in float.
    public static func plan(_ samples: UnsafeBufferPointer<Int16>, channels: Int, sampleRate: Int) -> Plan {
        plan(of: samples, channels: channels, sampleRate: sampleRate)
    }

    static func plan<S: LoopSample>(of samples: UnsafeBufferPointer<S>, channels: Int, sampleRate: Int) -> Plan {
        let frames = samples.count / channels
        guard frames >= 4 else { return Plan(crossfadeFrames: 0, correlation: 0) }
        if joinsSmoothly(samples, channels: channels) { return Plan(crossfadeFrames: 0, correlation: 0) }
        let minimum = sampleRate / 20
        let maximum = sampleRate / 2
        let length = min(max(frames / 10, minimum), maximum, frames / 3)
        guard length >= 2 else { return Plan(crossfadeFrames: 0, correlation: 0) }
        return Plan(crossfadeFrames: length, correlation: correlation(samples, channels: channels, length: length))
    }

    /// True when the step from the last frame to the first is no larger than the file's own typical large step
    /// (its 99.9th percentile of sample-to-sample steps over all channels): such a file already loops without a
    /// click.
    public static func joinsSmoothly(_ samples: [Float], channels: Int) -> Bool {
        samples.withUnsafeBufferPointer { joinsSmoothly($0, channels: channels) }
    }

    /// The percentile is read from a histogram of the steps in bins of 1/32768 of full scale (steps of full-scale
    /// audio lie in [0, 2]) and stands for its bin's upper edge. The seam's step exceeds that edge exactly when the
    /// percentile's share of all steps lies in bins at least two below the seam's step, so one counting pass
    /// answers, with no histogram and no sort (and in integers for 16-bit samples).
    static func joinsSmoothly<S: LoopSample>(_ samples: UnsafeBufferPointer<S>, channels: Int) -> Bool {
        let frames = samples.count / channels
        guard frames > 0, let s = samples.baseAddress else { return true }
        // The seam's step in bins (a whole number for 16-bit samples); a NaN seam counts as no step.
        var seam: Float = 0
        for c in 0..<channels {
            let step = S.step(s[c], s[(frames - 1) * channels + c])
            if step > seam { seam = step }
        }
        // The highest bin the percentile may lie in for the seam to exceed its upper edge.
        let highest = Int(min(seam, 70_000).rounded(.up)) - 2
        guard highest >= 0 else { return true }
        guard highest < 65535 else { return false }  // the last bin holds every larger step: all are below
        let total = (frames - 1) * channels
        let wanted = Int((Double(total) * 0.999).rounded(.up))
        let below = S.countSteps(s, from: channels, to: frames * channels, stride: channels, below: highest + 1)
        return below < wanted
    }

    static func correlation<S: LoopSample>(_ samples: UnsafeBufferPointer<S>, channels: Int, length: Int) -> Float {
        let frames = samples.count / channels
        var xy = 0.0
        var xx = 0.0
        var yy = 0.0
        for i in 0..<(length * channels) {
            let tail = Double(samples[(frames - length) * channels + i].unit)
            let head = Double(samples[i].unit)
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
        samples.withUnsafeBufferPointer { s in
            seam(of: s, channels: channels, plan: plan) { _, value in out.append(value) }
        }
        return out
    }

    /// Builds the loop in place in 16-bit samples: the seam, rounded to 16 bits, is written over the tail
    /// [L−C, L), so the loop is [C, L) of the same memory. Returns where the loop starts: frame C (0 when the file
    /// loops as it is).
    public static func makeLoopInPlace(_ samples: UnsafeMutableBufferPointer<Int16>, channels: Int, plan: Plan) -> Int {
        let c = plan.crossfadeFrames
        guard c > 0, let base = samples.baseAddress else { return 0 }
        let tail = base + (samples.count / channels - c) * channels
        // Each seam sample reads its own tail sample and one of the head (which ends before the tail begins, as
        // C ≤ L/3), so it can replace its tail sample at once.
        seam(of: UnsafeBufferPointer(samples), channels: channels, plan: plan) { index, value in
            tail[index] = LoopBuffer.quantize(value)
        }
        return c
    }

    /// The seam of 16-bit samples as float (C frames, interleaved, in order): `emit(index, value)` for each.
    public static func seam(
        _ samples: UnsafeBufferPointer<Int16>, channels: Int, plan: Plan, emit: (Int, Float) -> Void
    ) {
        seam(of: samples, channels: channels, plan: plan, emit: emit)
    }

    /// tail·a + head·b with the blend's gains, frame by frame.
    @inline(__always)
    static func seam<S: LoopSample>(
        of samples: UnsafeBufferPointer<S>, channels: Int, plan: Plan, emit: (Int, Float) -> Void
    ) {
        let c = plan.crossfadeFrames
        let frames = samples.count / channels
        let r = plan.correlation
        var index = 0
        for i in 0..<c {
            let theta = (Float(i) + 0.5) / Float(c) * (Float.pi / 2)
            let (cosine, sine) = cosSin(theta)
            let norm = 1 / (1 + r * 2 * sine * cosine).squareRoot()
            let a = cosine * norm
            let b = sine * norm
            for ch in 0..<channels {
                let tail = samples[(frames - c + i) * channels + ch].unit
                let head = samples[i * channels + ch].unit
                emit(index, a * tail + b * head)
                index += 1
            }
        }
    }

    /// cos and sin on [0, π/2] by series (pure Swift; libm is not imported in the core).
    static func cosSin(_ x: Float) -> (Float, Float) {
        let x = Double(x)
        let x2 = x * x
        var s = x
        var c = 1.0
        var ts = x
        var tc = 1.0
        for n in 1...9 {
            ts *= -x2 / Double((2 * n) * (2 * n + 1))
            tc *= -x2 / Double((2 * n - 1) * (2 * n))
            s += ts
            c += tc
        }
        return (Float(c), Float(s))
    }
}

/// A sample the seam analysis reads: float in [−1, 1], or 16-bit with full scale 32768.
protocol LoopSample {
    /// The value as float in [−1, 1] (exact for 16-bit samples).
    var unit: Float { get }
    /// |a − b| in units of 1/32768 of full scale (exact for 16-bit samples and for floats that hold them).
    static func step(_ a: Self, _ b: Self) -> Float
    /// How many of the steps s[i] − s[i − stride], i in [from, to), are below `limit` units.
    static func countSteps(_ s: UnsafePointer<Self>, from: Int, to: Int, stride: Int, below limit: Int) -> Int
}

extension Float: LoopSample {
    @inline(__always) var unit: Float { self }
    @inline(__always) static func step(_ a: Float, _ b: Float) -> Float { abs(a - b) * 32768 }

    static func countSteps(_ s: UnsafePointer<Float>, from: Int, to: Int, stride: Int, below limit: Int) -> Int {
        let limit = Float(limit)
        var count = 0
        for i in from..<to where step(s[i], s[i - stride]) < limit { count += 1 }
        return count
    }
}

extension Int16: LoopSample {
    @inline(__always) var unit: Float { Float(self) / 32768 }
    @inline(__always) static func step(_ a: Int16, _ b: Int16) -> Float {
        let d = Int32(a) &- Int32(b)
        return Float(d < 0 ? 0 &- d : d)
    }

    /// In integers and in runs whose count fits 32 bits, with no overflow checks: the loop vectorizes.
    static func countSteps(_ s: UnsafePointer<Int16>, from: Int, to: Int, stride: Int, below limit: Int) -> Int {
        let limit = Int32(clamping: limit)
        var count = 0
        var i = from
        while i < to {
            let end = Swift.min(to, i &+ (1 << 30))
            var run: Int32 = 0
            var j = i
            while j < end {
                let d = Int32(s[j]) &- Int32(s[j &- stride])
                let magnitude = d < 0 ? 0 &- d : d
                run &+= magnitude < limit ? 1 : 0
                j &+= 1
            }
            count += Int(run)
            i = end
        }
        return count
    }
}
