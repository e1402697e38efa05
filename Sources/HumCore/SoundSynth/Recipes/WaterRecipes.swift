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

    static let stream = SoundRecipe(
        id: "stream", title: "Stream", category: "water",
        description: "A brook babbling over stones: quick bubbling and gurgling close by.",
        seconds: 40, channels: 2, seed: 0x5354_5245_414D,
        recipe:
            "stream/1: 260 bubbles/s (sines 350-2200 Hz rising 15-50% over their 2-12 ms decay, smaller bubbles higher and shorter) + noise through a band-pass wandering 300-1500 Hz a few times a second + brown gurgle < 400 Hz"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var bubbles = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        for t in ctx.eventTimes(rate: 260) {
            let f = ctx.rng.logUniform(350...2_200)
            let decay = min(0.012, max(0.002, 0.009 * SynthMath.pow(600 / f, 0.8) * ctx.rng.uniform(0.7...1.3)))
            let grain = Grain.decayingSine(
                frequency: f, chirp: ctx.rng.uniform(0.15...0.5) / decay, decay: decay,
                sampleRate: sr, attack: 0.001)
            let level = Float(SynthMath.pow(ctx.rng.unit(), 1.6))
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.8...0.8))
            Loop.add(grain, at: t, gain: level * l, into: &bubbles[0])
            Loop.add(grain, at: t, gain: level * r, into: &bubbles[1])
        }
        return (0..<2).map { c in
            let sweep = Loop.exponentialMap(ctx.wander(perMinute: 60...420, tilt: 0.5), low: 300, high: 1_500)
            let level = Loop.exponentialMap(ctx.wander(perMinute: 60...300, tilt: 0.5), low: 0.35, high: 1)
            let rush = Loop.filteredVarying(ctx.noise(), sampleRate: sr) { f, x, i in
                f.process(x, cutoff: Double(sweep[i]), q: 1.2).bandPass
            }
            var out = Loop.scaled(Loop.normalizedRMS(bubbles[c]), 0.6)
            Loop.mix(Loop.modulated(Loop.normalizedRMS(rush), by: level), gain: 0.45, into: &out)
            let gurgle = Loop.normalizedRMS(
                Loop.filtered(ctx.brownNoise(corner: 80), Biquad.lowPass(400, sampleRate: sr)))
            let gurgleLevel = Loop.exponentialMap(ctx.wander(perMinute: 30...200), low: 0.3, high: 1)
            Loop.mix(Loop.modulated(gurgle, by: gurgleLevel), gain: 0.3, into: &out)
            return out
        }
    }
}
