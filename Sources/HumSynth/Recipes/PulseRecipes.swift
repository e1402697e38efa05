import HumCore

/// Steady beats to settle into: a clock and a slow heartbeat.
enum PulseRecipes {
    /// A sum of decaying resonances struck at once: the ring of a small part hit hard (a pallet on an escape
    /// wheel, a valve closing), each (frequency, decay time constant, level).
    static func struck(_ modes: [(Double, Double, Double)], sampleRate sr: Double, rng: inout SplitMix64) -> [Float] {
        let longest = modes.map(\.1).max() ?? 0.01
        var out = [Float](repeating: 0, count: Int(longest * 7 * sr) + 1)
        for (frequency, decay, level) in modes {
            let ring = Grain.decayingSine(
                frequency: frequency, decay: decay, sampleRate: sr, attack: 0.00005, phase: rng.unit())
            for (i, v) in ring.enumerated() { out[i] += v * Float(level) }
        }
        return out
    }

    /// A wall clock's escapement: every beat the escape wheel's tooth hits a pallet (a sharp click exciting the
    /// metal parts at 2-9 kHz for a few milliseconds and the wooden case at 300-900 Hz for a few tens), then the
    /// wheel drops onto the next tooth 10-25 ms later (a smaller click). Tick and tock strike different pallets, so
    /// they differ a little in colour and level, and an old clock is a shade out of beat.
    static let clock = SoundRecipe(
        id: "clock", title: "Ticking clock", category: "home",
        description: "An old wall clock in a quiet room: a steady, gentle tick, tock, once a second.",
        seconds: 30, channels: 2, seed: 0x434C_4F43_4B01,
        recipe:
            "clock/1: a beat a second (tick 0.988 s, tock 1.012 s), each a 60 µs click exciting 5 metal modes 2-9 kHz "
            + "(1.5-6 ms) and 3 case modes 300-900 Hz (8-25 ms), a drop click 10-25 ms later at -9 dB, tick and "
            + "tock modes apart; ±1 dB per beat; a living-room reverb (0.4 s) and a faint room tone 45 dB down; peaks "
            + "held 19 dB over the loudness"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        // Two pallets, each with its own modes.
        func pallet(_ rng: inout SplitMix64) -> [(Double, Double, Double)] {
            var modes: [(Double, Double, Double)] = []
            for _ in 0..<5 {
                modes.append((rng.logUniform(2_000...9_000), rng.uniform(0.0015...0.006), rng.uniform(0.3...1)))
            }
            for _ in 0..<3 {
                modes.append((rng.logUniform(300...900), rng.uniform(0.008...0.025), rng.uniform(0.2...0.5)))
            }
            return modes
        }
        let palettes = [pallet(&ctx.rng), pallet(&ctx.rng)]
        var dry = [Float](repeating: 0, count: n)
        let beats = max(2, Int(ctx.seconds.rounded()) / 2 * 2)
        let pair = Double(n) / Double(beats / 2)
        for b in 0..<beats {
            let isTock = b % 2 == 1
            let at = Int(Double(b / 2) * pair + (isTock ? 0.494 * pair : 0))
            let modes = palettes[isTock ? 1 : 0].map { ($0.0 * ctx.rng.uniform(0.995...1.005), $0.1, $0.2) }
            var strike = struck(modes, sampleRate: sr, rng: &ctx.rng)
            // The click itself: a few tens of microseconds of noise.
            let click = Grain.noiseBurst(decay: 0.00006, attack: 0.00001, sampleRate: sr, rng: &ctx.rng)
            for (i, v) in click.enumerated() where i < strike.count { strike[i] += v * 0.8 }
            let level = Float(SynthMath.amplitude(dB: ctx.rng.uniform(-1...1) + (isTock ? -1.5 : 0)))
            Loop.add(strike, at: at, gain: level, into: &dry)
            let drop = Int(ctx.rng.uniform(0.010...0.025) * sr)
            Loop.add(strike, at: at + drop, gain: level * 0.35, into: &dry)
        }
        let room = ctx.blend(
            common: ctx.brownNoise(corner: 100), left: ctx.brownNoise(corner: 100),
            right: ctx.brownNoise(corner: 100), correlation: 0.6)
        let dryRMS = max(1e-4, Loop.rms(dry))
        let out = (0..<2).map { c in
            var out = Loop.filtered(
                dry,
                RoomReverb(sampleRate: sr, size: 1, decay: 0.4, damping: 0.45, wet: 0.35, seed: UInt64(c)))
            Loop.mix(Loop.normalizedRMS(room[c], to: dryRMS * SynthMath.amplitude(dB: -45)), into: &out)
            return out
        }
        // A real clock's ticks stand about 20 dB over its loudness (Moodist's: 20.4): the sharpest edges are
        // rounded off to fit.
        return Loop.holdingPeaks(out, headroom: 19, sampleRate: sr)
    }

    /// A resting heart heard close, as a stethoscope or a pillow hears it: the first sound ("lub", the mitral and
    /// tricuspid valves closing) a low thump of 40-250 Hz over about 100 ms, the second ("dub", the aortic and
    /// pulmonary valves) a third of a second later, shorter and a little higher; the blood's soft whoosh after
    /// each beat. The rate breathes: a little faster on the in-breath, slower on the out-breath.
    /// Where the heartbeat's lubs fall in a loop of `frames` frames, in frames: 55 a minute, evenly spread, nudged
    /// by a breathing curve with a whole number of breaths per loop (so the rate breathes ±3 %).
    static func heartbeatOnsets(frames n: Int, sampleRate: Double) -> [Int] {
        let seconds = Double(n) / sampleRate
        let beats = max(1, Int((seconds * 55 / 60).rounded()))
        let breaths = max(1, Int((seconds / 5).rounded()))
        let spacing = Double(n) / Double(beats)
        return (0..<beats).map { b in
            let phase = Double(b) / Double(beats)
            let nudge =
                0.03 * spacing * SynthMath.sinCycles(Double(breaths) * phase) * Double(beats)
                / (2 * SynthMath.pi * Double(breaths))
            return Int(Double(b) * spacing + nudge)
        }
    }

    static let heartbeat = SoundRecipe(
        id: "heartbeat", title: "Slow heartbeat", category: "body",
        description: "A calm heart at rest, about 55 beats a minute: a soft, muffled lub-dub to settle into.",
        seconds: 60, channels: 1, seed: 0x4845_4152_5401,
        recipe:
            "heartbeat/1: 55 beats a minute (±3% with a 5 s breath), lub: 40-260 Hz modes over 90 ms, dub 0.31 s "
            + "later: 55-330 Hz over 60 ms at -3 dB, 12 ms soft onsets; a whoosh (noise < 250 Hz) after each lub; "
            + "low-passed at 400 Hz, a faint body noise 40 dB down; peaks held 18 dB over the loudness",
        beats: PulseRecipes.heartbeatOnsets(frames:sampleRate:)
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var out = [Float](repeating: 0, count: n)
        var whoosh = [Float](repeating: 0, count: n)
        for at in heartbeatOnsets(frames: n, sampleRate: sr) {
            let lub = struck(
                [
                    (ctx.rng.uniform(38...44), 0.045, 1), (ctx.rng.uniform(65...75), 0.03, 0.8),
                    (ctx.rng.uniform(130...150), 0.015, 0.45), (ctx.rng.uniform(220...260), 0.008, 0.2),
                ],
                sampleRate: sr, rng: &ctx.rng)
            let dub = struck(
                [
                    (ctx.rng.uniform(52...58), 0.03, 0.8), (ctx.rng.uniform(100...115), 0.02, 0.7),
                    (ctx.rng.uniform(180...210), 0.01, 0.35), (ctx.rng.uniform(290...330), 0.006, 0.15),
                ],
                sampleRate: sr, rng: &ctx.rng)
            // Valves close softly: a 12 ms rise, not a click.
            let soft = Grain.envelope(attack: 0.012, hold: 0.5, decay: 1, sampleRate: sr)
            let level = Float(SynthMath.amplitude(dB: ctx.rng.uniform(-0.7...0.7)))
            Loop.add(zip(lub, soft).map { $0 * $1 }, at: at, gain: level, into: &out)
            Loop.add(
                zip(dub, soft).map { $0 * $1 }, at: at + Int(0.31 * sr), gain: level * 0.7, into: &out)
            let swell = Grain.envelope(attack: 0.08, decay: 0.12, sampleRate: sr)
            Loop.add(swell, at: at + Int(0.04 * sr), gain: level, into: &whoosh)
        }
        let blood = Loop.normalizedRMS(
            Loop.filtered(
                ctx.brownNoise(corner: 80),
                FilterChain([Biquad.lowPass(250, sampleRate: sr), Biquad.highPass(30, sampleRate: sr)])))
        let beatRMS = max(1e-4, Loop.rms(out))
        Loop.mix(Loop.modulated(blood, by: whoosh), gain: Float(beatRMS * 0.35), into: &out)
        out = Loop.filtered(
            out, FilterChain([Biquad.lowPass(400, sampleRate: sr), Biquad.highPass(25, sampleRate: sr)]))
        let body = Loop.normalizedRMS(
            Loop.filtered(ctx.pinkNoise(), Biquad.lowPass(400, sampleRate: sr)),
            to: beatRMS * SynthMath.amplitude(dB: -40))
        Loop.mix(body, into: &out)
        return Loop.holdingPeaks([out], headroom: 18, sampleRate: sr)
    }
}
