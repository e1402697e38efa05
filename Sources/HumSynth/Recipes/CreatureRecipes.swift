import HumCore

/// Night crickets.
enum CreatureRecipes {
    /// One chirp: `pulses` short tone pulses (raised-cosine shaped) of a carrier that falls slightly in each.
    static func chirp(carrier: Double, pulses: Int, pulseLength: Double, pulsePeriod: Double, sampleRate sr: Double)
        -> [Float]
    {
        let length = Int((Double(pulses - 1) * pulsePeriod + pulseLength) * sr) + 1
        var out = [Float](repeating: 0, count: length)
        let p = Int(pulseLength * sr)
        for k in 0..<pulses {
            let start = Int(Double(k) * pulsePeriod * sr)
            var cycles = 0.0
            for i in 0..<p where start + i < length {
                let x = Double(i) / Double(p)
                let envelope = 0.5 - 0.5 * SynthMath.cos(2 * SynthMath.pi * x)
                cycles += carrier * (1 - 0.03 * x) / sr
                out[start + i] = Float(
                    envelope * (SynthMath.sinCycles(cycles) + 0.12 * SynthMath.sinCycles(2 * cycles)))
            }
        }
        return out
    }

    static let crickets = SoundRecipe(
        id: "crickets", title: "Night crickets", category: "nature",
        description: "A summer night: crickets chirping near and far over a soft, still background.",
        seconds: 40, channels: 2, seed: 0x4352_4943_4B01,
        recipe:
            "crickets/1: 7 crickets (carriers 4.2-5.2 kHz, chirps of 3-5 pulses of 12-18 ms every 28-40 ms, a chirp "
            + "every 0.4-0.9 s with ±6% jitter, levels over 16 dB, panned) + a distant 3.2 kHz trill at 45 "
            + "pulses/s + pink night air < 900 Hz"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var out = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        for _ in 0..<7 {
            let carrier = ctx.rng.uniform(4_200...5_200)
            let pulses = Int(ctx.rng.uniform(3...5.99))
            let pulseLength = ctx.rng.uniform(0.012...0.018)
            let pulsePeriod = ctx.rng.uniform(0.028...0.040)
            let chirps = max(1, Int((ctx.seconds / ctx.rng.uniform(0.4...0.9)).rounded()))
            let spacing = Double(n) / Double(chirps)
            let level = Float(ctx.rng.logUniform(0.16...1))
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.9...0.9))
            let phase = ctx.rng.unit()
            for k in 0..<chirps {
                let sound = chirp(
                    carrier: carrier * ctx.rng.uniform(0.995...1.005), pulses: pulses, pulseLength: pulseLength,
                    pulsePeriod: pulsePeriod, sampleRate: sr)
                let at = Int((Double(k) + phase + ctx.rng.uniform(-0.06...0.06)) * spacing)
                let g = level * Float(ctx.rng.uniform(0.85...1))
                Loop.add(sound, at: at, gain: g * l, into: &out[0])
                Loop.add(sound, at: at, gain: g * r, into: &out[1])
            }
        }
        // A distant trilling insect: a continuous pulse train, swelling and fading slowly.
        let trillPulses = max(1, Int((45 * ctx.seconds).rounded()))
        let carrierCycles = MachineRecipes.loopCycles(3_200, ctx)
        let swell = ctx.wander(perMinute: 2...6).map { 0.5 + 0.5 * $0 }
        let (tl, tr) = ctx.pan(ctx.rng.uniform(-0.5...0.5))
        for i in 0..<n {
            let t = Double(i) / Double(n)
            let gate = max(0, SynthMath.sinCycles(Double(trillPulses) * t))
            let v = Float(gate * gate * SynthMath.sinCycles(Double(carrierCycles) * t)) * swell[i] * 0.06
            out[0][i] += v * tl
            out[1][i] += v * tr
        }
        let air = ctx.blend(common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.3)
        for c in 0..<2 {
            let calm = Loop.normalizedRMS(Loop.filtered(air[c], Biquad.lowPass(900, sampleRate: sr)), to: 0.02)
            Loop.mix(calm, into: &out[c])
        }
        return out
    }
}
