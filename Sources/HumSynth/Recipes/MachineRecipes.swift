import HumCore

/// Steady machines: a fan, a train, an aeroplane cabin.
enum MachineRecipes {
    /// A frequency rounded to a whole number of cycles per loop, so a steady tone repeats seamlessly.
    static func loopCycles(_ frequency: Double, _ ctx: RenderContext) -> Int {
        max(1, Int((frequency * ctx.seconds).rounded()))
    }

    /// A fan's air: blade and air turbulence, broadband from about 100 Hz with the most around 400-800 Hz and a
    /// gentle fall above 3 kHz (Moodist's ceiling fan: nothing much under 100 Hz, flat to 10 kHz within 10 dB), a
    /// faint pulse at the blade rate and the motor's hum.
    static let fan = SoundRecipe(
        id: "fan", title: "Fan", category: "machine",
        description: "A desk fan or air conditioner: a steady airy whoosh over a faint motor hum.",
        seconds: 30, channels: 1, seed: 0x4641_4E02,
        recipe:
            "fan/2: pink noise through a 100 Hz high-pass (24 dB/octave), +5 dB at 600 Hz and a 5 kHz low-pass, "
            + "pulsing 6% at the 95 Hz blade rate; hum at 95, 190 and 100 Hz; level wobbling ±0.3 dB"
    ) { ctx in
        let sr = ctx.sampleRate
        let shape = FilterChain([
            Biquad.highPass(100, sampleRate: sr), Biquad.highPass(100, sampleRate: sr),
            Biquad.peak(600, q: 0.7, gainDB: 5, sampleRate: sr), Biquad.lowPass(5_000, sampleRate: sr),
        ])
        var air = Loop.normalizedRMS(Loop.filtered(ctx.pinkNoise(), shape))
        let blade = loopCycles(95, ctx)
        let pulse = Loop.sine(frames: ctx.frames, cycles: blade)
        let wobble = ctx.wander(perMinute: 4...12)
        for i in air.indices { air[i] *= (1 + 0.06 * pulse[i]) * (1 + 0.035 * wobble[i]) }
        Loop.mix(pulse, gain: 0.05, into: &air)
        Loop.mix(Loop.sine(frames: ctx.frames, cycles: 2 * blade, phase: 0.3), gain: 0.025, into: &air)
        Loop.mix(Loop.sine(frames: ctx.frames, cycles: loopCycles(100, ctx), phase: 0.7), gain: 0.02, into: &air)
        return [air]
    }

    static let train = SoundRecipe(
        id: "train", title: "Train", category: "machine",
        description: "Riding a train: a rumbling carriage and the steady da-dum, da-dum of the rail joints.",
        seconds: 40, channels: 2, seed: 0x5452_4149_4E01,
        recipe:
            "train/1: 36 rail joints a loop (1.11 s apart), each heard by the front and rear bogie's axle pairs (0.11 "
            + "s apart, rear 0.78 s later): 55-75 Hz thumps with a 350 Hz knock and a 2.2 kHz tick; brown rumble "
            + "with body modes at 70 and 140 Hz under 600 Hz, rail roar around 1.2 kHz, swaying ±1.5 dB"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var clacks = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        let joints = max(1, Int((ctx.seconds / 1.11).rounded()))
        let period = Double(n) / Double(joints)
        let axle = 0.11 * sr
        let bogie = 0.78 * sr
        for j in 0..<joints {
            let base = Double(j) * period
            for (offset, gain, pan) in [
                (0.0, 1.0, -0.25), (axle, 0.85, -0.25), (bogie, 0.7, 0.3), (bogie + axle, 0.6, 0.3),
            ] {
                let level = Float(gain * ctx.rng.uniform(0.75...1.1))
                var clack = Grain.decayingSine(
                    frequency: ctx.rng.logUniform(55...75), decay: 0.05, sampleRate: sr, attack: 0.002)
                var knock = Grain.noiseBurst(decay: 0.025, attack: 0.001, sampleRate: sr, rng: &ctx.rng)
                knock = Grain.filtered(knock, Biquad.bandPass(350, q: 1.5, sampleRate: sr))
                var tick = Grain.noiseBurst(decay: 0.006, sampleRate: sr, rng: &ctx.rng)
                tick = Grain.filtered(tick, Biquad.bandPass(2_200, q: 2, sampleRate: sr))
                for i in 0..<min(clack.count, knock.count) { clack[i] += 1.6 * knock[i] }
                for i in 0..<min(clack.count, tick.count) { clack[i] += 0.3 * tick[i] }
                let (l, r) = ctx.pan(pan)
                let at = Int(base + offset + ctx.rng.uniform(-0.004...0.004) * sr)
                Loop.add(clack, at: at, gain: level * l, into: &clacks[0])
                Loop.add(clack, at: at, gain: level * r, into: &clacks[1])
            }
        }
        let body = FilterChain([
            Biquad.peak(70, q: 2, gainDB: 6, sampleRate: sr), Biquad.peak(140, q: 2, gainDB: 3, sampleRate: sr),
            Biquad.lowPass(600, sampleRate: sr),
        ])
        let rumbles = ctx.blend(
            common: ctx.brownNoise(corner: 30), left: ctx.brownNoise(corner: 30),
            right: ctx.brownNoise(corner: 30), correlation: 0.6)
        let sway = Loop.exponentialMap(ctx.wander(perMinute: 6...20), low: 0.84, high: 1.19)
        return (0..<2).map { c in
            var out = Loop.modulated(Loop.normalizedRMS(Loop.filtered(rumbles[c], body)), by: sway)
            let roar = Loop.normalizedRMS(
                Loop.filtered(ctx.pinkNoise(), Biquad.bandPass(1_200, q: 0.7, sampleRate: sr)))
            Loop.mix(roar, gain: 0.18, into: &out)
            Loop.mix(Loop.normalizedRMS(clacks[c]), gain: 1.1, into: &out)
            return out
        }
    }

    /// An airliner's cabin at cruise (Moodist's recording as the yardstick): the boundary layer's roar through the
    /// fuselage, a broad hump over 100-400 Hz falling about 10 dB an octave above it, next to nothing under 50 Hz
    /// (where brown noise has the most), the engines' fan tone standing out near 63 Hz, and a faint hiss from the
    /// air vents. Two engines a shade apart in speed beat slowly.
    static let plane = SoundRecipe(
        id: "plane", title: "Aeroplane cabin", category: "machine",
        description:
            "Cruising in an airliner: an even, muffled cabin roar, the drone of the engines and the hiss of the "
            + "air vents.",
        seconds: 40, channels: 2, seed: 0x504C_414E_4502,
        recipe:
            "plane/2: pink noise through a 70 Hz high-pass (24 dB/octave), +4 dB at 200 Hz and one-pole low-passes at "
            + "350 and 600 Hz (L/R 60% correlated), swaying ±0.5 dB; engine tones at 63 and 63.25 Hz (a 4 s beat) "
            + "with harmonics at 126 and 189 Hz; vent hiss 1-8 kHz 36 dB down"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        let shape = FilterChain([
            Biquad.highPass(70, sampleRate: sr), Biquad.highPass(70, sampleRate: sr),
            Biquad.peak(200, q: 0.7, gainDB: 4, sampleRate: sr),
        ])
        let roars = ctx.blend(
            common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.6)
        let sway = Loop.exponentialMap(ctx.wander(perMinute: 2...8), low: 0.94, high: 1.06)
        // Two engines: their fan tones a quarter of a hertz apart (whole cycles per loop each), beating.
        let first = loopCycles(63, ctx)
        let second = first + max(1, Int((0.25 * ctx.seconds).rounded()))
        var drone = [Float](repeating: 0, count: n)
        for (cycles, phase) in [(first, 0.0), (second, 0.37)] {
            Loop.mix(Loop.sine(frames: n, cycles: cycles, phase: phase), gain: 1, into: &drone)
            Loop.mix(Loop.sine(frames: n, cycles: 2 * cycles, phase: phase * 2 + 0.1), gain: 0.35, into: &drone)
            Loop.mix(Loop.sine(frames: n, cycles: 3 * cycles, phase: phase * 3 + 0.2), gain: 0.15, into: &drone)
        }
        let vent = FilterChain([
            Biquad.highPass(1_000, sampleRate: sr), Biquad.lowPass(8_000, sampleRate: sr),
        ])
        return (0..<2).map { c in
            let roar = Loop.filtered(
                Loop.filtered(Loop.filtered(roars[c], shape), OnePoleLowPass(350, sampleRate: sr)),
                OnePoleLowPass(600, sampleRate: sr))
            var out = Loop.modulated(Loop.normalizedRMS(roar), by: sway)
            Loop.mix(Loop.normalizedRMS(drone), gain: 0.55, into: &out)
            Loop.mix(Loop.normalizedRMS(Loop.filtered(ctx.noise(), vent)), gain: 0.015, into: &out)
            return out
        }
    }
}
