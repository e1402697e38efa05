import HumCore

/// The sea and a stream.
enum WaterRecipes {
    /// Surf on a beach. Real surf (Blanket's and Moodist's recordings) breaks irregularly: 20-24 swells a minute by
    /// scripts/measure-sounds.py, 1.5 to 5 s apart, each rising to its peak in about 0.6 s and falling 6 dB in
    /// 0.7-0.8 s: a sharp, bright break (up to 15 kHz) and then a longer, darker wash, with the fizz of foam. The
    /// waves come in groups: a few bigger ones, then calmer.
    static let waves = SoundRecipe(
        id: "waves", title: "Ocean waves", category: "water",
        description:
            "Surf on a sandy beach: waves breaking every few seconds, each a bright crash and a long hiss of wash.",
        seconds: 60, channels: 2, seed: 0x5741_5645_02,
        recipe:
            "waves/3: breaks 2-12 s apart (gamma(2), mean 4.5 s), sizes in groups over 6 dB; each rises in 0.5-0.9 s, "
            + "breaks (noise, -9 dB above 800 Hz, through a low-pass opening from 1.4 to 5-11 kHz, 0.3-0.6 s fall) and "
            + "washes out (3-5 s, 50-70 % of it, darker); grainy foam fizz > 3 kHz lasting the wash; a thump < 150 Hz "
            + "at the impact; distant surf 150-1500 Hz underneath"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var level = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        var brightness = [Float](repeating: 0, count: n)
        var foam = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        var thump = [Float](repeating: 0, count: n)
        // Waves come in groups: bigger for a while, then calmer.
        let groups = ctx.wander(perMinute: 1...3, tilt: 0.5)
        // Break times: a renewal process with gamma(3) gaps, spread so that they close the loop exactly.
        var gaps: [Double] = []
        var total = 0.0
        while total < ctx.seconds {
            let gap = min(12, max(2, (ctx.rng.exponential(mean: 1) + ctx.rng.exponential(mean: 1)) * 4.5 / 2))
            gaps.append(gap)
            total += gap
        }
        let stretch = ctx.seconds / total
        var time = ctx.rng.uniform(0...1)
        for gap in gaps {
            let start = Int(time * sr)
            time += gap * stretch
            let group = Double(groups[start % n])
            let size = SynthMath.amplitude(dB: 3 * group + ctx.rng.uniform(-2.5...2.5))
            let rise = ctx.rng.uniform(0.5...0.9)
            let breakFall = ctx.rng.uniform(0.3...0.6)
            let washFall = ctx.rng.uniform(3...5)
            let washShare = ctx.rng.uniform(0.5...0.7)
            // The loudness curve: a quick rise, the break falling fast, the wash lingering.
            let length = Int((rise + 7 * washFall) * sr)
            var curve = [Float](repeating: 0, count: length)
            var bright = curve
            let riseFrames = Int(rise * sr)
            for i in 0..<length {
                let t = Double(i) / sr
                if i < riseFrames {
                    let x = t / rise
                    curve[i] = Float(x * x * (3 - 2 * x))
                    bright[i] = curve[i]
                } else {
                    let after = t - rise
                    let b = SynthMath.exp(-after / breakFall)
                    let w = SynthMath.exp(-after / washFall)
                    curve[i] = Float((1 - washShare) * b + washShare * w)
                    bright[i] = Float(b)
                }
            }
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.5...0.5))
            Loop.add(curve, at: start, gain: Float(size) * l, into: &level[0])
            Loop.add(curve, at: start, gain: Float(size) * r, into: &level[1])
            Loop.add(bright, at: start, gain: Float(min(1.2, size)), into: &brightness)
            // Foam: the fizz of bursting bubbles, starting at the break, dying with the wash.
            let fizz = Grain.envelope(attack: 0.15, decay: washFall * 1.1, sampleRate: sr)
            Loop.add(fizz, at: start + riseFrames, gain: Float(size) * l, into: &foam[0])
            Loop.add(fizz, at: start + riseFrames, gain: Float(size) * r, into: &foam[1])
            let hit = Grain.envelope(attack: 0.05, decay: 0.25, sampleRate: sr)
            Loop.add(hit, at: start + riseFrames - Int(0.05 * sr), gain: Float(size), into: &thump)
        }
        let peak = brightness.reduce(0) { max($0, $1) }
        let cutoff = brightness.map { 1_400 * SynthMath.pow(11_000 / 1_400, Double(min(1, $0 / peak))) }
        let sources = ctx.blend(common: ctx.noise(), left: ctx.noise(), right: ctx.noise(), correlation: 0.3)
        let surfs = ctx.blend(
            common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.5)
        let thumpNoise = Loop.normalizedRMS(
            Loop.filtered(ctx.brownNoise(corner: 60), Biquad.lowPass(150, sampleRate: sr)))
        let levelRMS = level.map { Loop.rms($0) }.reduce(0, +) / 2
        return (0..<2).map { c in
            let swept = Loop.filteredVarying(sources[c], sampleRate: sr) { f, x, i in
                f.process(x, cutoff: cutoff[i], q: 0.6).lowPass
            }
            // Sand and water hiss darker than white noise: -3 dB an octave above 1 kHz.
            let tilted = Loop.filtered(
                swept,
                FilterChain([
                    Biquad.highShelf(800, gainDB: -9, sampleRate: sr), Biquad.highPass(150, sampleRate: sr),
                ]))
            var out = Loop.modulated(Loop.normalizedRMS(tilted), by: level[c].map { $0 / Float(levelRMS) })
            var fizzNoise = Grain.filtered(ctx.noise(), Biquad.highPass(3_000, sampleRate: sr))
            // Foam crackles: the fizz is grainy, not a smooth hiss.
            for i in fizzNoise.indices { fizzNoise[i] *= ctx.rng.unit() < 0.3 ? 1 : 0.5 }
            Loop.mix(
                Loop.modulated(Loop.normalizedRMS(fizzNoise), by: foam[c].map { $0 / Float(levelRMS) }), gain: 0.3,
                into: &out)
            Loop.mix(Loop.modulated(thumpNoise, by: thump.map { $0 / Float(levelRMS) }), gain: 0.3, into: &out)
            let surf = Loop.normalizedRMS(
                Loop.filtered(
                    surfs[c],
                    FilterChain([Biquad.highPass(150, sampleRate: sr), Biquad.lowPass(1_500, sampleRate: sr)])))
            Loop.mix(surf, gain: 0.3, into: &out)
            return out
        }
    }

    /// A brook: water tumbling over stones entrains air, and every bubble rings at its Minnaert resonance
    /// (f ≈ 3.3 kHz·mm / radius), rising a little as it nears the surface, while the broken surface hisses. A real
    /// stream's power (Moodist's river) is flat from 800 Hz to 2.5 kHz and falls only slowly above, to 16 kHz
    /// (centroid 2.5 kHz, roll-off 4.3 kHz), with almost nothing under 150 Hz.
    static let stream = SoundRecipe(
        id: "stream", title: "Stream", category: "water",
        description: "A brook tumbling over stones: bright bubbling and the splash of running water close by.",
        seconds: 40, channels: 2, seed: 0x5354_5245_414E,
        recipe:
            "stream/2: 1400 bubbles/s (Minnaert resonances 500 Hz-8 kHz, most 1-3 kHz, Q 8-25, rising 5-40%), "
            + "gurgling in bursts; surface hiss (noise > 400 Hz, -2 dB/octave above 1.5 kHz to 16 kHz) swelling "
            + "2-10 times a second; 50 splashes/s (1-6 ms bursts 2-14 kHz); a faint 150-500 Hz burble"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var bubbles = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        // The flow surges and eases a few times a second: bubbles come in bursts.
        let surge = ctx.wander(perMinute: 120...600, tilt: 0.4).map { Double($0) * 0.5 + 0.5 }
        for t in ctx.eventTimes(rate: 1_400) {
            guard ctx.rng.unit() < 0.35 + 0.65 * surge[t] else { continue }
            // Radii log-normal around 1.4 mm: most bubbles ring at 1-4 kHz, a few deep ones and many tiny ones.
            let f = min(9_000, max(500, 2_300 * SynthMath.exp(0.6 * ctx.rng.gaussian())))
            let q = ctx.rng.uniform(8...25)
            let decay = q / (SynthMath.pi * f)
            let grain = Grain.decayingSine(
                frequency: f, chirp: ctx.rng.uniform(0.05...0.4) / (decay * 3), decay: decay, sampleRate: sr,
                attack: 0.0003, phase: ctx.rng.unit())
            // Bigger bubbles are louder.
            let level = Float(SynthMath.pow(ctx.rng.unit(), 1.5) * SynthMath.pow(2_000 / f, 0.5))
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.8...0.8))
            Loop.add(grain, at: t, gain: level * l, into: &bubbles[0])
            Loop.add(grain, at: t, gain: level * r, into: &bubbles[1])
        }
        var splashes = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        for t in ctx.eventTimes(rate: 50) {
            var burst = Grain.noiseBurst(
                decay: ctx.rng.logUniform(0.0003...0.0015), attack: 0.0002, sampleRate: sr, rng: &ctx.rng)
            burst = Grain.filtered(
                burst, Biquad.bandPass(ctx.rng.logUniform(2_000...14_000), q: 0.8, sampleRate: sr))
            let level = Float(ctx.rng.unit() * (0.4 + 0.6 * surge[t]))
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.9...0.9))
            Loop.add(burst, at: t, gain: level * l, into: &splashes[0])
            Loop.add(burst, at: t, gain: level * r, into: &splashes[1])
        }
        let hisses = ctx.blend(common: ctx.noise(), left: ctx.noise(), right: ctx.noise(), correlation: 0.3)
        let hissShape = FilterChain([
            Biquad.highPass(400, sampleRate: sr), Biquad.highPass(400, sampleRate: sr),
            Biquad.highShelf(1_500, gainDB: -2, sampleRate: sr), Biquad.highShelf(6_000, gainDB: -4, sampleRate: sr),
            Biquad.lowPass(16_000, sampleRate: sr),
        ])
        return (0..<2).map { c in
            var out = Loop.normalizedRMS(bubbles[c])
            let flutter = Loop.exponentialMap(ctx.wander(perMinute: 120...600, tilt: 0.3), low: 0.5, high: 1)
            let hiss = Loop.normalizedRMS(Loop.filtered(hisses[c], hissShape))
            Loop.mix(Loop.modulated(hiss, by: flutter), gain: 0.6, into: &out)
            Loop.mix(Loop.normalizedRMS(splashes[c]), gain: 0.25, into: &out)
            let burble = Loop.normalizedRMS(
                Loop.filtered(
                    ctx.brownNoise(corner: 150),
                    FilterChain([Biquad.highPass(150, sampleRate: sr), Biquad.lowPass(500, sampleRate: sr)])))
            let burbleLevel = Loop.exponentialMap(ctx.wander(perMinute: 60...300), low: 0.3, high: 1)
            Loop.mix(Loop.modulated(burble, by: burbleLevel), gain: 0.12, into: &out)
            return out
        }
    }
}
