import HumCore

/// A fire in the hearth.
///
/// Measured on real fireplaces (Blanket's and Moodist's recordings), a wood fire is bright: its power centroid sits
/// at 3.9-5.3 kHz, with as much power above 2 kHz as below 500 Hz, from crackles: steam and gas bursting out of the
/// wood, each a click of a fraction of a millisecond reaching 15 kHz. Their sizes are heavy-tailed: many faint ticks
/// (20-35 a second stand 6 dB over the background), few loud ones (one to four a second 20 dB over). Under them, a
/// soft flickering roar of the flames and a fizz of sap.
enum FireRecipes {
    /// One crackle: one to four clicks within a few milliseconds, each a burst of noise dying in tens of
    /// microseconds through a resonance between 2.5 and 12 kHz.
    static func crackle(_ ctx: inout RenderContext, clicks: Int) -> [Float] {
        let sr = ctx.sampleRate
        var out = [Float](repeating: 0, count: Int(0.01 * sr))
        var at = 0
        for _ in 0..<clicks {
            var click = Grain.noiseBurst(
                decay: ctx.rng.logUniform(0.00003...0.0002), attack: 0.00001, sampleRate: sr, rng: &ctx.rng)
            click = Grain.filtered(
                click,
                FilterChain([
                    Biquad.highPass(2_500, sampleRate: sr),
                    Biquad.peak(ctx.rng.logUniform(4_000...14_000), q: 1.5, gainDB: 8, sampleRate: sr),
                    Biquad.lowPass(15_000, sampleRate: sr),
                ]))
            let gain = Float(ctx.rng.uniform(0.4...1))
            for (i, v) in click.enumerated() where at + i < out.count { out[at + i] += v * gain }
            at += Int(ctx.rng.uniform(0.0003...0.003) * sr)
            if at >= out.count { break }
        }
        return out
    }

    static let fire = SoundRecipe(
        id: "fire", title: "Fireplace", category: "fire",
        description: "A wood fire close by: bright crackles and snaps over the soft flicker of the flames.",
        seconds: 45, channels: 2, seed: 0x4649_5245_02,
        recipe:
            "fire/2: crackles (1-4 clicks of 30-200 µs noise through 4-14 kHz resonances) at 40/s in bursts, sizes "
            + "exponential in dB (mean 6 dB, up to 30), big ones spraying small ones; a pop every 4 s (a 150-400 "
            + "Hz knock, a snap, a sizzle); 1500/s sap ticks > 4 kHz; flickering roar 35-150 Hz 1 dB under the "
            + "crackles; peaks soft-clipped 20 dB over the loudness"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var crackles = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        // Crackling comes and goes with how the fire draws: a slowly wandering activity thins the events.
        let activity = ctx.wander(perMinute: 6...40, tilt: 0.7).map { Double($0) * 0.5 + 0.5 }
        func place(_ grain: [Float], at t: Int, level: Double, pan: (left: Float, right: Float)) {
            Loop.add(grain, at: t, gain: Float(level) * pan.left, into: &crackles[0])
            Loop.add(grain, at: t, gain: Float(level) * pan.right, into: &crackles[1])
        }
        for t in ctx.eventTimes(rate: 16) {
            guard ctx.rng.unit() < 0.3 + 0.7 * activity[t] else { continue }
            // Sizes heavy-tailed as measured: the count halves every 4 dB or so (exponential in dB).
            let db = min(30, ctx.rng.exponential(mean: 6))
            let pan = ctx.pan(ctx.rng.uniform(-0.7...0.7))
            place(
                crackle(&ctx, clicks: 1 + Int(ctx.rng.unit() * (1 + db / 10))), at: t,
                level: SynthMath.amplitude(dB: db), pan: pan)
            // A big one sends out a spray of small ones.
            if db > 16 {
                var at = t
                for _ in 0..<Int(ctx.rng.uniform(1...5)) {
                    at += Int(ctx.rng.logUniform(0.004...0.06) * sr)
                    place(crackle(&ctx, clicks: 1), at: at, level: ctx.rng.uniform(1...4), pan: pan)
                }
            }
        }
        // Pops: a pocket of steam bursting, a knock of the log under a sharp snap, then a sizzle.
        for t in ctx.eventTimes(rate: 0.25) {
            let pan = ctx.pan(ctx.rng.uniform(-0.5...0.5))
            let level = ctx.rng.uniform(0.5...1)
            let knock = Grain.decayingSine(
                frequency: ctx.rng.logUniform(150...400), decay: ctx.rng.uniform(0.004...0.01), sampleRate: sr,
                attack: 0.0003, phase: ctx.rng.unit())
            place(knock, at: t, level: level * 0.25, pan: pan)
            place(crackle(&ctx, clicks: 4), at: t, level: level * 25, pan: pan)
            var at = t
            for _ in 0..<Int(ctx.rng.uniform(4...14)) {
                at += Int(ctx.rng.logUniform(0.003...0.05) * sr)
                place(crackle(&ctx, clicks: 1), at: at, level: level * ctx.rng.uniform(1...5), pan: pan)
            }
        }
        // Sap ticks: a dense fizz of tiny clicks, high up.
        var fizz = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        let tick = FilterChain([Biquad.highPass(5_000, sampleRate: sr), Biquad.highPass(5_000, sampleRate: sr)])
        for t in ctx.eventTimes(rate: 8_000) {
            var grain = Grain.noiseBurst(decay: 0.00005, attack: 0.00001, sampleRate: sr, rng: &ctx.rng)
            grain = Grain.filtered(grain, tick)
            let level = Float(ctx.rng.unit() * ctx.rng.unit() * (0.3 + 0.7 * activity[t]))
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.8...0.8))
            Loop.add(grain, at: t, gain: level * l, into: &fizz[0])
            Loop.add(grain, at: t, gain: level * r, into: &fizz[1])
        }
        // Heavy tails, within what a file at the reference level can hold (true peaks under -1 dBTP at -23 LUFS):
        // the loudest snaps are rounded off by a soft clip 22 dB over the crackles' RMS (a click only gets a little
        // more broadband by it, which no one hears), instead of the mastering limiter turning the whole fire down
        // around them.
        for _ in 0..<3 {
            let ceiling = SynthMath.amplitude(dB: 21) * crackles.map { Loop.rms($0) }.reduce(0, +) / 2
            crackles = crackles.map { Loop.softClipped($0, ceiling: ceiling) }
        }
        let crackleRMS = max(1e-4, crackles.map { Loop.rms($0) }.reduce(0, +) / 2)
        let roars = ctx.blend(
            common: ctx.brownNoise(corner: 50), left: ctx.brownNoise(corner: 50),
            right: ctx.brownNoise(corner: 50), correlation: 0.7)
        var out = (0..<2).map { c in
            var out = Loop.scaled(crackles[c], Float(1 / crackleRMS))
            Loop.mix(Loop.normalizedRMS(fizz[c]), gain: 0.6, into: &out)
            let flicker = Loop.exponentialMap(ctx.wander(perMinute: 30...240, tilt: 0.6), low: 0.5, high: 1)
            let roar = Loop.normalizedRMS(
                Loop.filtered(
                    roars[c],
                    FilterChain([Biquad.lowPass(150, sampleRate: sr), Biquad.highPass(35, sampleRate: sr)])))
            Loop.mix(Loop.modulated(roar, by: flicker), gain: 0.9, into: &out)
            return out
        }
        // What two crackles or a crackle on a flicker of the roar add up to is held too, 20 dB over the loudness.
        out = Loop.holdingPeaks(out, headroom: 20, sampleRate: sr)
        return out
    }
}
