import HumCore

/// The songs of birds/2: phrases of curved, frequency-modulated notes, as a syrinx sings them.
///
/// A songbird's note is a nearly pure whistle whose pitch never runs in a straight line: it arcs up and over, dips,
/// bends at one end, or trembles in a fast trill (the syrinx's two sides can also sing two notes at once). Songs are
/// built from such notes the way each species builds them: a chaffinch's accelerating, descending trills and final
/// flourish; a robin's varied liquid notes, some two-voiced; a blackbird's low fluted warble and squeaky twitter;
/// a wren's loud fast trills of ∩-shaped syllables; a song thrush's motifs repeated two to four times; a great
/// tit's see-saw; a chiffchaff's two alternating down-slurs; a wood pigeon's coos. Every syllable of a trill is
/// sung a little differently (pitch, length, loudness, timing), as a real one is.
enum BirdSongs {
    /// A curved note of `seconds`: pitch base·2^(arc·sin(πx) + tilt·(x − ½) + bend·x² + trill), where the trill
    /// is a frequency modulation of `trillDepth` octaves at `trillRate` Hz growing in over the note.
    static func curved(
        seconds: Double, base: Double, arc: Double, tilt: Double, bend: Double = 0, trillRate: Double = 0,
        trillDepth: Double = 0, harmonic: Double = 0.08, sampleRate sr: Double
    ) -> [Float] {
        BirdRecipes.note(seconds: seconds, sampleRate: sr, harmonic: harmonic, attack: 0.12) { x in
            let trill = trillDepth * SynthMath.sin(2 * SynthMath.pi * trillRate * x * seconds) * min(1, 3 * x)
            let octaves = arc * SynthMath.sin(SynthMath.pi * x) + tilt * (x - 0.5) + bend * x * x + trill
            return min(11_000, base * SynthMath.pow(2, octaves))
        }
    }

    /// Two notes sung at once (the syrinx's two sides), the second `gain` as loud.
    static func together(_ a: [Float], _ b: [Float], gain: Float) -> [Float] {
        var out = a + [Float](repeating: 0, count: max(0, b.count - a.count))
        for (i, v) in b.enumerated() { out[i] += v * gain }
        return out
    }

    enum Bird: CaseIterable {
        case chaffinch, robin, blackbird, wren, thrush, greatTit, chiffchaff, woodPigeon

        /// Seconds between the starts of two songs, on average (a bird in the bed's distant chorus).
        var pause: Double {
            switch self {
            case .chaffinch: 10
            case .robin: 7
            case .blackbird: 10
            case .wren: 12
            case .thrush: 8
            case .greatTit: 9
            case .chiffchaff: 9
            case .woodPigeon: 25
            }
        }

        /// One song of this bird.
        func song(_ rng: inout SplitMix64, sampleRate sr: Double) -> [Float] {
            var p = BirdRecipes.Phrase(sampleRate: sr)
            func jitter(_ r: inout SplitMix64, _ x: Double, _ by: Double) -> Double {
                x * r.uniform((1 - by)...(1 + by))
            }
            switch self {
            case .chaffinch:
                // Two or three trills, each faster and lower than the last, then a flourish.
                var f = rng.uniform(4_200...5_600)
                var syllable = rng.uniform(0.075...0.1)
                for _ in 0..<Int(rng.uniform(2...3.99)) {
                    let arc = rng.uniform(0.1...0.3)
                    let tilt = rng.uniform(-0.9...(-0.4))
                    for _ in 0..<Int(rng.uniform(4...8)) {
                        let s = jitter(&rng, syllable, 0.06)
                        p.add(
                            curved(
                                seconds: s, base: jitter(&rng, f, 0.025), arc: arc, tilt: tilt, sampleRate: sr),
                            gain: rng.uniform(0.75...1), gap: jitter(&rng, s * 0.45, 0.15))
                        syllable *= 0.96
                    }
                    f *= rng.uniform(0.72...0.85)
                    syllable *= 0.9
                }
                p.add(
                    curved(
                        seconds: rng.uniform(0.22...0.34), base: f * rng.uniform(1.3...1.6), arc: 0.45,
                        tilt: -0.7, bend: rng.uniform(-0.2...0.2), trillRate: rng.uniform(25...40), trillDepth: 0.05,
                        sampleRate: sr),
                    gap: 0.05)
            case .robin:
                // Varied liquid notes, high and low, curved every way, some trilled, some two at once.
                for _ in 0..<Int(rng.uniform(5...9.99)) {
                    let base = rng.logUniform(2_200...6_800)
                    let seconds = rng.uniform(0.05...0.2)
                    let trilled = rng.unit() < 0.3
                    var n = curved(
                        seconds: seconds, base: base, arc: rng.uniform(-0.4...0.45), tilt: rng.uniform(-0.8...0.8),
                        bend: rng.uniform(-0.3...0.3), trillRate: trilled ? rng.uniform(30...70) : 0,
                        trillDepth: trilled ? rng.uniform(0.05...0.15) : 0, sampleRate: sr)
                    if rng.unit() < 0.25 {
                        let other = curved(
                            seconds: seconds * rng.uniform(0.6...1), base: base * rng.uniform(1.25...1.7),
                            arc: rng.uniform(-0.3...0.3), tilt: rng.uniform(-0.6...0.6), sampleRate: sr)
                        n = together(n, other, gain: Float(rng.uniform(0.3...0.7)))
                    }
                    p.add(n, gain: rng.uniform(0.45...1), gap: rng.uniform(0.02...0.1))
                }
            case .blackbird:
                // A low, fluted warble with a slow vibrato, then a quiet squeaky twitter.
                for _ in 0..<Int(rng.uniform(3...5.99)) {
                    p.add(
                        curved(
                            seconds: rng.uniform(0.14...0.4), base: rng.uniform(1_400...2_700),
                            arc: rng.uniform(-0.25...0.3), tilt: rng.uniform(-0.35...0.35),
                            bend: rng.uniform(-0.2...0.2),
                            trillRate: rng.uniform(6...12), trillDepth: rng.uniform(0.01...0.03), harmonic: 0.2,
                            sampleRate: sr),
                        gain: rng.uniform(0.7...1), gap: rng.uniform(0.03...0.12))
                }
                for _ in 0..<Int(rng.uniform(3...6.99)) {
                    p.add(
                        curved(
                            seconds: rng.uniform(0.02...0.06), base: rng.uniform(4_800...7_500),
                            arc: rng.uniform(0.2...0.5), tilt: rng.uniform(-1...0.3), sampleRate: sr),
                        gain: rng.uniform(0.2...0.35), gap: rng.uniform(0.01...0.04))
                }
            case .wren:
                // Loud fast trills of ∩-shaped syllables, section after section.
                for _ in 0..<Int(rng.uniform(3...5.99)) {
                    let f = rng.uniform(3_800...7_200)
                    let arc = rng.uniform(0.25...0.6)
                    let tilt = rng.uniform(-1...0.4)
                    let rate = rng.uniform(12...22)
                    for _ in 0..<Int(rng.uniform(6...14.99)) {
                        p.add(
                            curved(
                                seconds: jitter(&rng, 0.6 / rate, 0.08), base: jitter(&rng, f, 0.03), arc: arc,
                                tilt: tilt, sampleRate: sr),
                            gain: rng.uniform(0.7...1), gap: jitter(&rng, 0.4 / rate, 0.15))
                    }
                }
            case .thrush:
                // Motifs of one to three notes, each repeated two to four times.
                for _ in 0..<Int(rng.uniform(3...5.99)) {
                    var motif = BirdRecipes.Phrase(sampleRate: sr)
                    for _ in 0..<Int(rng.uniform(1...3.99)) {
                        let trilled = rng.unit() < 0.3
                        motif.add(
                            curved(
                                seconds: rng.uniform(0.05...0.16), base: rng.logUniform(1_800...6_000),
                                arc: rng.uniform(-0.4...0.5), tilt: rng.uniform(-0.9...0.9),
                                trillRate: trilled ? rng.uniform(35...80) : 0, trillDepth: trilled ? 0.1 : 0,
                                sampleRate: sr),
                            gain: rng.uniform(0.6...1), gap: rng.uniform(0.02...0.06))
                    }
                    for _ in 0..<Int(rng.uniform(2...4.99)) {
                        p.add(motif.samples, gain: rng.uniform(0.8...1), gap: rng.uniform(0.08...0.16))
                    }
                    p.add([], gap: rng.uniform(0.2...0.4))
                }
            case .greatTit:
                // tea-cher, tea-cher: a high note bent down, a lower one.
                let high = rng.uniform(5_500...7_000)
                let low = rng.uniform(3_600...4_600)
                for _ in 0..<Int(rng.uniform(4...7.99)) {
                    p.add(
                        curved(
                            seconds: jitter(&rng, 0.07, 0.1), base: jitter(&rng, high, 0.015), arc: 0.12, tilt: -0.3,
                            sampleRate: sr), gap: 0.03)
                    p.add(
                        curved(
                            seconds: jitter(&rng, 0.1, 0.1), base: jitter(&rng, low, 0.015), arc: -0.06, tilt: -0.1,
                            bend: 0.1, sampleRate: sr), gain: 0.8, gap: jitter(&rng, 0.12, 0.15))
                }
            case .chiffchaff:
                let high = rng.uniform(5_600...6_400)
                let low = rng.uniform(4_400...5_000)
                for k in 0..<Int(rng.uniform(6...12.99)) {
                    let top = (k % 2 == 0) == (rng.unit() < 0.85) ? high : low
                    p.add(
                        curved(
                            seconds: rng.uniform(0.07...0.1), base: top, arc: 0.15, tilt: -0.45,
                            bend: rng.uniform(-0.15...0.15), sampleRate: sr),
                        gain: rng.uniform(0.75...1), gap: rng.uniform(0.3...0.42))
                }
            case .woodPigeon:
                // coo-COO-coo, coo-coo: soft hoots with a breathy second harmonic.
                let f = rng.uniform(430...520)
                for (k, seconds) in [0.3, 0.55, 0.3, 0.3, 0.45].enumerated() {
                    p.add(
                        curved(
                            seconds: seconds, base: f * (k == 1 ? 1.05 : 1), arc: 0.08, tilt: -0.04, harmonic: 0.3,
                            sampleRate: sr),
                        gain: k == 1 ? 1 : 0.75, gap: k == 2 ? 0.45 : 0.15)
                }
            }
            return p.samples
        }
    }
}
