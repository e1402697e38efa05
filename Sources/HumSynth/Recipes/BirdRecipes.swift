import HumCore

/// A dawn chorus in a wood: a steady bed of leaves, air and far birds, and near birds' songs as events.
///
/// Songbirds sing nearly pure whistles (the syrinx makes a tone, the beak and throat filter its harmonics away)
/// whose pitch moves fast and never in a straight line (`BirdSongs`). Near birds are the landmarks a listener
/// would remember in a loop, so they are one-shot events the mixer scatters (a dozen songs of six species, at
/// random times, levels and places); the bed under them is what a wood sounds like between songs: air moving
/// in the leaves, the fine rustle of leaves, and the chorus of birds farther off (35-120 m: weak, dark, blurred
/// by the wood's echo). Blanket's and Moodist's bird recordings as the yardstick: centroid 3.1-3.6 kHz, most
/// power 2-6 kHz, about a call onset a second, 12-16 LU of loudness range, 7-13 band landmarks a minute.
enum BirdRecipes {
    /// A whistle gliding from `from` to `to` Hz (exponentially) over `seconds`, with a smooth envelope.
    static func sweep(from: Double, to: Double, seconds: Double, sampleRate: Double) -> [Float] {
        note(seconds: seconds, sampleRate: sampleRate) { x in from * SynthMath.pow(to / from, x) }
    }

    /// A whistled note: `pitch(x)` in Hz along the note (x from 0 to 1), a quick rise and a rounded fall, a faint
    /// second harmonic.
    static func note(
        seconds: Double, sampleRate sr: Double, harmonic: Double = 0.15, attack: Double = 0.15,
        pitch: (Double) -> Double
    ) -> [Float] {
        let length = max(2, Int(seconds * sr))
        var out = [Float](repeating: 0, count: length)
        var phase = 0.0
        for i in 0..<length {
            let x = Double(i) / Double(length - 1)
            phase += pitch(x) / sr
            let rise = min(1, x / attack)
            let fall = min(1, (1 - x) / 0.35)
            let envelope = SynthMath.sin(SynthMath.pi / 2 * rise) * SynthMath.sin(SynthMath.pi / 2 * fall)
            out[i] = Float(envelope * (SynthMath.sinCycles(phase) + harmonic * SynthMath.sinCycles(2 * phase)))
        }
        return out
    }

    /// A phrase: notes laid one after another with gaps.
    struct Phrase {
        var samples: [Float] = []
        let sampleRate: Double

        init(sampleRate: Double) { self.sampleRate = sampleRate }

        mutating func add(_ note: [Float], gain: Double = 1, gap: Double) {
            let at = samples.count
            samples += [Float](repeating: 0, count: note.count + Int(gap * sampleRate))
            for (i, v) in note.enumerated() { samples[at + i] += v * Float(gain) }
        }
    }

    /// The near birds' songs: twelve clips, two songs each of six species, 6-25 m away in the wood's echo.
    static let songs = EventRecipe(
        count: 12, channels: 1, seconds: 7, levelLU: -1, perHour: 330, minGapSeconds: 3, gainDB: -12...0,
        pan: -0.9...0.9
    ) { ctx, index in
        let sr = ctx.sampleRate
        let kinds: [BirdSongs.Bird] = [.chaffinch, .robin, .blackbird, .wren, .thrush, .greatTit]
        let song = kinds[index % kinds.count].song(&ctx.rng, sampleRate: sr)
        let distance = ctx.rng.uniform(6...25)
        let shaped = Grain.filtered(
            song,
            FilterChain([
                Biquad.lowPass(min(16_000, 9_000 * 30 / distance), sampleRate: sr),
                Biquad.highPass(300, sampleRate: sr),
            ]))
        let lead = [Float](repeating: 0, count: Int(0.02 * sr))
        var clip = lead + shaped + [Float](repeating: 0, count: Int(1.6 * sr))
        clip = Grain.filtered(
            clip, RoomReverb(sampleRate: sr, size: 4, decay: 1.8, damping: 0.5, wet: 0.35, seed: 40 + UInt64(index)))
        if clip.count > ctx.frames { clip.removeLast(clip.count - ctx.frames) }
        let fade = Int(0.4 * sr)
        for i in 0..<fade { clip[clip.count - fade + i] *= Float(SynthMath.pow(1 - Double(i + 1) / Double(fade), 2)) }
        return [clip]
    }

    static let birds = SoundRecipe(
        id: "birds", title: "Dawn chorus", category: "nature",
        description: "Birds waking a wood at dawn: a robin, a blackbird, a wren and others singing near and far.",
        seconds: 60, channels: 2, seed: 0x4249_5244_5302,
        recipe:
            "birds/2: bed of air in the leaves (pink noise 150 Hz-4 kHz swaying 3-12 times a minute), leaf "
            + "rustle (60 ticks a second, 2.5-8 kHz) and 9 far birds (35-120 m: 1/r, highs absorbed) in a wood's "
            + "echo (2 s); events: 12 near songs (chaffinch, robin, blackbird, wren, song thrush, great tit; 6-25 m, "
            + "echo 1.8 s) of curved notes (pitch base·2^(arc·sin πx + tilt·x + bend·x² + trill)), trills of "
            + "varied syllables, two-voiced notes; 330 an hour",
        events: songs
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var far = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        let cast: [BirdSongs.Bird] = [
            .robin, .chiffchaff, .wren, .blackbird, .greatTit, .thrush, .chaffinch, .robin, .woodPigeon,
        ]
        for bird in cast {
            let distance = ctx.rng.uniform(35...120)
            let dark = FilterChain([
                Biquad.lowPass(9_000 * 30 / distance, sampleRate: sr), Biquad.highPass(300, sampleRate: sr),
            ])
            let repertoire = (0..<2).map { _ in Grain.filtered(bird.song(&ctx.rng, sampleRate: sr), dark) }
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.9...0.9))
            var time = ctx.rng.uniform(0...bird.pause)
            while time < ctx.seconds {
                let song = repertoire[Int(ctx.rng.uniform(0...1.99))]
                let g = Float(10 / distance * ctx.rng.uniform(0.7...1))
                Loop.add(song, at: Int(time * sr), gain: g * l, into: &far[0])
                Loop.add(song, at: Int(time * sr), gain: g * r, into: &far[1])
                let gap = (ctx.rng.exponential(mean: 1) + ctx.rng.exponential(mean: 1)) / 2 * bird.pause * 1.5
                time += max(Double(song.count) / sr + 0.5, gap)
            }
        }
        // (At least a floor: a loop too short for a song still gets its air.)
        let farRMS = max(1e-4, far.map { Loop.rms($0) }.reduce(0, +) / 2)
        // The leaves' fine rustle: tiny ticks of noise, high, all around.
        var rustle = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        let tickShape = FilterChain([Biquad.highPass(2_500, sampleRate: sr), Biquad.lowPass(8_000, sampleRate: sr)])
        for t in ctx.eventTimes(rate: 60) {
            let tick = Grain.filtered(
                Grain.noiseBurst(decay: ctx.rng.uniform(0.002...0.008), sampleRate: sr, rng: &ctx.rng), tickShape)
            let (l, r) = ctx.pan(ctx.rng.uniform(-1...1))
            let g = Float(ctx.rng.logUniform(0.1...1))
            Loop.add(tick, at: t, gain: g * l, into: &rustle[0])
            Loop.add(tick, at: t, gain: g * r, into: &rustle[1])
        }
        let rustleRMS = max(1e-9, rustle.map { Loop.rms($0) }.reduce(0, +) / 2)
        let airs = ctx.blend(
            common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.3)
        let sway = Loop.exponentialMap(ctx.wander(perMinute: 3...12), low: 0.45, high: 1)
        let airShape = FilterChain([
            Biquad.lowPass(4_000, sampleRate: sr), Biquad.highPass(150, sampleRate: sr),
        ])
        return (0..<2).map { c in
            var out = Loop.filtered(
                far[c], RoomReverb(sampleRate: sr, size: 4, decay: 2, damping: 0.5, wet: 0.6, seed: 20 + UInt64(c)))
            let air = Loop.modulated(Loop.normalizedRMS(Loop.filtered(airs[c], airShape)), by: sway)
            Loop.mix(air, gain: Float(farRMS * 0.8), into: &out)
            Loop.mix(Loop.modulated(rustle[c], by: sway), gain: Float(farRMS * 0.12 / rustleRMS), into: &out)
            return out
        }
    }
}
