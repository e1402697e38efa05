import HumCore

/// A coffee shop: people talking at the tables around, cups and spoons, the espresso machine, the room.
///
/// The voices say nothing: each is a source-filter model of a voice (a glottal pulse train at a speaker's pitch,
/// falling over each phrase and lifting on stressed syllables, through three formant resonances set by a random
/// vowel per syllable, with a hiss or a burst for some consonants), speaking in syllables four or five a second, in
/// turns with the others at its table. At a few metres, through a room's echo and a dozen other voices, that is the
/// murmur of a café, with no word in it. Cups and spoons are struck ceramic and metal (inharmonic modes ringing
/// for a fraction of a second). Blanket's and Moodist's café recordings as the yardstick: centroid 340-350 Hz,
/// roll-off 510-640 Hz, most power from 100 to 700 Hz.
enum CafeRecipes {
    /// F1, F2, F3 of a few vowels (an adult man's; others scale them).
    static let vowels: [(Double, Double, Double)] = [
        (730, 1_090, 2_440), (530, 1_840, 2_480), (270, 2_290, 3_010), (570, 840, 2_410), (300, 870, 2_240),
        (500, 1_500, 2_500), (660, 1_720, 2_410), (440, 1_020, 2_240),
    ]

    /// One talker's voice over the whole loop: `turns` are (start, seconds) of what they say, in frames.
    static func voice(
        _ ctx: inout RenderContext, pitch: Double, formantScale: Double, turns: [(Int, Int)]
    ) -> [Float] {
        let sr = ctx.sampleRate
        let n = ctx.frames
        var out = [Float](repeating: 0, count: n)
        for (start, length) in turns {
            // The syllables of this turn: each (start, length, vowel, pitch factor, level, consonant).
            var plan: [(Int, Int, Int, Double, Double, Int)] = []
            var t = 0
            while t < length - Int(0.1 * sr) {
                let syllable = Int(ctx.rng.uniform(0.12...0.3) * sr)
                let stress = ctx.rng.unit() < 0.3
                plan.append(
                    (
                        t, min(syllable, length - t), Int(ctx.rng.uniform(0...Double(vowels.count) - 0.01)),
                        (stress ? 1.1 : 1) * ctx.rng.uniform(0.95...1.05),
                        stress ? 1 : ctx.rng.uniform(0.55...0.85), Int(ctx.rng.uniform(0...3.99))
                    ))
                t += syllable + (ctx.rng.unit() < 0.15 ? Int(ctx.rng.uniform(0.1...0.3) * sr) : 0)
            }
            var filters = [StateVariableFilter](repeating: StateVariableFilter(sampleRate: sr), count: 3)
            var glottis = 0.0
            var lowA = 0.0
            var formants = vowels[plan.first?.2 ?? 0]
            var phase = 0.0
            let a = 1 - SynthMath.exp(-2 * SynthMath.pi * 150 / sr)
            let glide = 1 - SynthMath.exp(-1 / (0.03 * sr))
            for (sStart, sLength, vowel, lift, level, consonant) in plan {
                let target = vowels[vowel]
                // A consonant before some syllables: a hiss (s, sh, f) or a burst (p, t, k).
                if consonant == 1 || consonant == 2 {
                    let hissLength = Int((consonant == 1 ? ctx.rng.uniform(0.05...0.09) : 0.012) * sr)
                    var hiss = Grain.filtered(
                        Loop.whiteNoise(frames: hissLength, rng: &ctx.rng),
                        Biquad.bandPass(ctx.rng.uniform(2_500...6_000), q: 1.2, sampleRate: sr))
                    for i in 0..<hissLength {
                        hiss[i] *= Float(SynthMath.sin(SynthMath.pi * Double(i) / Double(hissLength)))
                    }
                    Loop.add(hiss, at: start + sStart, gain: Float(0.05 * level), into: &out)
                }
                let voicedStart = sStart + (consonant == 1 ? Int(0.04 * sr) : 0)
                let voicedLength = max(1, sLength - (voicedStart - sStart) - Int(0.02 * sr))
                for i in 0..<voicedLength {
                    let k = voicedStart + i
                    let x = Double(k) / Double(max(1, length))
                    // The phrase's pitch falls from +12% to -10%; a stressed syllable lifts it.
                    let f0 = pitch * (1.12 - 0.22 * x) * lift
                    phase += f0 / sr
                    var pulse = 0.0
                    if phase >= 1 {
                        phase -= 1
                        pulse = 1
                    }
                    // Glottal flow, smoothed (-12 dB an octave above 150 Hz), and the lips' radiation (+6 dB an
                    // octave): a source falling 6 dB an octave, as a voice's does.
                    lowA += a * (pulse - lowA)
                    glottis = lowA
                    // Formants glide to the syllable's vowel over about 30 ms.
                    formants.0 += (target.0 - formants.0) * glide
                    formants.1 += (target.1 - formants.1) * glide
                    formants.2 += (target.2 - formants.2) * glide
                    let rise = min(1, Double(i) / (0.03 * sr))
                    let fall = min(1, Double(voicedLength - i) / (0.04 * sr))
                    let g = Float(glottis * level * rise * fall * 20)
                    // The vocal tract: three resonances in cascade (each passing the lows, as a tube does).
                    let f1 = filters[0].process(g, cutoff: formants.0 * formantScale, q: 6).lowPass
                    let f2 = filters[1].process(f1, cutoff: formants.1 * formantScale, q: 10).lowPass
                    let v = filters[2].process(f2, cutoff: formants.2 * formantScale, q: 12).lowPass
                    let index = (start + k) % n
                    out[index] += v
                }
            }
        }
        return out
    }

    /// A struck cup, saucer or spoon: inharmonic modes ringing and dying, the highest first.
    static func clink(_ ctx: inout RenderContext, metal: Bool) -> [Float] {
        let sr = ctx.sampleRate
        let base = metal ? ctx.rng.uniform(2_500...4_500) : ctx.rng.uniform(1_200...2_800)
        let ratios = metal ? [1, 2.76, 5.40, 8.93] : [1, 2.32, 3.86, 5.6]
        let length = Int((metal ? 0.5 : 0.35) * sr)
        var out = [Float](repeating: 0, count: length)
        for (k, ratio) in ratios.enumerated() {
            let f = base * ratio * ctx.rng.uniform(0.98...1.02)
            guard f < sr * 0.45 else { continue }
            let decay = (metal ? 0.06 : 0.035) / (1 + Double(k))
            let ring = Grain.decayingSine(
                frequency: f, decay: decay, sampleRate: sr, attack: 0.0002, phase: ctx.rng.unit())
            let g = Float(ctx.rng.uniform(0.4...1) / (1 + Double(k) * 0.5))
            for (i, v) in ring.enumerated() where i < length { out[i] += v * g }
        }
        // The contact itself: a click of a millisecond.
        let click = Grain.filtered(
            Grain.noiseBurst(decay: 0.0004, sampleRate: sr, rng: &ctx.rng), Biquad.highPass(1_500, sampleRate: sr))
        for (i, v) in click.enumerated() where i < length { out[i] += v * 0.8 }
        return out
    }

    static let cafe = SoundRecipe(
        id: "cafe", title: "Coffee shop", category: "places",
        description:
            "A busy café: the murmur of conversations all around, cups and spoons, the espresso machine now and then.",
        seconds: 90, channels: 2, seed: 0x4341_4645_01,
        recipe:
            "cafe/1: 12 talkers at 5 tables (2-14 m) taking turns, each a glottal pulse train (men 95-135 Hz, women "
            + "175-235 Hz, falling over the phrase, lifted on stresses) through 3 formant resonators in cascade "
            + "set by a random vowel per syllable (0.12-0.3 s), hisses and bursts for consonants; cups and saucers "
            + "(ceramic modes 1.2-2.8 kHz ×1, 2.32, 3.86, 5.6) and spoons (metal 2.5-4.5 kHz) about every 2 s, "
            + "some stirring; a grinder and a steam wand once a loop; a café's echo (0.8 s); air handling and chairs 90-250 Hz"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var room = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        func place(_ sound: [Float], gain: Double, pan: Double) {
            let (l, r) = ctx.pan(pan)
            Loop.mix(sound, gain: Float(gain) * l, into: &room[0])
            Loop.mix(sound, gain: Float(gain) * r, into: &room[1])
        }
        // Tables of two or three, each taking turns.
        for table in 0..<5 {
            let people = table % 2 == 0 ? 3 : 2
            let distance = table == 0 ? ctx.rng.uniform(2.5...4) : ctx.rng.uniform(4...14)
            let pan = ctx.rng.uniform(-0.8...0.8)
            var turns = [[(Int, Int)]](repeating: [], count: people)
            var time = ctx.rng.uniform(0...2)
            var speaker = Int(ctx.rng.uniform(0...Double(people) - 0.01))
            while time < ctx.seconds {
                let seconds = ctx.rng.uniform(1.2...5)
                turns[speaker].append((Int(time * sr), Int(seconds * sr)))
                time += seconds + ctx.rng.uniform(0.15...0.9)
                speaker = (speaker + 1 + (ctx.rng.unit() < 0.3 ? 1 : 0)) % people
            }
            for person in 0..<people {
                let woman = ctx.rng.unit() < 0.5
                let voice = voice(
                    &ctx, pitch: woman ? ctx.rng.uniform(175...235) : ctx.rng.uniform(95...135),
                    formantScale: woman ? ctx.rng.uniform(1.12...1.22) : ctx.rng.uniform(0.95...1.05),
                    turns: turns[person])
                let level = 3 / distance * ctx.rng.uniform(0.8...1.2)
                let muffled = Loop.filtered(
                    voice, FilterChain([Biquad.lowPass(min(8_000, 14_000 / distance), sampleRate: sr)]))
                place(muffled, gain: level, pan: max(-1, min(1, pan + ctx.rng.uniform(-0.15...0.15))))
            }
        }
        // (At least a floor: a loop too short for a word still gets its room.)
        let voicesRMS = max(1e-4, room.map { Loop.rms($0) }.reduce(0, +) / 2)
        // Cups, saucers and spoons.
        var clinks = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        for t in ctx.eventTimes(rate: 0.5) {
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.9...0.9))
            let level = Float(ctx.rng.logUniform(0.15...1))
            if ctx.rng.unit() < 0.25 {
                // A spoon stirring: light taps on the cup's wall.
                var at = t
                for _ in 0..<Int(ctx.rng.uniform(4...9)) {
                    let tap = clink(&ctx, metal: true)
                    Loop.add(tap, at: at, gain: level * 0.3 * l, into: &clinks[0])
                    Loop.add(tap, at: at, gain: level * 0.3 * r, into: &clinks[1])
                    at += Int(ctx.rng.uniform(0.15...0.25) * sr)
                }
            } else {
                let cup = clink(&ctx, metal: ctx.rng.unit() < 0.3)
                Loop.add(cup, at: t, gain: level * l, into: &clinks[0])
                Loop.add(cup, at: t, gain: level * r, into: &clinks[1])
            }
        }
        let clinksRMS = max(1e-4, clinks.map { Loop.rms($0) }.reduce(0, +) / 2)
        for c in 0..<2 { Loop.mix(clinks[c], gain: Float(voicesRMS * 0.2 / clinksRMS), into: &room[c]) }
        // The machine behind the counter: a grinder's motor, later the steam wand's hiss.
        let counter = ctx.rng.uniform(-0.6...0.6)
        let grindAt = Int(ctx.rng.uniform(0.1...0.4) * Double(n))
        let grindLength = Int(ctx.rng.uniform(3...5) * sr)
        var grinder = Grain.filtered(
            Loop.whiteNoise(frames: grindLength, rng: &ctx.rng), Biquad.bandPass(900, q: 0.8, sampleRate: sr))
        let motor = ctx.rng.uniform(140...170)
        for i in 0..<grindLength {
            let x = Double(i) / Double(grindLength)
            let edge = min(1, min(x / 0.05, (1 - x) / 0.1))
            let buzz =
                SynthMath.sinCycles(motor * Double(i) / sr) + 0.5 * SynthMath.sinCycles(2 * motor * Double(i) / sr)
            grinder[i] = Float((Double(grinder[i]) * 0.6 + 0.15 * buzz) * edge)
        }
        var machine = [Float](repeating: 0, count: n)
        Loop.add(grinder, at: grindAt, into: &machine)
        let steamLength = Int(ctx.rng.uniform(4...7) * sr)
        var steam = Grain.filtered(
            Loop.whiteNoise(frames: steamLength, rng: &ctx.rng),
            FilterChain([Biquad.highPass(1_500, sampleRate: sr), Biquad.peak(4_000, q: 1, gainDB: 6, sampleRate: sr)]))
        for i in 0..<steamLength {
            let x = Double(i) / Double(steamLength)
            steam[i] *= Float(min(1, min(x / 0.08, (1 - x) / 0.25)) * (0.8 + 0.2 * SynthMath.sinCycles(3 * x)))
        }
        Loop.add(steam, at: grindAt + Int(ctx.rng.uniform(0.35...0.5) * Double(n)), gain: 0.4, into: &machine)
        place(machine, gain: voicesRMS * 0.6 / max(1e-9, Loop.rms(machine)) * 0.5, pan: counter)
        let airs = ctx.blend(
            common: ctx.brownNoise(corner: 60), left: ctx.brownNoise(corner: 60), right: ctx.brownNoise(corner: 60),
            correlation: 0.6)
        return (0..<2).map { c in
            var out = Loop.filtered(
                room[c], RoomReverb(sampleRate: sr, size: 2, decay: 0.8, damping: 0.5, wet: 0.5, seed: 30 + UInt64(c)))
            let air = Loop.filtered(
                airs[c], FilterChain([Biquad.lowPass(250, sampleRate: sr), Biquad.highPass(90, sampleRate: sr)]))
            Loop.mix(Loop.normalizedRMS(air), gain: Float(voicesRMS * 0.8), into: &out)
            return out
        }
    }
}
