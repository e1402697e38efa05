import HumCore

/// Rain, a storm and wind.
enum WeatherRecipes {
    /// One raindrop: mostly a tiny tick of filtered noise, sometimes the rising "plink" of a bubble it makes.
    static func raindrop(_ ctx: inout RenderContext, plinkChance: Double, tickDecay: ClosedRange<Double>) -> [Float] {
        let sr = ctx.sampleRate
        var tick = Grain.noiseBurst(decay: ctx.rng.logUniform(tickDecay), sampleRate: sr, rng: &ctx.rng)
        tick = Grain.filtered(tick, Biquad.bandPass(ctx.rng.logUniform(1_800...7_000), q: 0.9, sampleRate: sr))
        guard ctx.rng.unit() < plinkChance else { return tick }
        let decay = ctx.rng.uniform(0.003...0.009)
        var plink = Grain.decayingSine(
            frequency: ctx.rng.logUniform(1_400...4_500),
            chirp: ctx.rng.uniform(0.2...0.8) / decay, decay: decay, sampleRate: sr)
        for i in 0..<min(tick.count, plink.count) { plink[i] += tick[i] * 0.7 }
        return plink
    }

    /// Scatters `rate` drops a second over both channels, each at its own place in the stereo field.
    static func drops(
        _ ctx: inout RenderContext, rate: Double, plinkChance: Double,
        tickDecay: ClosedRange<Double>
    ) -> [[Float]] {
        var left = [Float](repeating: 0, count: ctx.frames)
        var right = left
        for t in ctx.eventTimes(rate: rate) {
            let drop = raindrop(&ctx, plinkChance: plinkChance, tickDecay: tickDecay)
            // Many faint drops, few loud ones.
            let level = Float(SynthMath.pow(ctx.rng.unit(), 2.2))
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.9...0.9))
            Loop.add(drop, at: t, gain: level * l, into: &left)
            Loop.add(drop, at: t, gain: level * r, into: &right)
        }
        return [left, right]
    }

    /// The wash of countless distant drops: band-limited noise, its intensity drifting slowly.
    static func rainBed(_ ctx: inout RenderContext, low: Double, high: Double, body: Double) -> [[Float]] {
        let sr = ctx.sampleRate
        let shape = FilterChain([
            Biquad.highPass(low, sampleRate: sr), Biquad.lowPass(high, sampleRate: sr),
            Biquad.peak(body, q: 0.7, gainDB: 3, sampleRate: sr),
        ])
        let intensity = Loop.exponentialMap(ctx.wander(perMinute: 2...8), low: 0.8, high: 1.2)
        let common = ctx.pinkNoise()
        let a = ctx.pinkNoise()
        let b = ctx.pinkNoise()
        return ctx.blend(common: common, left: a, right: b, correlation: 0.3).map {
            Loop.modulated(Loop.normalizedRMS(Loop.filtered($0, shape)), by: intensity)
        }
    }

    /// Rain on ground and leaves (rain/2), held to Blanket's and Moodist's rain recordings: a broadband wash
    /// with body below 250 Hz and air up to 15 kHz (Blanket's ⅓-octave levels stay within about 10 dB from 31 Hz to
    /// 16 kHz, highest at 8-12 kHz; Moodist's light rain has 26 dB less at 100 Hz; hum's body sits between, 13 dB
    /// under the top, which also keeps it 5.7 dB from pink noise), drops as fine streaks rather than separate events
    /// (0.1-0.2 onsets a second stand 10 dB over the wash there; kurtosis above 1 kHz 9-12), and no pitched bubbles
    /// at all (0.00-0.01 plinks a second).
    static let rain = SoundRecipe(
        id: "rain", title: "Light rain", category: "weather",
        description: "Steady rain on leaves and ground: a soft, full wash with fine drops pattering all around.",
        seconds: 45, channels: 2, seed: 0x5241_494E_01,
        recipe:
            "rain/2: pink-noise wash 25 Hz-17 kHz (-6 dB under 400 Hz, +3 dB over 5 kHz, -3 dB at 4.8 kHz, +4 dB at "
            + "11 kHz; L/R 10% correlated, intensity drifting ±1.6 dB) + 500 drops/s (noise ticks 0.1-0.5 ms "
            + "band-passed 3.5-14 kHz, their own noise on each side, no plinks), panned at random"
    ) { ctx in
        let sr = ctx.sampleRate
        let shape = FilterChain([
            Biquad.highPass(25, sampleRate: sr), Biquad.lowShelf(400, gainDB: -6, sampleRate: sr),
            Biquad.highShelf(5_000, gainDB: 3, sampleRate: sr), Biquad.peak(4_800, q: 1.2, gainDB: -3, sampleRate: sr),
            Biquad.peak(11_000, q: 1, gainDB: 4, sampleRate: sr), Biquad.lowPass(17_000, q: 0.6, sampleRate: sr),
        ])
        let intensity = Loop.exponentialMap(ctx.wander(perMinute: 2...8), low: 0.83, high: 1.2)
        let wash = ctx.blend(
            common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.1
        ).map { Loop.modulated(Loop.normalizedRMS(Loop.filtered($0, shape)), by: intensity) }
        var left = [Float](repeating: 0, count: ctx.frames)
        var right = left
        for t in ctx.eventTimes(rate: 500) {
            // Two microphones a little apart hear a drop's tick each its own way: its own noise on each side, the
            // same decay and colour, the level by where it falls.
            let decay = ctx.rng.logUniform(0.000_1...0.000_5)
            let band = Biquad.bandPass(ctx.rng.logUniform(3_500...14_000), q: 0.8, sampleRate: sr)
            let ticks = (0..<2).map { _ in
                Grain.filtered(Grain.noiseBurst(decay: decay, sampleRate: sr, rng: &ctx.rng), band)
            }
            // Many faint drops, few loud ones, none loud enough to stand out of the wash as an event.
            let level = Float(0.1 + 0.9 * SynthMath.pow(ctx.rng.unit(), 3))
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.9...0.9))
            Loop.add(ticks[0], at: t, gain: level * l, into: &left)
            Loop.add(ticks[1], at: t, gain: level * r, into: &right)
        }
        let drops = [left, right]
        return (0..<2).map { c in
            var out = wash[c]
            Loop.mix(Loop.modulated(Loop.normalizedRMS(drops[c]), by: intensity), gain: 0.7, into: &out)
            return out
        }
    }

    /// A storm: the low roar of heavy rain on roofs and ground swelling with the gusts (in Blanket's recording most of
    /// the power is under 1 kHz) and the hiss of the downpour close by over it; thunder rolls in now and then as
    /// events, drawn from the thunder's strokes.
    static let storm = SoundRecipe(
        id: "storm", title: "Storm", category: "weather",
        description: "Heavy rain pouring down in gusts, with thunder rolling in the distance now and then.",
        seconds: 60, channels: 2, seed: 0x5354_4F52_4D02,
        recipe:
            "storm/3: pink-noise hiss 1.2-7 kHz with 3.5 kHz body + brown-noise roar < 300 Hz (as loud) swelling "
            + "±3 dB with gusts (4-12 a minute) + 400 drops/s; events: thunder/2's strokes, 24 an hour",
        events: .borrowing("thunder", perHour: 24, minGapSeconds: 30, gainDB: -10...(-2), pan: -0.5...0.5)
    ) { ctx in
        let sr = ctx.sampleRate
        let bed = rainBed(&ctx, low: 1_200, high: 7_000, body: 3_500)
        let gusts = Loop.exponentialMap(ctx.wander(perMinute: 4...12), low: 0.7, high: 1.4)
        let roars = ctx.blend(
            common: ctx.brownNoise(corner: 60), left: ctx.brownNoise(corner: 60), right: ctx.brownNoise(corner: 60),
            correlation: 0.5)
        let roar = roars.map {
            Loop.modulated(Loop.normalizedRMS(Loop.filtered($0, Biquad.lowPass(300, sampleRate: sr))), by: gusts)
        }
        let drops = drops(&ctx, rate: 400, plinkChance: 0.15, tickDecay: 0.0008...0.003)
        return (0..<2).map { c in
            var mix = Loop.scaled(bed[c], 0.9)
            Loop.mix(roar[c], gain: 0.9, into: &mix)
            Loop.mix(Loop.normalizedRMS(drops[c]), gain: 0.3, into: &mix)
            return mix
        }
    }

    static let wind = SoundRecipe(
        id: "wind", title: "Wind", category: "weather",
        description: "Wind in gusts: swelling and easing, a low rush with the odd whistle at its height.",
        seconds: 60, channels: 2, seed: 0x5749_4E44_01,
        recipe:
            "wind/1: pink noise through a band-pass swept 220-900 Hz by gusts (3-12 a minute), level following the "
            + "gusts over 14 dB, brown rumble < 120 Hz, a Q-14 whistle 700-1400 Hz in the strongest gusts, leaf "
            + "rustle > 3 kHz"
    ) { ctx in
        let sr = ctx.sampleRate
        let gust = ctx.wander(perMinute: 3...12)
        let whistleSweep = Loop.exponentialMap(ctx.wander(perMinute: 4...16), low: 700, high: 1_400)
        var channels: [[Float]] = []
        let sources = ctx.blend(
            common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.5)
        let rumbles = ctx.blend(
            common: ctx.brownNoise(), left: ctx.brownNoise(), right: ctx.brownNoise(), correlation: 0.7)
        for c in 0..<2 {
            // Each side feels the gust a little differently.
            let own = ctx.wander(perMinute: 4...14)
            let g = (0..<ctx.frames).map { min(1, max(-1, 0.8 * gust[$0] + 0.3 * own[$0])) }
            let cutoff = Loop.exponentialMap(g, low: 220, high: 900)
            let level = Loop.exponentialMap(g, low: 0.2, high: 1)
            let source = Loop.normalizedRMS(sources[c])
            let band = Loop.filteredVarying(source, sampleRate: sr) { f, x, i in
                f.process(x, cutoff: Double(cutoff[i]), q: 0.9).bandPass
            }
            var out = Loop.modulated(Loop.normalizedRMS(band), by: level)
            let rumble = Loop.normalizedRMS(Loop.filtered(rumbles[c], Biquad.lowPass(120, sampleRate: sr)))
            Loop.mix(Loop.modulated(rumble, by: Loop.exponentialMap(g, low: 0.4, high: 0.9)), gain: 0.5, into: &out)
            let whistle = Loop.normalizedRMS(
                Loop.filteredVarying(source, sampleRate: sr) { f, x, i in
                    f.process(x, cutoff: Double(whistleSweep[i]), q: 14).bandPass
                })
            let strong = g.map { Float(SynthMath.pow(Double(max(0, $0)), 3)) }
            Loop.mix(Loop.modulated(whistle, by: strong), gain: 0.25, into: &out)
            let rustle = Loop.normalizedRMS(Loop.filtered(ctx.noise(), Biquad.highPass(3_000, sampleRate: sr)))
            Loop.mix(Loop.modulated(rustle, by: strong), gain: 0.08, into: &out)
            channels.append(out)
        }
        return channels
    }
}
