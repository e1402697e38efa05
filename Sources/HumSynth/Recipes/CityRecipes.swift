import HumCore

/// A city heard from a window a street or two back.
///
/// The roar of distant traffic is the sum of countless tyres (a broad hump around 600-1200 Hz) and engines (below
/// 150 Hz), darkened by distance and the buildings between. Nearer cars pass now and then: each grows and fades over
/// several seconds as its distance shrinks and grows (level 1/r, highs absorbed when far), its engine's pitch falls
/// as it goes by (Doppler), and it crosses the stereo field. A bus or lorry rumbles deeper; far off a horn, and a few
/// sparrows close by. Blanket's and Moodist's street recordings as the yardstick: centroid 350-600 Hz, roll-off
/// 570-830 Hz, 4-7 swells a minute.
enum CityRecipes {
    /// One vehicle passing at `closest` metres, `speed` m/s, its engine firing at `firing` Hz: both channels,
    /// `seconds` long, the closest point in the middle.
    static func passing(
        _ ctx: inout RenderContext, seconds: Double, closest: Double, speed: Double, firing: Double,
        tyres: Double, engine: Double, direction: Double
    ) -> [[Float]] {
        let sr = ctx.sampleRate
        let length = Int(seconds * sr)
        let c = 343.0
        var tyre = Grain.filtered(
            Loop.whiteNoise(frames: length, rng: &ctx.rng),
            FilterChain([
                Biquad.bandPass(ctx.rng.uniform(500...800), q: 0.7, sampleRate: sr),
                Biquad.highPass(120, sampleRate: sr),
            ]))
        let tyreRMS = max(1e-6, Float(Loop.rms(tyre)))
        var out = [[Float]](repeating: [Float](repeating: 0, count: length), count: 2)
        var phase = ctx.rng.unit()
        var svf = StateVariableFilter(sampleRate: sr)
        for i in 0..<length {
            let t = (Double(i) / sr - seconds / 2)
            let x = speed * t * direction
            let r = (closest * closest + x * x).squareRoot()
            // Coming closer (x < 0 for a car going right) raises the pitch, going away lowers it.
            let approach = -x / r * direction * speed
            let doppler = c / (c - approach)
            phase += firing * doppler / sr
            let p = phase - phase.rounded(.down)
            // A four-stroke's firing: a buzzy pulse, its harmonics falling.
            let buzz =
                SynthMath.sinCycles(p) + 0.6 * SynthMath.sinCycles(2 * p + 0.1) + 0.35
                * SynthMath.sinCycles(3 * p + 0.3)
                + 0.2 * SynthMath.sinCycles(4 * p + 0.5)
            let level = closest / r
            // Air and buildings take the highs of far cars.
            let cutoff = 400 + 3_000 * level * level
            let v = Double(tyre[i] / tyreRMS) * tyres + buzz * engine
            let filtered = Double(svf.process(Float(v), cutoff: cutoff, q: 0.6).lowPass)
            let position = max(-1, min(1, x / (closest * 2.5)))
            let angle = (position + 1) * SynthMath.pi / 4
            let sc = SynthMath.sinCos(angle)
            out[0][i] = Float(filtered * level * sc.cos)
            out[1][i] = Float(filtered * level * sc.sin)
        }
        tyre = []
        // Fade the ends so a car never starts or stops abruptly.
        let fade = min(Int(0.5 * sr), length / 2)
        for ch in 0..<2 {
            for i in 0..<fade {
                let g = Float(Double(i) / Double(fade))
                out[ch][i] *= g
                out[ch][length - 1 - i] *= g
            }
        }
        return out
    }

    static let city = SoundRecipe(
        id: "city", title: "Distant city", category: "city",
        description:
            "A city from an open window: a soft roar of traffic, cars passing on the street below, a far-off horn.",
        seconds: 90, channels: 2, seed: 0x4349_5459_01,
        recipe:
            "city/1: traffic roar (pink noise, humps at 80 and 900 Hz, low-passed at 1.1 kHz, density drifting ±2 "
            + "dB); 7 cars a minute passing at 12-40 m and 8-15 m/s (tyre noise around 500-800 Hz, engine firing "
            + "at 25-45 Hz with harmonics, 1/r, highs absorbed when far, Doppler, panned), a bus or lorry (firing "
            + "15-22 Hz) every 40 s; a horn (two tones near 400 and 500 Hz) far off every 45 s; sparrow chirps "
            + "3.5-7 kHz; street reverb 1.2 s"
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var traffic = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        // Passing cars, and now and then something heavier.
        for t in ctx.eventTimes(rate: 7.0 / 60) {
            let car = passing(
                &ctx, seconds: min(ctx.seconds, ctx.rng.uniform(7...11)), closest: ctx.rng.uniform(12...40),
                speed: ctx.rng.uniform(8...15), firing: ctx.rng.uniform(25...45), tyres: 1,
                engine: ctx.rng.uniform(0.3...0.7), direction: ctx.rng.unit() < 0.5 ? -1 : 1)
            let gain = Float(ctx.rng.uniform(0.6...1))
            Loop.add(car[0], at: t, gain: gain, into: &traffic[0])
            Loop.add(car[1], at: t, gain: gain, into: &traffic[1])
        }
        for t in ctx.eventTimes(rate: 1.0 / 40) {
            let lorry = passing(
                &ctx, seconds: min(ctx.seconds, ctx.rng.uniform(10...14)), closest: ctx.rng.uniform(18...35),
                speed: ctx.rng.uniform(7...11), firing: ctx.rng.uniform(15...22), tyres: 0.8,
                engine: ctx.rng.uniform(0.9...1.3), direction: ctx.rng.unit() < 0.5 ? -1 : 1)
            Loop.add(lorry[0], at: t, gain: 1.3, into: &traffic[0])
            Loop.add(lorry[1], at: t, gain: 1.3, into: &traffic[1])
        }
        // A horn far off: two slightly detuned tones, a short blast or two, dark and smeared by the streets.
        var horns = [Float](repeating: 0, count: n)
        for t in ctx.eventTimes(rate: 1.0 / 45) {
            let low = ctx.rng.uniform(380...420)
            let length = Int(ctx.rng.uniform(0.25...0.6) * sr)
            var blast = [Float](repeating: 0, count: length)
            for i in 0..<length {
                let x = Double(i) / sr
                var v = 0.0
                for (f, g) in [(low, 1.0), (low * 1.26, 0.8)] {
                    for h in 1...4 { v += g / Double(h) * SynthMath.sinCycles(f * Double(h) * x) }
                }
                let edge = min(1, min(x / 0.02, (Double(length) / sr - x) / 0.03))
                blast[i] = Float(v * edge)
            }
            blast = Grain.filtered(blast, Biquad.lowPass(1_800, sampleRate: sr))
            Loop.add(blast, at: t, gain: 0.25, into: &horns)
            if ctx.rng.unit() < 0.5 {
                Loop.add(blast, at: t + Int(ctx.rng.uniform(0.5...0.8) * sr), gain: 0.2, into: &horns)
            }
        }
        // Sparrows: short chirps, in little bursts.
        var birds = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        for t in ctx.eventTimes(rate: 0.15) {
            let (l, r) = ctx.pan(ctx.rng.uniform(-0.8...0.8))
            var at = t
            for _ in 0..<Int(ctx.rng.uniform(2...7)) {
                let chirp = BirdRecipes.sweep(
                    from: ctx.rng.uniform(4_500...7_000), to: ctx.rng.uniform(3_500...5_500),
                    seconds: ctx.rng.uniform(0.03...0.07), sampleRate: sr)
                let g = Float(ctx.rng.uniform(0.02...0.05))
                Loop.add(chirp, at: at, gain: g * l, into: &birds[0])
                Loop.add(chirp, at: at, gain: g * r, into: &birds[1])
                at += Int(ctx.rng.uniform(0.12...0.35) * sr)
            }
        }
        let roars = ctx.blend(
            common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.5)
        let density = Loop.exponentialMap(ctx.wander(perMinute: 1...6), low: 0.8, high: 1.25)
        let roarShape = FilterChain([
            Biquad.highPass(35, sampleRate: sr), Biquad.peak(80, q: 1, gainDB: 9, sampleRate: sr),
            Biquad.peak(900, q: 1, gainDB: 7, sampleRate: sr),
            Biquad.lowPass(1_100, q: 0.5, sampleRate: sr),
        ])
        let trafficRMS = max(1e-4, traffic.map { Loop.rms($0) }.reduce(0, +) / 2)
        return (0..<2).map { c in
            var out = Loop.modulated(Loop.normalizedRMS(Loop.filtered(roars[c], roarShape), to: 0.5), by: density)
            Loop.mix(traffic[c], gain: Float(0.9 / trafficRMS), into: &out)
            Loop.mix(horns, gain: Float(0.9 / trafficRMS), into: &out)
            Loop.mix(birds[c], gain: Float(0.9 / trafficRMS), into: &out)
            return Loop.filtered(
                out, RoomReverb(sampleRate: sr, size: 3, decay: 1.2, damping: 0.5, wet: 0.3, seed: 10 + UInt64(c)))
        }
    }
}
