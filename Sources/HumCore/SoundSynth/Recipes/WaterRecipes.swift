/// The sea and a stream.
enum WaterRecipes {
    static let waves = SoundRecipe(
        id: "waves", title: "Ocean waves", category: "water",
        description: "Waves rolling onto a beach every ten seconds or so: swell, break, and the hiss of the wash.",
        seconds: 60, channels: 2, seed: 0x5741_5645_01,
        recipe:
            "waves/1: 6 waves a loop (9-11 s apart) each swelling 2.5-3.5 s then washing out (1.4-2 s decay constant); white noise through a low-pass swept 250 Hz-7 kHz by each wave, foam hiss > 2 kHz lingering after the break, brown surf rumble < 200 Hz"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        let count = max(1, Int((ctx.seconds / 10).rounded()))
        var level = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        var brightness = [Float](repeating: 0, count: n)
        var foam = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        for k in 0..<count {
            let start = Int((Double(k) + ctx.rng.uniform(-0.15...0.15)) * Double(n) / Double(count))
            let size = Float(ctx.rng.uniform(0.6...1))
            let attack = ctx.rng.uniform(2.5...3.5)
            let body = Grain.envelope(attack: attack, hold: 0.3, decay: ctx.rng.uniform(1.4...2), sampleRate: sr)
            let crest = Grain.envelope(attack: attack + 0.2, decay: 0.8, sampleRate: sr)
            let wash = Grain.envelope(attack: attack + 1, decay: ctx.rng.uniform(1.8...2.6), sampleRate: sr)
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.5...0.5))
            Loop.add(body, at: start, gain: size * l, into: &level[0])
            Loop.add(body, at: start, gain: size * r, into: &level[1])
            Loop.add(crest, at: start, gain: size, into: &brightness)
            Loop.add(wash, at: start, gain: size * l, into: &foam[0])
            Loop.add(wash, at: start, gain: size * r, into: &foam[1])
        }
        let cutoff = brightness.map { Double(250 * SynthMath.pow(28, Double(min($0, 1)))) }
        let sources = ctx.blend(common: ctx.noise(), left: ctx.noise(), right: ctx.noise(), correlation: 0.4)
        let rumbles = ctx.blend(
            common: ctx.brownNoise(), left: ctx.brownNoise(), right: ctx.brownNoise(), correlation: 0.6)
        return (0..<2).map { c in
            let swept = Loop.filteredVarying(sources[c], sampleRate: sr) { f, x, i in
                f.process(x, cutoff: cutoff[i], q: 0.6).lowPass
            }
            var out = Loop.modulated(Loop.normalizedRMS(swept), by: level[c].map { 0.04 + $0 })
            let fizz = Loop.normalizedRMS(Loop.filtered(ctx.noise(), Biquad.highPass(2_000, sampleRate: sr)))
            Loop.mix(Loop.modulated(fizz, by: foam[c]), gain: 0.12, into: &out)
            let rumble = Loop.normalizedRMS(Loop.filtered(rumbles[c], Biquad.lowPass(200, sampleRate: sr)))
            Loop.mix(rumble, gain: 0.35, into: &out)
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
            "stream/2: 1400 bubbles/s (Minnaert resonances 500 Hz-8 kHz, most 1-3 kHz, Q 8-25, rising 5-40%), gurgling in bursts; surface hiss (noise > 400 Hz, -2 dB/octave above 1.5 kHz to 16 kHz) swelling 2-10 times a second; 50 splashes/s (1-6 ms bursts 2-14 kHz); a faint 150-500 Hz burble"
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
