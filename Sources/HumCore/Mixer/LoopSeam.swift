/// Makes a sound loop without a click, a gap or a dip.
///
/// A file whose end already flows into its start (pre-cut, or measured to join smoothly) loops as it is. Any
/// other is looped through a crossfade computed once: the loop ends E = L − T frames into the file (T, the trim,
/// is chosen below), and plays [C, E−C) and then a seam of C frames that blends the tail [E−C, E) out while the
/// head [0, C) blends in, after which the loop continues at frame C. Nothing of it costs anything at play time.
///
/// Where the seam lies: of every end E within the last 25 ms (a period of any tone down to 40 Hz), the one whose
/// tail best matches the head (highest normalized correlation). A tone or a chord whose file ends out of phase
/// with its start is then joined in phase, instead of cancelling in the middle of the crossfade (a 440 Hz sine
/// 0.70075 s long lost 39 dB there).
///
/// How it blends: equal power (cos θ, sin θ) scaled at each frame by k so that the seam's power follows the
/// equal-power path between the tail's and the head's measured power: with Ptt, Phh and the cross term Pth
/// summed over the seam, k = √((c²Ptt + s²Phh) / (c²Ptt + s²Phh + 2cs·Pth)). For uncorrelated material (rain,
/// noise: Pth ≈ 0) that is plain equal power; for identical material (a drone) it is equal gain
/// (k = 1/√(1 + sin 2θ), a = b = ½ at the middle); anything in between gets what keeps its level. k is bounded to
/// [½, 2] so near-silence or true cancellation never turns into a boost of noise. (The sums can be taken over a
/// window around each frame, `Plan.windowHalfFrames`, to follow correlation that changes along the seam; over
/// 10–40 ms windows low-passed noise, whose correlation wanders by chance at that scale, was pumped by k, so the
/// plan sums over the whole seam.)
public enum LoopSeam {
    public struct Plan: Equatable, Sendable {
        /// Crossfade length in frames; 0 when the file loops as it is.
        public var crossfadeFrames: Int
        /// Correlation of tail and head at the chosen end, −1…1 (0 when not crossfaded).
        public var correlation: Float
        /// Frames left out at the end of the file: the loop ends at L − trim, where its tail matches the head best.
        public var trimFrames: Int
        /// Half the window the blend measures power over around each frame (the plan uses C: the whole seam;
        /// 0: a tenth of C).
        public var windowHalfFrames: Int

        public init(crossfadeFrames: Int, correlation: Float, trimFrames: Int = 0, windowHalfFrames: Int = 0) {
            self.crossfadeFrames = crossfadeFrames
            self.correlation = correlation
            self.trimFrames = trimFrames
            self.windowHalfFrames = windowHalfFrames
        }

        /// Loops as it is.
        public static let asItIs = Plan(crossfadeFrames: 0, correlation: 0)

        /// Where the loop ends in a file of `frames` frames: the tail is [end − C, end).
        public func end(frames: Int) -> Int { frames - trimFrames }
    }

    /// Decides how a file loops. `sampleRate` sets the crossfade bounds (50–500 ms): a tenth of the file, so
    /// longer files get gentler seams, never more than a third of it; and the search for the best end (25 ms).
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
        if joinsSmoothly(samples, channels: channels), bendsSmoothly(samples, channels: channels) {
            return Plan(crossfadeFrames: 0, correlation: 0)
        }
        return seamPlan(of: samples, channels: channels, sampleRate: sampleRate)
    }

    /// The seam a file gets when it does not loop as it is.
    static func seamPlan<S: LoopSample>(of samples: UnsafeBufferPointer<S>, channels: Int, sampleRate: Int) -> Plan {
        let frames = samples.count / channels
        guard frames >= 4 else { return Plan(crossfadeFrames: 0, correlation: 0) }
        let minimum = sampleRate / 20
        let maximum = sampleRate / 2
        let search = min(sampleRate / 40, frames / 10)
        let length = min(max(frames / 10, minimum), maximum, (frames - search) / 3)
        guard length >= 2 else { return Plan(crossfadeFrames: 0, correlation: 0) }
        let (trim, r) = bestEnd(
            samples, channels: channels, length: length, search: max(0, search), window: sampleRate / 10)
        return Plan(
            crossfadeFrames: length, correlation: r, trimFrames: trim, windowHalfFrames: length)
    }

    /// The trim in [0, search] whose tail [E − C, E) (E = L − trim) correlates best with the head [0, C), and that
    /// correlation. Measured over the middle of the crossfade, at most 100 ms of it (where tail and head are heard
    /// together; the search costs no more for a long seam), in float, eight products at a time: the choice only
    /// needs to be close, and every candidate is measured the same way. The tail's energy slides from one
    /// candidate to the next.
    static func bestEnd<S: LoopSample>(
        _ samples: UnsafeBufferPointer<S>, channels: Int, length: Int, search: Int, window: Int
    ) -> (Int, Float) {
        let frames = samples.count / channels
        let w = max(1, min(length, window))
        let offset = (length - w) / 2
        let n = w * channels
        let head = (0..<n).map { samples[offset * channels + $0].unit }
        let regionStart = (frames - search - length + offset) * channels
        let region = (0..<((w + search) * channels)).map { samples[regionStart + $0].unit }
        var hh = 0.0
        for v in head { hh += Double(v) * Double(v) }
        // Tail energy for trim = search (the window at the start of the region), then slid frame by frame.
        var tt = 0.0
        for i in 0..<n { tt += Double(region[i]) * Double(region[i]) }
        var best = (trim: 0, r: -2.0)
        head.withUnsafeBufferPointer { h in
            region.withUnsafeBufferPointer { t in
                for shift in 0...search {
                    // shift frames into the region: trim = search − shift.
                    if shift > 0 {
                        for c in 0..<channels {
                            let out = Double(t[(shift - 1) * channels + c])
                            let into = Double(t[(shift - 1 + w) * channels + c])
                            tt += into * into - out * out
                        }
                    }
                    let xy = dot(t.baseAddress! + shift * channels, h.baseAddress!, count: n)
                    let norm = (max(tt, 0) * hh).squareRoot()
                    let r = norm > 0 ? Double(xy) / norm : 0
                    // Ties go to the smallest trim (the most of the file kept).
                    if r > best.r || (r == best.r && search - shift < best.trim) { best = (search - shift, r) }
                }
            }
        }
        return (best.trim, Float(max(-1, min(1, best.r))))
    }

    /// Σ a[i]·b[i] in eight running sums (so it vectorizes: a float sum in one running total cannot be reordered).
    static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var s0: Float = 0
        var s1: Float = 0
        var s2: Float = 0
        var s3: Float = 0
        var s4: Float = 0
        var s5: Float = 0
        var s6: Float = 0
        var s7: Float = 0
        var i = 0
        while i &+ 8 <= count {
            s0 += a[i] * b[i]
            s1 += a[i &+ 1] * b[i &+ 1]
            s2 += a[i &+ 2] * b[i &+ 2]
            s3 += a[i &+ 3] * b[i &+ 3]
            s4 += a[i &+ 4] * b[i &+ 4]
            s5 += a[i &+ 5] * b[i &+ 5]
            s6 += a[i &+ 6] * b[i &+ 6]
            s7 += a[i &+ 7] * b[i &+ 7]
            i &+= 8
        }
        while i < count {
            s0 += a[i] * b[i]
            i &+= 1
        }
        return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
    }

    /// True when the wrap bends no more sharply than the file does anywhere: the second differences across it
    /// (x[L−2], x[L−1], x[0] and x[L−1], x[0], x[1]) are no larger than the largest inside the file. A tone that
    /// ends at a zero crossing going the wrong way passes the step test but turns back at the wrap: a click.
    static func bendsSmoothly<S: LoopSample>(_ samples: UnsafeBufferPointer<S>, channels: Int) -> Bool {
        let frames = samples.count / channels
        guard frames >= 3 else { return true }
        let inside = S.largestBend(samples.baseAddress!, from: 2 * channels, to: frames * channels, stride: channels)
        for ch in 0..<channels {
            let a = samples[(frames - 2) * channels + ch].unit
            let b = samples[(frames - 1) * channels + ch].unit
            let c = samples[ch].unit
            let d = samples[channels + ch].unit
            // A NaN compares false: such a file gets a seam.
            guard abs(a - 2 * b + c) <= inside, abs(b - 2 * c + d) <= inside else { return false }
        }
        return true
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

    /// The loop as it will be played: the file itself, or [C, E−C) followed by the crossfaded seam.
    public static func makeLoop(_ samples: [Float], channels: Int, plan: Plan) -> [Float] {
        let c = plan.crossfadeFrames
        guard c > 0 else { return samples }
        let end = plan.end(frames: samples.count / channels)
        var out = Array(samples[(c * channels)..<((end - c) * channels)])
        out.reserveCapacity((end - c) * channels)
        samples.withUnsafeBufferPointer { s in
            seam(of: s, channels: channels, plan: plan) { _, value in out.append(value) }
        }
        return out
    }

    /// Builds the loop in place in 16-bit samples: the seam, rounded to 16 bits, is written over the tail
    /// [E−C, E), so the loop is [C, E) of the same memory (E: `plan.end(frames:)`). Returns where the loop starts:
    /// frame C (0 when the file loops as it is).
    public static func makeLoopInPlace(_ samples: UnsafeMutableBufferPointer<Int16>, channels: Int, plan: Plan) -> Int {
        let c = plan.crossfadeFrames
        guard c > 0, let base = samples.baseAddress else { return 0 }
        let tail = base + (plan.end(frames: samples.count / channels) - c) * channels
        // Each seam sample reads its own tail sample and one of the head (which ends before the tail begins, as
        // C ≤ E/3); the gains are computed from all of them first, so it can replace its tail sample at once.
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

    /// The blend's gains (a, b) for each frame of the seam: equal power, corrected by the measured local power
    /// of tail, head and their product (see the type's comment).
    static func gains<S: LoopSample>(of samples: UnsafeBufferPointer<S>, channels: Int, plan: Plan) -> [(Float, Float)]
    {
        let c = plan.crossfadeFrames
        let tailStart = (plan.end(frames: samples.count / channels) - c) * channels
        // Prefix sums of tt, hh, th per frame (summed over channels), in double.
        var tt = [Double](repeating: 0, count: c + 1)
        var hh = tt
        var th = tt
        for i in 0..<c {
            var a = 0.0
            var b = 0.0
            var x = 0.0
            for ch in 0..<channels {
                let t = Double(samples[tailStart + i * channels + ch].unit)
                let h = Double(samples[i * channels + ch].unit)
                a += t * t
                b += h * h
                x += t * h
            }
            tt[i + 1] = tt[i] + a
            hh[i + 1] = hh[i] + b
            th[i + 1] = th[i] + x
        }
        let w = plan.windowHalfFrames > 0 ? plan.windowHalfFrames : max(1, c / 10)
        var out = [(Float, Float)]()
        out.reserveCapacity(c)
        for i in 0..<c {
            let theta = (Float(i) + 0.5) / Float(c) * (Float.pi / 2)
            let (cosine, sine) = cosSin(theta)
            let lo = max(0, i - w)
            let hi = min(c, i + w + 1)
            let ptt = tt[hi] - tt[lo]
            let phh = hh[hi] - hh[lo]
            let pth = th[hi] - th[lo]
            let cc = Double(cosine) * Double(cosine)
            let ss = Double(sine) * Double(sine)
            let target = cc * ptt + ss * phh
            let actual = target + 2 * Double(cosine) * Double(sine) * pth
            var k = 1.0
            if target > 0 {
                k = actual > target / 4 ? (target / actual).squareRoot() : 2
                k = min(2, max(0.5, k))
            }
            out.append((cosine * Float(k), sine * Float(k)))
        }
        return out
    }

    /// tail·a + head·b with the blend's gains, frame by frame.
    @inline(__always)
    static func seam<S: LoopSample>(
        of samples: UnsafeBufferPointer<S>, channels: Int, plan: Plan, emit: (Int, Float) -> Void
    ) {
        let c = plan.crossfadeFrames
        let tailStart = plan.end(frames: samples.count / channels) - c
        let blend = gains(of: samples, channels: channels, plan: plan)
        var index = 0
        for i in 0..<c {
            let (a, b) = blend[i]
            for ch in 0..<channels {
                let tail = samples[(tailStart + i) * channels + ch].unit
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
    /// The largest |s[i] − 2·s[i − stride] + s[i − 2·stride]|, i in [from, to), as float in [−1, 1] units.
    static func largestBend(_ s: UnsafePointer<Self>, from: Int, to: Int, stride: Int) -> Float
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

extension Float {
    static func largestBend(_ s: UnsafePointer<Float>, from: Int, to: Int, stride: Int) -> Float {
        var largest: Float = 0
        for i in from..<to { largest = Swift.max(largest, abs(s[i] - 2 * s[i - stride] + s[i - 2 * stride])) }
        return largest
    }
}

extension Int16: LoopSample {
    /// In integers, with no overflow checks (three 16-bit values fit 32 bits): the loop vectorizes.
    static func largestBend(_ s: UnsafePointer<Int16>, from: Int, to: Int, stride: Int) -> Float {
        var largest: Int32 = 0
        var i = from
        while i < to {
            let d = Int32(s[i]) &- 2 &* Int32(s[i &- stride]) &+ Int32(s[i &- 2 &* stride])
            let magnitude = d < 0 ? 0 &- d : d
            largest = largest > magnitude ? largest : magnitude
            i &+= 1
        }
        return Float(largest) / 32768
    }

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
