import Testing

@testable import HumCore

/// The seam keeps its level and makes no click, whatever the material: tones and chords whose end is out of phase
/// with their start (where an equal-power crossfade cancels), noise, speech-like material, mono and stereo.
@Suite struct LoopSeamLevelTests {
    static let rate = 48000

    /// A sum of sines (frequency, amplitude), `frames` long, interleaved over `channels` (the right channel a
    /// little shifted in phase).
    static func tones(_ partials: [(Double, Double)], frames: Int, channels: Int = 1) -> [Float] {
        var out = [Float]()
        out.reserveCapacity(frames * channels)
        for i in 0..<frames {
            for ch in 0..<channels {
                var v = 0.0
                for (f, a) in partials {
                    v += a * sinApprox(2 * Double.pi * f * Double(i) / Double(rate) + Double(ch) * 0.7)
                }
                out.append(Float(v))
            }
        }
        return out
    }

    /// White noise, or low-passed (one pole at `smooth`).
    static func noise(frames: Int, channels: Int = 1, smooth: Float = 0, seed: UInt64) -> [Float] {
        var rng = SplitMix64(seed: seed)
        var y = [Float](repeating: 0, count: channels)
        var out = [Float]()
        for _ in 0..<frames {
            for ch in 0..<channels {
                y[ch] = smooth * y[ch] + (1 - smooth) * rng.nextSignedUnit() * 0.5
                out.append(smooth == 0 ? y[ch] : y[ch] * 4)
            }
        }
        return out
    }

    /// Speech-like: a glottal pulse train whose pitch glides (100–180 Hz), through two resonances (formants that
    /// move with each "syllable"), in syllables of 120–300 ms with short pauses between them, plus a little
    /// breath noise.
    static func speechLike(frames: Int, seed: UInt64) -> [Float] {
        var rng = SplitMix64(seed: seed)
        var out = [Float](repeating: 0, count: frames)
        var phase = 0.0
        var i = 0
        var f1 = (y1: 0.0, y2: 0.0)
        var f2 = (y1: 0.0, y2: 0.0)
        while i < frames {
            let syllable = Int(Double(rate) * (0.12 + 0.18 * Double(rng.nextSignedUnit() * 0.5 + 0.5)))
            let pause = Int(Double(rate) * (0.02 + 0.06 * Double(rng.nextSignedUnit() * 0.5 + 0.5)))
            let pitch = 110 + 60 * Double(rng.nextSignedUnit() * 0.5 + 0.5)
            let formant1 = 300 + 500 * Double(rng.nextSignedUnit() * 0.5 + 0.5)
            let formant2 = 1000 + 1500 * Double(rng.nextSignedUnit() * 0.5 + 0.5)
            // Two-pole resonators (radius 0.97): coefficients from cos of the formant's angle.
            let r = 0.97
            let c1 = 2 * r * cosApprox(2 * Double.pi * formant1 / Double(rate))
            let c2 = 2 * r * cosApprox(2 * Double.pi * formant2 / Double(rate))
            for k in 0..<syllable where i < frames {
                let t = Double(k) / Double(syllable)
                let envelope = sinApprox(Double.pi * t)  // rises and falls over the syllable
                let f0 = pitch * (1.1 - 0.2 * t)
                phase += f0 / Double(rate)
                var pulse = 0.0
                if phase >= 1 {
                    phase -= 1
                    pulse = 1
                }
                let source = pulse + 0.02 * Double(rng.nextSignedUnit())
                let y1 = source + c1 * f1.y1 - r * r * f1.y2
                f1 = (y1, f1.y1)
                let y2 = source + c2 * f2.y1 - r * r * f2.y2
                f2 = (y2, f2.y1)
                out[i] = Float(0.02 * envelope * (y1 + 0.5 * y2))
                i += 1
            }
            for _ in 0..<pause where i < frames {
                out[i] = Float(0.0005 * Double(rng.nextSignedUnit()))
                i += 1
            }
        }
        return out
    }

    static func cosApprox(_ x: Double) -> Double { sinApprox(x + Double.pi / 2) }

    static func rms(_ x: ArraySlice<Float>) -> Double {
        (x.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, x.count))).squareRoot()
    }

    static func dB(_ ratio: Double) -> Double { 20 * log10Approx(ratio) }

    /// The level check: over every 10 ms window inside the seam (hop 1 ms), the seam's level may not fall more
    /// than `allowed` dB below the quieter of what it joins there (the tail and the head over the same window).
    /// Returns the deepest dip in dB (positive: quieter).
    static func deepestDip(_ file: [Float], channels: Int, plan: LoopSeam.Plan, seam: [Float]) -> Double {
        let c = plan.crossfadeFrames
        let end = plan.end(frames: file.count / channels)
        let window = rate / 100
        let hop = rate / 1000
        var deepest = -Double.infinity
        var start = 0
        while start + window <= c {
            let range = (start * channels)..<((start + window) * channels)
            let tail = rms(file[((end - c) * channels + range.lowerBound)..<((end - c) * channels + range.upperBound)])
            let head = rms(file[range])
            let out = rms(seam[range])
            let quieter = min(tail, head)
            if quieter > 1e-6 { deepest = max(deepest, dB(quieter / max(out, 1e-12))) }
            start += hop
        }
        return deepest
    }

    /// The largest |second difference| over channels: a click shows as a spike in it.
    static func largestCurvature(_ x: [Float], channels: Int) -> Float {
        var largest: Float = 0
        for i in (2 * channels)..<x.count {
            largest = max(largest, abs(x[i] - 2 * x[i - channels] + x[i - 2 * channels]))
        }
        return largest
    }

    /// The seam made by the loader's code path (16-bit in place is checked against this elsewhere).
    static func seamOf(_ file: [Float], channels: Int, plan: LoopSeam.Plan) -> [Float] {
        var seam = [Float]()
        file.withUnsafeBufferPointer { s in
            LoopSeam.seam(of: s, channels: channels, plan: plan) { _, v in seam.append(v) }
        }
        return seam
    }

    /// For material whose 10 ms windows hold less than a cycle of what is in them (noise low-passed under
    /// 40 Hz), two independent stretches cancel or add in any one window by chance, as the material itself swells
    /// and falls from window to window: the dip is measured on the average over many such files (at each window,
    /// the mean power of the seam against the mean power of the tail and of the head), where only a systematic
    /// loss shows. Returns the deepest dip in dB.
    static func deepestAverageDip(files: [[Float]], channels: Int) -> Double {
        var seamPower: [Double] = []
        var tailPower: [Double] = []
        var headPower: [Double] = []
        let window = rate / 100
        let hop = rate / 1000
        for file in files {
            let plan = file.withUnsafeBufferPointer { LoopSeam.seamPlan(of: $0, channels: channels, sampleRate: rate) }
            let seam = seamOf(file, channels: channels, plan: plan)
            let c = plan.crossfadeFrames
            let end = plan.end(frames: file.count / channels)
            var index = 0
            var start = 0
            while start + window <= c {
                let range = (start * channels)..<((start + window) * channels)
                let t = rms(file[((end - c) * channels + range.lowerBound)..<((end - c) * channels + range.upperBound)])
                let h = rms(file[range])
                let y = rms(seam[range])
                if seamPower.count <= index {
                    seamPower.append(0)
                    tailPower.append(0)
                    headPower.append(0)
                }
                seamPower[index] += y * y
                tailPower[index] += t * t
                headPower[index] += h * h
                index += 1
                start += hop
            }
        }
        var deepest = -Double.infinity
        for i in seamPower.indices {
            let quieter = min(tailPower[i], headPower[i])
            deepest = max(deepest, 10 * log10Approx(quieter / max(seamPower[i], 1e-24)))
        }
        return deepest
    }

    /// Checks one file. As it loops (as it is, or through its seam): no click, at the seam's ends or the wrap (the
    /// loop played twice has no second difference beyond 1.45 times the file's own largest: an equal-power blend
    /// of two independent stretches of white noise reaches up to √2 of their extremes; a click on a tone is many
    /// times its own). And the seam it would get if it needed one (made whatever the file): no 10 ms window dips
    /// over 2 dB, no click.
    static func check(_ file: [Float], channels: Int, _ label: String, strictLevel: Bool = true) {
        let own = largestCurvature(file, channels: channels)
        let plan = LoopSeam.plan(file, channels: channels, sampleRate: rate)
        let loop = LoopSeam.makeLoop(file, channels: channels, plan: plan)
        let played = largestCurvature(loop + loop, channels: channels)
        #expect(played <= own * 1.45, "\(label): curvature \(played) against the file's own \(own)")
        let seamPlan = file.withUnsafeBufferPointer {
            LoopSeam.seamPlan(of: $0, channels: channels, sampleRate: rate)
        }
        #expect(seamPlan.crossfadeFrames > 0, "\(label): a seam can be made")
        guard seamPlan.crossfadeFrames > 0 else { return }
        let seam = seamOf(file, channels: channels, plan: seamPlan)
        if strictLevel {
            let dip = deepestDip(file, channels: channels, plan: seamPlan, seam: seam)
            #expect(dip <= 2, "\(label): the seam dips by \(dip) dB")
        }
        let seamed = LoopSeam.makeLoop(file, channels: channels, plan: seamPlan)
        let through = largestCurvature(seamed + seamed, channels: channels)
        #expect(through <= own * 1.45, "\(label): curvature through the seam \(through) against \(own)")
    }

    /// The material where an equal-power crossfade cancels: a 440 Hz sine 0.70075 s long ends half a period
    /// out of phase with its start.
    @Test func anOutOfPhaseSineDoesNotDip() {
        let frames = Int(0.70075 * Double(Self.rate))
        let file = Self.tones([(440, 0.5)], frames: frames)
        // Plain equal power at the file's own end (what the loader did before) loses more than 20 dB.
        let c = LoopSeam.plan(file, channels: 1, sampleRate: Self.rate).crossfadeFrames
        #expect(c > 0)
        var naive = [Float]()
        for i in 0..<c {
            let (cosine, sine) = LoopSeam.cosSin((Float(i) + 0.5) / Float(c) * (Float.pi / 2))
            naive.append(cosine * file[frames - c + i] + sine * file[i])
        }
        let naiveDip = Self.deepestDip(
            file, channels: 1, plan: LoopSeam.Plan(crossfadeFrames: c, correlation: 0), seam: naive)
        #expect(naiveDip > 20)
        Self.check(file, channels: 1, "440 Hz sine")
    }

    @Test(arguments: [1, 2])
    func tonesAtEveryPhaseDoNotDip(channels: Int) {
        // Lengths that end at every quarter of a period, and tones low and high.
        for (frequency, seconds) in [(440.0, 0.70075), (440.0, 0.7009), (55.0, 1.3091), (3520.0, 0.61), (100, 2.005)] {
            let file = Self.tones([(frequency, 0.5)], frames: Int(seconds * Double(Self.rate)), channels: channels)
            Self.check(file, channels: channels, "\(frequency) Hz, \(seconds) s, \(channels) channels")
        }
    }

    @Test(arguments: [1, 2])
    func chordsDoNotDip(channels: Int) {
        let major = [(261.63, 0.2), (329.63, 0.2), (392.0, 0.2)]
        let drone = [(110.0, 0.3), (165.0, 0.15), (220.5, 0.1), (331.0, 0.05)]
        for (name, partials, seconds) in [("C major", major, 1.2345), ("drone", drone, 3.01)] {
            let file = Self.tones(partials, frames: Int(seconds * Double(Self.rate)), channels: channels)
            Self.check(file, channels: channels, "\(name), \(channels) channels")
        }
    }

    @Test(arguments: [1, 2])
    func noiseDoesNotDip(channels: Int) {
        var white = Self.noise(frames: 96000, channels: channels, seed: 3)
        white[white.count - 1] = 0.9  // a jump, so the file does not join as it is
        Self.check(white, channels: channels, "white noise")
        // Low-passed noise: no click, and no dip on average over 24 files.
        var brown = Self.noise(frames: 48000, channels: channels, smooth: 0.995, seed: 4)
        brown[brown.count - 1] = brown[0] + 0.5
        Self.check(brown, channels: channels, "low-passed noise", strictLevel: false)
        let files = (0..<24).map {
            Self.noise(frames: 48000, channels: channels, smooth: 0.995, seed: 100 + UInt64($0))
        }
        let dip = Self.deepestAverageDip(files: files, channels: channels)
        #expect(dip <= 2, "low-passed noise: the seam dips by \(dip) dB on average")
    }

    @Test func speechLikeMaterialDoesNotDip() {
        for seed in UInt64(1)...4 {
            let file = Self.speechLike(frames: 5 * Self.rate + Int(seed) * 997, seed: seed)
            Self.check(file, channels: 1, "speech-like, seed \(seed)")
        }
    }

    /// The chosen end matches the head: for a pure tone, in phase (the correlation near 1).
    @Test func theSeamIsPlacedWhereTheTailMatchesTheHead() {
        let file = Self.tones([(440, 0.5)], frames: Int(0.70075 * Double(Self.rate)))
        let plan = LoopSeam.plan(file, channels: 1, sampleRate: Self.rate)
        #expect(plan.correlation > 0.99)
        #expect(plan.trimFrames > 0 && plan.trimFrames <= Self.rate / 40)
        // The loop is the file less its trim and one crossfade.
        #expect(
            LoopSeam.makeLoop(file, channels: 1, plan: plan).count == file.count - plan.trimFrames
                - plan.crossfadeFrames)
    }
}

/// log10 by a series (the core's tests use no libm either): ln via atanh's series after scaling to [1, 2).
func log10Approx(_ x: Double) -> Double {
    guard x > 0 else { return -.infinity }
    var m = x
    var e = 0
    while m >= 2 {
        m /= 2
        e += 1
    }
    while m < 1 {
        m *= 2
        e -= 1
    }
    let z = (m - 1) / (m + 1)
    var term = z
    var sum = 0.0
    var n = 1.0
    while abs(term) > 1e-17 {
        sum += term / n
        term *= z * z
        n += 2
    }
    let ln = 2 * sum + Double(e) * 0.6931471805599453
    return ln / 2.302585092994046
}
