import HumCore

/// A coffee shop: a steady bed of a room full of talk and distant clatter, and the close sounds as events.
///
/// The voices say nothing: each is a source-filter model of a voice (a glottal pulse train at a speaker's pitch,
/// falling over each phrase and lifting on stressed syllables, with breath in it, through three formant resonances
/// set by a random vowel per syllable, with sibilants, fricatives and bursts for consonants), speaking in syllables
/// four or five a second, in turns with the others at its table. Twenty of them at eight tables 4-18 m away, through
/// a café's echo, are a room rather than voices: a diffuse murmur with the hiss of its consonants and breath in the
/// top octave. Under it the air handling's rumble and, from the counter and the kitchen, distant clatter: cups,
/// plates and cutlery, dozens a minute, so far and so smeared by the room that none stands out. What does stand out
/// in a café (a cup set down close by, a spoon stirring or dropped, the door, a chair scraped back, the grinder)
/// comes as one-shot events about once a minute, never on a loop. Blanket's and Moodist's café recordings as the
/// yardstick: centroid 340-350 Hz, slope -6.7 dB an octave, 1-8 kHz flatness 0.07-0.19, 2-8 kHz level varying by
/// 3.3-4.9 dB (a continuous floor), 0-2.1 band landmarks a minute.
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
        var hisses = [Float](repeating: 0, count: n)
        var breath = [Float](repeating: 0, count: n)
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
                        stress ? 1 : ctx.rng.uniform(0.55...0.85), [1, 1, 2, 0, 0][Int(ctx.rng.uniform(0...4.99))]
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
                // A consonant before some syllables: a hiss (s 5-9 kHz, sh 2.5-4 kHz, f broad) or a burst (p, t, k).
                if consonant == 1 || consonant == 2 {
                    let hissLength = Int((consonant == 1 ? ctx.rng.uniform(0.06...0.12) : 0.015) * sr)
                    let centre =
                        consonant == 2
                        ? ctx.rng.uniform(1_500...4_000)
                        : [
                            ctx.rng.uniform(5_000...9_000), ctx.rng.uniform(2_500...4_000),
                            ctx.rng.uniform(3_000...7_000),
                        ][Int(ctx.rng.uniform(0...2.99))]
                    var hiss = Grain.filtered(
                        Loop.whiteNoise(frames: hissLength, rng: &ctx.rng),
                        Biquad.bandPass(centre, q: centre > 5_000 ? 1.6 : 0.8, sampleRate: sr))
                    for i in 0..<hissLength {
                        hiss[i] *= Float(SynthMath.sin(SynthMath.pi * Double(i) / Double(hissLength)))
                    }
                    Loop.add(hiss, at: start + sStart, gain: Float(level), into: &hisses)
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
                    // Breath: turbulence at the glottis, strongest while it opens.
                    breath[index] += ctx.rng.nextSignedUnit() * Float(level * rise * fall * (0.3 + 3 * lowA))
                }
            }
        }
        // The noise of speech against its voicing: sibilants and bursts 15 dB under it, breath (above 2 kHz, as
        // the vocal tract passes it) 26 dB under: what gives a room of voices its top octave.
        let voiced = Loop.rms(out)
        let breathy = Loop.filtered(
            breath, FilterChain([Biquad.highPass(2_000, sampleRate: sr), Biquad.lowPass(10_000, sampleRate: sr)]))
        Loop.mix(hisses, gain: Float(voiced * 0.18 / max(1e-12, Loop.rms(hisses))), into: &out)
        Loop.mix(breathy, gain: Float(voiced * 0.05 / max(1e-12, Loop.rms(breathy))), into: &out)
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

    /// A coffee grinder's burst: a motor's buzz and the beans' noise, `seconds` long.
    static func grinder(_ ctx: inout RenderContext, seconds: Double) -> [Float] {
        let sr = ctx.sampleRate
        let length = Int(seconds * sr)
        var out = Grain.filtered(
            Loop.whiteNoise(frames: length, rng: &ctx.rng), Biquad.bandPass(900, q: 0.8, sampleRate: sr))
        let motor = ctx.rng.uniform(140...170)
        for i in 0..<length {
            let x = Double(i) / Double(length)
            let edge = min(1, min(x / 0.05, (1 - x) / 0.1))
            let buzz =
                SynthMath.sinCycles(motor * Double(i) / sr) + 0.5 * SynthMath.sinCycles(2 * motor * Double(i) / sr)
            out[i] = Float((Double(out[i]) * 0.6 + 0.15 * buzz) * edge)
        }
        return out
    }

    /// A door: the latch's click, the swing's faint creak, the thud of its closing and the latch again.
    static func door(_ ctx: inout RenderContext) -> [Float] {
        let sr = ctx.sampleRate
        var out = [Float](repeating: 0, count: Int(1.6 * sr))
        Loop.add(clink(&ctx, metal: true), at: 0, gain: 0.25, into: &out)
        let creak = stickSlip(&ctx, seconds: ctx.rng.uniform(0.3...0.6), rate: 150...260, body: 700...1_400)
        Loop.add(creak, at: Int(0.1 * sr), gain: 0.12, into: &out)
        let closing = Int(ctx.rng.uniform(0.7...1.1) * sr)
        let thud = Grain.filtered(
            Grain.noiseBurst(decay: 0.03, attack: 0.002, sampleRate: sr, rng: &ctx.rng),
            FilterChain([Biquad.lowPass(400, sampleRate: sr), Biquad.highPass(50, sampleRate: sr)]))
        let panel = Grain.decayingSine(frequency: ctx.rng.uniform(80...140), decay: 0.06, sampleRate: sr)
        Loop.add(thud, at: closing, gain: 1.5, into: &out)
        Loop.add(panel, at: closing, gain: 0.5, into: &out)
        Loop.add(clink(&ctx, metal: true), at: closing + Int(0.01 * sr), gain: 0.3, into: &out)
        return out
    }

    /// Stick-slip friction (a chair's legs on the floor, a hinge): a train of slips at a wandering `rate` (Hz),
    /// each a burst of noise through the wood's resonances (`body`, Hz), rising and dying over `seconds`.
    static func stickSlip(
        _ ctx: inout RenderContext, seconds: Double, rate: ClosedRange<Double>, body: ClosedRange<Double>
    ) -> [Float] {
        let sr = ctx.sampleRate
        let length = Int(seconds * sr)
        var slips = [Float](repeating: 0, count: length)
        let from = ctx.rng.uniform(rate)
        let to = ctx.rng.uniform(rate)
        var t = 0.0
        while t < seconds {
            let x = t / seconds
            let at = Int(t * sr)
            let burst = Grain.noiseBurst(decay: 0.0015, sampleRate: sr, rng: &ctx.rng)
            let g = Float(SynthMath.sin(SynthMath.pi * min(1, x * 1.3)) * ctx.rng.uniform(0.6...1))
            for (i, v) in burst.enumerated() where at + i < length { slips[at + i] += v * g }
            t += 1 / (from + (to - from) * x) * ctx.rng.uniform(0.85...1.15)
        }
        let resonances = (0..<3).map { _ in ctx.rng.uniform(body) }
        var out = [Float](repeating: 0, count: length)
        for f in resonances { Loop.mix(Grain.filtered(slips, Biquad.bandPass(f, q: 6, sampleRate: sr)), into: &out) }
        return out
    }

    /// The close sounds of a café, one clip each: cups set down, spoons stirring and dropped, the door, a chair
    /// scraped back, the grinder; each in the room's echo.
    static let closeSounds = EventRecipe(
        count: 10, channels: 1, seconds: 5, levelLU: 4, perHour: 90, minGapSeconds: 12, gainDB: -15...(-3),
        pan: -0.8...0.8
    ) { ctx, index in
        let sr = ctx.sampleRate
        var sound = [Float](repeating: 0, count: Int(3.2 * sr))
        switch index {
        case 0, 1:
            // A cup set down on its saucer: a clink, and a smaller one as it settles.
            Loop.add(clink(&ctx, metal: false), at: 0, into: &sound)
            Loop.add(clink(&ctx, metal: false), at: Int(ctx.rng.uniform(0.04...0.12) * sr), gain: 0.4, into: &sound)
        case 2, 3:
            // A spoon stirring: light taps on the cup's wall, then laid on the saucer.
            var at = 0
            for _ in 0..<Int(ctx.rng.uniform(4...8.99)) {
                Loop.add(clink(&ctx, metal: true), at: at, gain: Float(ctx.rng.uniform(0.25...0.45)), into: &sound)
                at += Int(ctx.rng.uniform(0.15...0.25) * sr)
            }
            Loop.add(clink(&ctx, metal: true), at: at + Int(0.3 * sr), gain: 0.8, into: &sound)
        case 4:
            // A spoon dropped on a saucer: bounces, each sooner and softer.
            var at = 0
            var gap = ctx.rng.uniform(0.1...0.16)
            var g = 1.0
            for _ in 0..<6 {
                Loop.add(clink(&ctx, metal: true), at: at, gain: Float(g), into: &sound)
                at += Int(gap * sr)
                gap *= 0.65
                g *= 0.6
            }
        case 5, 6:
            Loop.add(door(&ctx), at: 0, into: &sound)
        case 7, 8:
            // A chair scraped back, and set down.
            let scrape = stickSlip(&ctx, seconds: ctx.rng.uniform(0.35...0.8), rate: 40...120, body: 250...1_200)
            Loop.add(scrape, at: 0, into: &sound)
            let knock = Grain.filtered(
                Grain.noiseBurst(decay: 0.015, sampleRate: sr, rng: &ctx.rng), Biquad.lowPass(1_500, sampleRate: sr))
            Loop.add(knock, at: scrape.count + Int(0.1 * sr), gain: 0.6, into: &sound)
        default:
            Loop.add(grinder(&ctx, seconds: ctx.rng.uniform(2.2...3.2)), at: 0, into: &sound)
        }
        let lead = [Float](repeating: 0, count: Int(0.02 * sr))
        // A few metres off, across tables: the air and the room round off the contacts' edges (a cup is set down
        // at the next table, not at the ear), and the room's echo carries more of it.
        var clip = Grain.filtered(
            Grain.filtered(
                lead + sound + [Float](repeating: 0, count: Int(1 * sr)),
                FilterChain([Biquad.highPass(40, sampleRate: sr), Biquad.lowPass(4_000, sampleRate: sr)])),
            RoomReverb(sampleRate: sr, size: 2, decay: 0.9, damping: 0.5, wet: 0.7, seed: 50 + UInt64(index)))
        if clip.count > ctx.frames { clip.removeLast(clip.count - ctx.frames) }
        let fade = Int(0.3 * sr)
        for i in 0..<fade { clip[clip.count - fade + i] *= Float(SynthMath.pow(1 - Double(i + 1) / Double(fade), 2)) }
        return [clip]
    }

    static let cafe = SoundRecipe(
        id: "cafe", title: "Coffee shop", category: "places",
        description:
            "A busy café: the murmur of conversations all around, cups and spoons, the espresso machine now and then.",
        seconds: 60, channels: 2, seed: 0x4341_4645_02,
        recipe:
            "cafe/3: bed of 20 talkers at 8 tables (4-18 m) taking turns, each a glottal pulse train (men 95-135 Hz, "
            + "women 175-235 Hz, falling over the phrase, lifted on stresses) with breath (-26 dB, > 2 kHz) through "
            + "3 formant resonators set by a random vowel per syllable (0.12-0.3 s), sibilants 2.5-9 kHz and bursts "
            + "(-15 dB); distant clatter (3 cups, plates and spoons a second, smeared by the room); a café's echo "
            + "(1 s); air handling 80-220 Hz and a faint hiss above 2 kHz (-36 dB); events: 10 close sounds (cups set down, "
            + "spoons stirring and dropped, a door, a chair scraped back, the grinder) at the next tables (low-passed "
            + "at 4 kHz, 70 % echo, +4 LU, -15 to -3 dB), 90 an hour",
        events: closeSounds
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var room = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        func place(_ sound: [Float], gain: Double, pan: Double, into target: inout [[Float]]) {
            let (l, r) = ctx.pan(pan)
            Loop.mix(sound, gain: Float(gain) * l, into: &target[0])
            Loop.mix(sound, gain: Float(gain) * r, into: &target[1])
        }
        // Tables of two or three, each taking turns; none close enough to follow.
        for table in 0..<8 {
            let people = table % 2 == 0 ? 3 : 2
            let distance = ctx.rng.uniform(4...18)
            let pan = ctx.rng.uniform(-0.9...0.9)
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
                let muffled = Loop.filtered(voice, Biquad.lowPass(min(12_000, 60_000 / distance), sampleRate: sr))
                place(
                    muffled, gain: level, pan: max(-1, min(1, pan + ctx.rng.uniform(-0.15...0.15))), into: &room)
            }
        }
        // (At least a floor: a loop too short for a word still gets its room.)
        let voicesRMS = max(1e-4, room.map { Loop.rms($0) }.reduce(0, +) / 2)
        // Distant clatter: cups, plates and cutlery at the counter and in the kitchen, many and faint.
        var clatter = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        for t in ctx.eventTimes(rate: 3) {
            let (l, r) = ctx.pan(ctx.rng.uniform(-1...1))
            let g = Float(ctx.rng.logUniform(0.1...1))
            let piece = clink(&ctx, metal: ctx.rng.unit() < 0.4)
            Loop.add(piece, at: t, gain: g * l, into: &clatter[0])
            Loop.add(piece, at: t, gain: g * r, into: &clatter[1])
        }
        let clatterRMS = max(1e-9, clatter.map { Loop.rms($0) }.reduce(0, +) / 2)
        let clatterShape = Biquad.lowPass(6_000, sampleRate: sr)
        for c in 0..<2 {
            let far = Loop.filtered(
                Loop.filtered(clatter[c], clatterShape),
                RoomReverb(
                    sampleRate: sr, size: 2.5, decay: 1.1, damping: 0.6, wet: 1.2, dry: 0.3, seed: 60 + UInt64(c)))
            Loop.mix(far, gain: Float(voicesRMS * 0.12 / clatterRMS), into: &room[c])
        }
        let airs = ctx.blend(
            common: ctx.brownNoise(corner: 60), left: ctx.brownNoise(corner: 60), right: ctx.brownNoise(corner: 60),
            correlation: 0.6)
        let hisses = ctx.blend(common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.2)
        return (0..<2).map { c in
            var out = Loop.filtered(
                room[c], RoomReverb(sampleRate: sr, size: 2.5, decay: 1, damping: 0.45, wet: 0.7, seed: 30 + UInt64(c)))
            let air = Loop.filtered(
                airs[c], FilterChain([Biquad.lowPass(220, sampleRate: sr), Biquad.highPass(80, sampleRate: sr)]))
            Loop.mix(Loop.normalizedRMS(air), gain: Float(voicesRMS * 2), into: &out)
            let hiss = Loop.filtered(hisses[c], Biquad.highPass(2_000, sampleRate: sr))
            Loop.mix(Loop.normalizedRMS(hiss), gain: Float(voicesRMS * 0.015), into: &out)
            return out
        }
    }
}
