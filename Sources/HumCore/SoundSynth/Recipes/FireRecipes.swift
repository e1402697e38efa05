/// A fire in the hearth.
enum FireRecipes {
    static let fire = SoundRecipe(
        id: "fire", title: "Fireplace", category: "fire",
        description: "A wood fire: a low flickering roar, crackles coming in bursts, the odd pop of a log.",
        seconds: 45, channels: 2, seed: 0x4649_5245_01,
        recipe:
            "fire/1: brown-noise roar < 450 Hz and a pink breath around 700 Hz flickering 0.5-4 Hz, faint hiss > 3 kHz, crackles (0.5-5 ms noise bursts band-passed 1.2-6 kHz, some with 2-6 sizzling followers) at up to 16/s in bursts, 12% pops (150-600 Hz knocks)"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var crackles = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        // Crackling comes in bursts: thin the events by a slowly wandering activity.
        let activity = ctx.wander(perMinute: 6...40, tilt: 0.7).map { Double($0) * 0.5 + 0.5 }
        func crackle(_ ctx: inout RenderContext, at t: Int, level: Float, pan: (left: Float, right: Float)) {
            var burst = Grain.noiseBurst(
                decay: ctx.rng.logUniform(0.0005...0.005), attack: 0.0001, sampleRate: sr, rng: &ctx.rng)
            burst = Grain.filtered(burst, Biquad.bandPass(ctx.rng.logUniform(1_200...6_000), q: 0.8, sampleRate: sr))
            Loop.add(burst, at: t, gain: level * pan.left, into: &crackles[0])
            Loop.add(burst, at: t, gain: level * pan.right, into: &crackles[1])
        }
        for t in ctx.eventTimes(rate: 16) {
            guard ctx.rng.unit() < 0.1 + 0.9 * activity[t] * activity[t] else { continue }
            let level = Float(SynthMath.pow(ctx.rng.unit(), 1.8))
            let pan = ctx.pan(ctx.rng.uniform(-0.6...0.6))
            if ctx.rng.unit() < 0.12 {
                let knock = Grain.decayingSine(
                    frequency: ctx.rng.logUniform(150...600), decay: ctx.rng.uniform(0.008...0.025),
                    sampleRate: sr, attack: 0.0002)
                Loop.add(knock, at: t, gain: level * 0.7 * pan.left, into: &crackles[0])
                Loop.add(knock, at: t, gain: level * 0.7 * pan.right, into: &crackles[1])
            }
            crackle(&ctx, at: t, level: level, pan: pan)
            if ctx.rng.unit() < 0.35 {
                var at = t
                for _ in 0..<Int(ctx.rng.uniform(2...6.99)) {
                    at += Int(ctx.rng.uniform(0.005...0.04) * sr)
                    crackle(&ctx, at: at, level: level * Float(ctx.rng.uniform(0.2...0.7)), pan: pan)
                }
            }
        }
        let roars = ctx.blend(
            common: ctx.brownNoise(corner: 40), left: ctx.brownNoise(corner: 40),
            right: ctx.brownNoise(corner: 40), correlation: 0.7)
        return (0..<2).map { c in
            let flicker = Loop.exponentialMap(ctx.wander(perMinute: 30...240, tilt: 0.6), low: 0.45, high: 1)
            let roar = Loop.normalizedRMS(Loop.filtered(roars[c], Biquad.lowPass(450, sampleRate: sr)))
            var out = Loop.modulated(roar, by: flicker)
            // The breath of the flames: a soft band of noise around 700 Hz, flickering with the roar.
            let breath = Loop.normalizedRMS(
                Loop.filtered(ctx.pinkNoise(), Biquad.bandPass(700, q: 0.6, sampleRate: sr)))
            Loop.mix(Loop.modulated(breath, by: flicker), gain: 0.25, into: &out)
            Loop.mix(Loop.normalizedRMS(crackles[c]), gain: 0.45, into: &out)
            let hiss = Loop.normalizedRMS(Loop.filtered(ctx.noise(), Biquad.highPass(3_000, sampleRate: sr)))
            Loop.mix(Loop.modulated(hiss, by: flicker), gain: 0.04, into: &out)
            return out
        }
    }
}
