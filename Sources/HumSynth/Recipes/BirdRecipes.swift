import HumCore

/// A dawn chorus in a wood.
///
/// Songbirds sing nearly pure whistles (the syrinx makes a tone, the beak and throat filter its harmonics away)
/// whose pitch moves fast: sweeps, slurs, trills of one note repeated, warbles. Each species has its own vocabulary
/// and each bird a few song types it repeats with small changes, at its own pace, from its own perch: near ones
/// clear and bright, far ones weaker, darker and blurred by the wood's echo. The species here are models of a
/// European wood at dawn, not recordings: a robin's varied, liquid phrases; a blackbird's low fluted melody ending in
/// a squeak; a chiffchaff's two alternating notes; a wren's loud fast trills; a great tit's see-saw "tea-cher"; a
/// wood pigeon's soft five-note coo far off; and sparrow-like chirps. Blanket's and Moodist's bird recordings as the
/// yardstick: centroid 3.1-3.6 kHz, most power 2-6 kHz, about a call onset a second, 12-16 LU of loudness range.
enum BirdRecipes {
    /// A whistle gliding from `from` to `to` Hz (exponentially) over `seconds`, with a smooth envelope.
    static func sweep(from: Double, to: Double, seconds: Double, sampleRate: Double) -> [Float] {
        note(seconds: seconds, sampleRate: sampleRate) { x in from * SynthMath.pow(to / from, x) }
    }

    /// A whistled note: `pitch(x)` in Hz along the note (x from 0 to 1), a quick rise and a rounded fall, a faint
    /// second harmonic.
    static func note(
        seconds: Double, sampleRate sr: Double, harmonic: Double = 0.15, attack: Double = 0.15,
        pitch: (Double) -> Double
    ) -> [Float] {
        let length = max(2, Int(seconds * sr))
        var out = [Float](repeating: 0, count: length)
        var phase = 0.0
        for i in 0..<length {
            let x = Double(i) / Double(length - 1)
            phase += pitch(x) / sr
            let rise = min(1, x / attack)
            let fall = min(1, (1 - x) / 0.35)
            let envelope = SynthMath.sin(SynthMath.pi / 2 * rise) * SynthMath.sin(SynthMath.pi / 2 * fall)
            out[i] = Float(envelope * (SynthMath.sinCycles(phase) + harmonic * SynthMath.sinCycles(2 * phase)))
        }
        return out
    }

    /// A phrase: notes laid one after another with gaps.
    struct Phrase {
        var samples: [Float] = []
        let sampleRate: Double

        init(sampleRate: Double) { self.sampleRate = sampleRate }

        mutating func add(_ note: [Float], gain: Double = 1, gap: Double) {
            let at = samples.count
            samples += [Float](repeating: 0, count: note.count + Int(gap * sampleRate))
            for (i, v) in note.enumerated() { samples[at + i] += v * Float(gain) }
        }
    }

    /// The species: each makes one song type of its kind (a bird then repeats a few of them).
    enum Species: CaseIterable {
        case robin, blackbird, chiffchaff, wren, greatTit, woodPigeon, sparrow

        /// Seconds between the starts of two songs, on average.
        var pause: Double {
            switch self {
            case .robin: 6
            case .blackbird: 9
            case .chiffchaff: 9
            case .wren: 12
            case .greatTit: 8
            case .woodPigeon: 22
            case .sparrow: 4
            }
        }

        func song(_ rng: inout SplitMix64, sampleRate sr: Double) -> [Float] {
            var p = Phrase(sampleRate: sr)
            switch self {
            case .robin:
                // Varied liquid notes, high and low, some slurred, some trilled.
                for _ in 0..<Int(rng.uniform(6...11)) {
                    let base = rng.logUniform(2_200...6_500)
                    let seconds = rng.uniform(0.04...0.16)
                    let kind = Int(rng.uniform(0...3.99))
                    let depth = rng.uniform(0.1...0.35)
                    let rate = rng.uniform(25...60)
                    let n = note(seconds: seconds, sampleRate: sr) { x in
                        switch kind {
                        case 0: base * (1 + depth * (1 - 2 * x))
                        case 1: base * (1 - depth * 0.5 + depth * x)
                        case 2: base * (1 + 0.5 * depth * SynthMath.sin(2 * SynthMath.pi * rate * x * seconds))
                        default: base * (1 + depth * SynthMath.sin(SynthMath.pi * x))
                        }
                    }
                    p.add(n, gain: rng.uniform(0.5...1), gap: rng.uniform(0.02...0.09))
                }
            case .blackbird:
                // A low, fluted melody, then a quiet squeaky twitter.
                for _ in 0..<Int(rng.uniform(3...6)) {
                    let a = rng.uniform(1_300...2_600)
                    let b = a * rng.uniform(0.85...1.2)
                    let seconds = rng.uniform(0.12...0.35)
                    let vibrato = rng.uniform(0.005...0.02)
                    let n = note(seconds: seconds, sampleRate: sr, harmonic: 0.15, attack: 0.25) { x in
                        (a + (b - a) * x * x) * (1 + vibrato * SynthMath.sin(2 * SynthMath.pi * 18 * x * seconds))
                    }
                    p.add(n, gain: rng.uniform(0.7...1), gap: rng.uniform(0.03...0.12))
                }
                for _ in 0..<Int(rng.uniform(3...7)) {
                    p.add(
                        sweep(
                            from: rng.uniform(5_000...7_500), to: rng.uniform(3_500...6_000),
                            seconds: rng.uniform(0.02...0.05), sampleRate: sr),
                        gain: 0.25, gap: rng.uniform(0.01...0.04))
                }
            case .chiffchaff:
                let high = rng.uniform(5_600...6_400)
                let low = rng.uniform(4_400...5_000)
                for k in 0..<Int(rng.uniform(6...12)) {
                    let top = (k % 2 == 0) == (rng.unit() < 0.85) ? high : low
                    p.add(
                        sweep(from: top * 1.15, to: top * 0.8, seconds: rng.uniform(0.07...0.1), sampleRate: sr),
                        gain: rng.uniform(0.75...1), gap: rng.uniform(0.3...0.42))
                }
            case .wren:
                // Fast trills of one note repeated, section after section, loud for so small a bird.
                for _ in 0..<Int(rng.uniform(3...5)) {
                    let f = rng.uniform(4_000...7_500)
                    let down = rng.uniform(0.7...1.1)
                    let rate = rng.uniform(14...24)
                    for _ in 0..<Int(rng.uniform(5...11)) {
                        p.add(sweep(from: f, to: f * down, seconds: 0.6 / rate, sampleRate: sr), gap: 0.4 / rate)
                    }
                }
            case .greatTit:
                let high = rng.uniform(6_000...7_200)
                let low = rng.uniform(3_800...4_800)
                for _ in 0..<Int(rng.uniform(4...8)) {
                    p.add(sweep(from: high, to: high * 0.92, seconds: 0.07, sampleRate: sr), gap: 0.03)
                    p.add(sweep(from: low * 1.05, to: low, seconds: 0.1, sampleRate: sr), gain: 0.8, gap: 0.12)
                }
            case .woodPigeon:
                // coo-COO-coo, coo-coo: soft hoots with a breathy second harmonic.
                let f = rng.uniform(430...520)
                for (k, seconds) in [0.3, 0.55, 0.3, 0.3, 0.45].enumerated() {
                    let n = note(seconds: seconds, sampleRate: sr, harmonic: 0.3, attack: 0.3) { x in
                        f * (1 + 0.06 * SynthMath.sin(SynthMath.pi * x)) * (k == 1 ? 1.05 : 1)
                    }
                    p.add(n, gain: k == 1 ? 1 : 0.75, gap: k == 2 ? 0.45 : 0.15)
                }
            case .sparrow:
                for _ in 0..<Int(rng.uniform(2...6)) {
                    p.add(
                        sweep(
                            from: rng.uniform(3_500...5_500), to: rng.uniform(4_500...7_000),
                            seconds: rng.uniform(0.04...0.08), sampleRate: sr),
                        gain: rng.uniform(0.6...1), gap: rng.uniform(0.1...0.3))
                }
            }
            return p.samples
        }
    }

    static let birds = SoundRecipe(
        id: "birds", title: "Dawn chorus", category: "nature",
        description: "Birds waking a wood at dawn: a robin, a blackbird, a wren and others singing near and far.",
        seconds: 90, channels: 2, seed: 0x4249_5244_5301,
        recipe:
            "birds/1: 10 birds of 7 modelled species (robin, blackbird, chiffchaff, wren, great tit, wood pigeon, "
            + "sparrow), each with 3 song types repeated at its own pace (4-22 s apart on average, gamma-spaced), "
            + "two near (6-14 m), the rest at 15-80 m (1/r, highs absorbed with distance), panned; songs of near "
            + "whistles 1.3-7.5 kHz with sweeps, slurs and trills; a wood reverb (1.8 s); soft air in the leaves "
            + "below 2.5 kHz"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var near = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        // Two singers close by, the rest of the wood farther off.
        let cast: [(Species, ClosedRange<Double>)] = [
            (.robin, 6...10), (.blackbird, 8...14), (.wren, 15...30), (.chiffchaff, 20...40), (.greatTit, 20...40),
            (.robin, 30...60), (.blackbird, 40...70), (.woodPigeon, 50...80), (.sparrow, 15...35),
            (.greatTit, 40...70),
        ]
        for (species, range) in cast {
            let distance = ctx.rng.uniform(range)
            let level = 10 / distance * (species == .wren ? 1.4 : 1)
            let dark = FilterChain([
                Biquad.lowPass(min(16_000, 9_000 * 30 / distance), sampleRate: sr),
                Biquad.highPass(300, sampleRate: sr),
            ])
            let repertoire = (0..<3).map { _ in Grain.filtered(species.song(&ctx.rng, sampleRate: sr), dark) }
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.9...0.9))
            var time = ctx.rng.uniform(0...species.pause)
            var last = -1
            while time < ctx.seconds {
                // Birds sing one song type a few times over before moving on.
                if last < 0 || ctx.rng.unit() < 0.35 { last = Int(ctx.rng.uniform(0...2.99)) }
                let song = repertoire[last]
                let at = Int(time * sr)
                let g = Float(level * ctx.rng.uniform(0.8...1))
                Loop.add(song, at: at, gain: g * l, into: &near[0])
                Loop.add(song, at: at, gain: g * r, into: &near[1])
                let gap = (ctx.rng.exponential(mean: 1) + ctx.rng.exponential(mean: 1)) / 2 * species.pause
                time += max(Double(song.count) / sr + 0.5, gap)
            }
        }
        // (At least a floor: a loop too short for a song still gets its air.)
        let nearRMS = max(1e-4, near.map { Loop.rms($0) }.reduce(0, +) / 2)
        let airs = ctx.blend(
            common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.3)
        let leaves = Loop.exponentialMap(ctx.wander(perMinute: 2...10), low: 0.5, high: 1)
        return (0..<2).map { c in
            var out = Loop.filtered(
                near[c], RoomReverb(sampleRate: sr, size: 4, decay: 1.8, damping: 0.5, wet: 0.6, seed: 20 + UInt64(c)))
            let air = Loop.filtered(
                airs[c], FilterChain([Biquad.lowPass(2_500, sampleRate: sr), Biquad.highPass(60, sampleRate: sr)]))
            Loop.mix(Loop.modulated(Loop.normalizedRMS(air), by: leaves), gain: Float(nearRMS * 0.5), into: &out)
            return out
        }
    }
}
