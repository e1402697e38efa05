import HumCore

/// A small wooden boat at its mooring, water lapping at the hull.
///
/// Small waves reach the hull every few seconds, irregularly: each slaps it (a splash of broken water, 300 Hz to
/// 10 kHz, a few bubbles ringing in it), knocks the hollow hull into a low ring and falls back in drops. Between
/// slaps the water sloshes and trickles along the planks, and now and then the wood or a rope creaks as the boat
/// rolls. Blanket's recording as the yardstick: a broad, flat spectrum (centroid 1.9 kHz, roll-off 4.6 kHz),
/// slaps 0.3-1 s long every 2-7 s.
enum BoatRecipes {
    /// A creak: wood or rope rubbing, stick-slip friction, a train of small slips at 40-110 Hz (gliding as the
    /// load changes, each slip jittered) through the resonances of the plank.
    static func creak(_ ctx: inout RenderContext) -> [Float] {
        let sr = ctx.sampleRate
        let seconds = ctx.rng.uniform(0.35...1.1)
        let length = Int(seconds * sr)
        var pulses = [Float](repeating: 0, count: length)
        let from = ctx.rng.uniform(40...110)
        let to = from * ctx.rng.uniform(0.7...1.4)
        var t = 0.0
        while t < seconds {
            let x = t / seconds
            let i = Int(t * sr)
            if i < length { pulses[i] = Float(SynthMath.sin(SynthMath.pi * x)) * Float(ctx.rng.uniform(0.6...1)) }
            t += 1 / (from + (to - from) * x) * ctx.rng.uniform(0.85...1.15)
        }
        return Grain.filtered(
            pulses,
            FilterChain([
                Biquad.bandPass(ctx.rng.uniform(500...800), q: 4, sampleRate: sr),
                Biquad.peak(ctx.rng.uniform(1_300...2_000), q: 3, gainDB: 10, sampleRate: sr),
            ]))
    }

    static let boat = SoundRecipe(
        id: "boat", title: "Boat at the mooring", category: "water",
        description: "A wooden boat moored in a calm harbour: water lapping and slapping at the hull, the odd creak.",
        seconds: 60, channels: 2, seed: 0x424F_4154_01,
        recipe:
            "boat/1: slaps 1.2-6 s apart (gamma, mean 2.6 s), some doubled 0.2-0.5 s later: splashes (noise 300 Hz-7 "
            + "kHz, +8 dB at 0.7-2 kHz, 20-60 ms rise, 0.12-0.4 s fall) with 2-6 bubbles (600 Hz-3 kHz) and "
            + "falling drops, each knocking the hull (90-170 Hz, 0.12 s); slosh (noise < 900 Hz following the swell, "
            + "3-5 s); trickle (40 bubbles/s); a creak (40-110 Hz slips through 500-800 Hz and 1.3-2 kHz "
            + "resonances) every 12 s or so; harbour wash 150 Hz-2 kHz; a rumble < 150 Hz rolling with the swell; peaks held 20 dB over the loudness"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var out = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        func place(_ grain: [Float], at t: Int, level: Double, pan: Double) {
            let (l, r) = ctx.pan(pan)
            Loop.add(grain, at: t, gain: Float(level) * l, into: &out[0])
            Loop.add(grain, at: t, gain: Float(level) * r, into: &out[1])
        }
        // The swell: the boat rolls on a 3-5 s swell; slaps come more often and harder on its crests.
        let swellCycles = max(1, Int((ctx.seconds / 4).rounded()))
        let swell = Loop.sine(frames: n, cycles: swellCycles, phase: ctx.rng.unit())
        var time = ctx.rng.uniform(0...1)
        while time < ctx.seconds - 0.5 {
            let at = Int(time * sr)
            let size = ctx.rng.uniform(0.4...1) * (0.75 + 0.25 * Double(swell[at]))
            let side = ctx.rng.uniform(-0.6...0.6)
            for (offset, gain) in ctx.rng.unit() < 0.3 ? [(0.0, 1.0), (ctx.rng.uniform(0.2...0.5), 0.5)] : [(0.0, 1.0)]
            {
                let start = at + Int(offset * sr)
                let rise = ctx.rng.uniform(0.02...0.06)
                let fall = ctx.rng.uniform(0.12...0.4)
                var splash = Grain.noiseBurst(decay: fall, attack: rise, sampleRate: sr, rng: &ctx.rng)
                splash = Grain.filtered(
                    splash,
                    FilterChain([
                        Biquad.highPass(300, sampleRate: sr),
                        Biquad.lowPass(ctx.rng.uniform(4_000...7_000), sampleRate: sr),
                        Biquad.peak(ctx.rng.logUniform(700...2_000), q: 0.8, gainDB: 8, sampleRate: sr),
                    ]))
                place(splash, at: start, level: size * gain, pan: side)
                for _ in 0..<Int(ctx.rng.uniform(2...6.99)) {
                    let f = ctx.rng.logUniform(600...3_000)
                    let decay = ctx.rng.uniform(8...20) / (SynthMath.pi * f)
                    let bubble = Grain.decayingSine(
                        frequency: f, chirp: ctx.rng.uniform(0.1...0.4) / (decay * 3), decay: decay, sampleRate: sr,
                        attack: 0.0005)
                    place(
                        bubble, at: start + Int(ctx.rng.uniform(0.01...0.2) * sr),
                        level: size * gain * ctx.rng.uniform(0.5...2),
                        pan: side + ctx.rng.uniform(-0.2...0.2))
                }
                // Drops falling back.
                for _ in 0..<Int(ctx.rng.uniform(3...10)) {
                    var drop = Grain.noiseBurst(
                        decay: ctx.rng.uniform(0.0005...0.002), sampleRate: sr, rng: &ctx.rng)
                    drop = Grain.filtered(
                        drop, Biquad.bandPass(ctx.rng.logUniform(2_000...8_000), q: 1.2, sampleRate: sr))
                    place(
                        drop, at: start + Int(ctx.rng.uniform(0.15...0.7) * sr),
                        level: size * gain * ctx.rng.uniform(1...4),
                        pan: side + ctx.rng.uniform(-0.4...0.4))
                }
                // The hull answers: a hollow knock.
                let knock = Grain.decayingSine(
                    frequency: ctx.rng.uniform(90...170), decay: ctx.rng.uniform(0.03...0.06), sampleRate: sr,
                    attack: 0.004, phase: ctx.rng.unit())
                place(knock, at: start + Int(rise * sr), level: size * gain * 0.5, pan: side * 0.3)
            }
            let gap = (ctx.rng.exponential(mean: 1) + ctx.rng.exponential(mean: 1)) / 2 * 2.6
            time += min(6, max(1.2, gap))
        }
        // Creaks as the boat rolls.
        for t in ctx.eventTimes(rate: 1.0 / 12) {
            place(creak(&ctx), at: t, level: ctx.rng.uniform(0.15...0.35), pan: ctx.rng.uniform(-0.3...0.3))
        }
        // The trickle along the planks: sparse small bubbles.
        var trickle = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        for t in ctx.eventTimes(rate: 40) {
            let f = ctx.rng.logUniform(900...4_000)
            let decay = ctx.rng.uniform(8...20) / (SynthMath.pi * f)
            let bubble = Grain.decayingSine(
                frequency: f, chirp: ctx.rng.uniform(0.1...0.4) / (decay * 3), decay: decay, sampleRate: sr,
                attack: 0.0005)
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.8...0.8))
            let level = Float(ctx.rng.unit() * (0.6 + 0.4 * Double(swell[t])))
            Loop.add(bubble, at: t, gain: level * l, into: &trickle[0])
            Loop.add(bubble, at: t, gain: level * r, into: &trickle[1])
        }
        let sloshes = ctx.blend(common: ctx.noise(), left: ctx.noise(), right: ctx.noise(), correlation: 0.4)
        let washes = ctx.blend(
            common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.3)
        let rumbles = ctx.blend(
            common: ctx.brownNoise(corner: 60), left: ctx.brownNoise(corner: 60),
            right: ctx.brownNoise(corner: 60), correlation: 0.7)
        let rolling = swell.map { 0.45 + 0.55 * (0.5 + 0.5 * $0) * (0.5 + 0.5 * $0) }
        // (At least a floor: a loop too short for a slap still gets its water.)
        let outRMS = max(1e-4, out.map { Loop.rms($0) }.reduce(0, +) / 2)
        let mixed = (0..<2).map { c in
            var mix = out[c]
            let slosh = Loop.filtered(
                sloshes[c], FilterChain([Biquad.lowPass(900, sampleRate: sr), Biquad.highPass(80, sampleRate: sr)]))
            Loop.mix(
                Loop.modulated(Loop.normalizedRMS(slosh), by: rolling), gain: Float(outRMS * 0.6), into: &mix)
            Loop.mix(Loop.normalizedRMS(trickle[c]), gain: Float(outRMS * 0.3), into: &mix)
            let wash = Loop.filtered(
                washes[c], FilterChain([Biquad.highPass(150, sampleRate: sr), Biquad.lowPass(2_000, sampleRate: sr)]))
            Loop.mix(Loop.normalizedRMS(wash), gain: Float(outRMS * 0.25), into: &mix)
            // The water moving under the hull: a low, rolling rumble.
            let under = Loop.filtered(
                rumbles[c], FilterChain([Biquad.lowPass(150, sampleRate: sr), Biquad.highPass(30, sampleRate: sr)]))
            Loop.mix(
                Loop.modulated(Loop.normalizedRMS(under), by: rolling), gain: Float(outRMS * 0.5), into: &mix)
            return mix
        }
        return Loop.holdingPeaks(mixed, headroom: 20, sampleRate: sr)
    }
}
