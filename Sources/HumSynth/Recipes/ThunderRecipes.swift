import HumCore

/// Thunder, from the way it is made.
///
/// A lightning channel is a crooked line kilometres long; every short piece of it sends out a shock that has become,
/// a few hundred metres on, an N-wave: a jump of pressure, a straight fall through zero to as far below, a jump
/// back. They reach the listener at distance / 343 m/s, so one stroke is heard as seconds of arrivals: where the
/// channel runs across the line of sight many pieces are at nearly the same distance and their N-waves pile up into a
/// clap; where it runs away from the listener they string out into a roll. Far pieces arrive weaker (1/r) and
/// darker (air absorbs the highs over kilometres). Hills and clouds then echo it all for ten seconds or more: the
/// long tail. (After Few 1969 and Ribner & Roy 1982.)
enum ThunderRecipes {
    /// One stroke heard from `distance` metres: both channels (the echoes come from everywhere, the direct
    /// sound from the stroke's side), of `length` frames, starting with the first arrival at frame 0.
    static func stroke(
        _ ctx: inout RenderContext, distance: Double, length: Int, pan: Double, echo: Double
    ) -> [[Float]] {
        let sr = ctx.sampleRate
        let c = 343.0
        var direct = [Float](repeating: 0, count: length)
        // The channel: a random walk of 6-12 m pieces from the cloud (4-6 km up) down to the ground, with one to
        // three branches, at a horizontal `distance` from the listener.
        var pieces: [(x: Double, y: Double, z: Double)] = []
        let top = ctx.rng.uniform(4_000...6_000)
        var walk = (x: distance, y: 0.0, z: top)
        var heading = (x: ctx.rng.uniform(-0.6...0.6), y: ctx.rng.uniform(-0.6...0.6))
        while walk.z > 0 {
            let step = ctx.rng.uniform(6...12)
            heading.x = max(-1.2, min(1.2, heading.x + ctx.rng.uniform(-0.35...0.35)))
            heading.y = max(-1.2, min(1.2, heading.y + ctx.rng.uniform(-0.35...0.35)))
            let norm = (1 + heading.x * heading.x + heading.y * heading.y).squareRoot()
            walk.x += step * heading.x / norm
            walk.y += step * heading.y / norm
            walk.z -= step / norm
            pieces.append(walk)
        }
        for _ in 0..<Int(ctx.rng.uniform(1...3.99)) {
            var branch = pieces[Int(ctx.rng.uniform(0...0.6) * Double(pieces.count))]
            var h = (x: ctx.rng.uniform(-1.5...1.5), y: ctx.rng.uniform(-1.5...1.5))
            for _ in 0..<Int(ctx.rng.uniform(80...300)) {
                let step = ctx.rng.uniform(6...12)
                h.x += ctx.rng.uniform(-0.4...0.4)
                h.y += ctx.rng.uniform(-0.4...0.4)
                let norm = (1 + h.x * h.x + h.y * h.y).squareRoot()
                branch.x += step * h.x / norm
                branch.y += step * h.y / norm
                branch.z -= 0.6 * step / norm
                if branch.z < 0 { break }
                pieces.append(branch)
            }
        }
        var nearest = Double.infinity
        for p in pieces { nearest = min(nearest, (p.x * p.x + p.y * p.y + p.z * p.z).squareRoot()) }
        // Every piece's N-wave: longer from farther (the shock stretches as it travels), 1/r weaker.
        for p in pieces {
            let r = (p.x * p.x + p.y * p.y + p.z * p.z).squareRoot()
            let at = Int((r - nearest) / c * sr)
            guard at < length else { continue }
            let duration = ctx.rng.uniform(0.6...1.4) * (0.002 + 0.003 * r / 1_000)
            let frames = max(2, Int(duration * sr))
            let amplitude = Float(1_000 / r * ctx.rng.uniform(0.5...1))
            for i in 0..<frames where at + i < length {
                direct[at + i] += amplitude * (1 - 2 * Float(i) / Float(frames))
            }
        }
        // Air absorbs the highs over the kilometres: a low-pass lower the farther the stroke.
        let dark = 14_000 / (1 + distance / 400)
        direct = Grain.filtered(direct, Biquad.lowPass(dark, q: 0.6, sampleRate: sr))
        // The echo: low noise following the arrivals' envelope, smeared over seconds by the terrain.
        var envelope = [Float](repeating: 0, count: length)
        var held = 0.0
        let smear = SynthMath.exp(-1 / (ctx.rng.uniform(2.5...4) * sr))
        let follow = SynthMath.exp(-1 / (0.05 * sr))
        var fast = 0.0
        for i in 0..<length {
            fast = max(Double(abs(direct[i])), fast * follow)
            held = max(fast, held * smear)
            envelope[i] = Float(held)
        }
        var local = RenderContext(sampleRate: sr, frames: length, rng: SplitMix64(seed: ctx.rng.next()))
        let rumbleShape = FilterChain([
            Biquad.lowPass(min(dark, 700), sampleRate: sr), Biquad.highPass(30, sampleRate: sr),
        ])
        let pans = local.pan(pan)
        let directRMS = max(1e-9, Float(Loop.rms(direct)))
        return (0..<2).map { side in
            var echoNoise = Grain.filtered(local.brownNoise(corner: 120), rumbleShape)
            let echoRMS = Float(Loop.rms(echoNoise))
            for i in 0..<length { echoNoise[i] *= envelope[i] / max(echoRMS, 1e-9) }
            let gain = side == 0 ? pans.left : pans.right
            var out = Loop.scaled(direct, gain * 1.4 / directRMS)
            Loop.mix(echoNoise, gain: Float(echo) / directRMS, into: &out)
            return out
        }
    }

    /// One stroke as a one-shot clip: 20 ms of silence, the stroke heard from `distance` metres, its tail
    /// faded over its last second, and cut once it has died 60 dB under its peak.
    static func strokeClip(_ ctx: inout RenderContext, distance: Double, pan: Double, echo: Double) -> [[Float]] {
        let sr = ctx.sampleRate
        let lead = Int(0.02 * sr)
        let length = ctx.frames - lead
        // Nothing under 25 Hz: a clip that starts and ends in silence must have no mean to take out afterwards.
        var roll = stroke(&ctx, distance: distance, length: length, pan: pan, echo: echo).map {
            Grain.filtered($0, Biquad.highPass(25, sampleRate: sr))
        }
        var peak: Float = 0
        for c in roll { for x in c { peak = max(peak, abs(x)) } }
        var last = 0
        for c in roll { if let i = c.lastIndex(where: { abs($0) > peak * 0.001 }) { last = max(last, i) } }
        let end = min(length, last + Int(0.3 * sr))
        let fade = min(Int(sr), end / 2)
        for c in 0..<2 {
            roll[c].removeLast(length - end)
            for i in 0..<fade { roll[c][end - fade + i] *= Float(1 - Double(i + 1) / Double(fade)) }
        }
        return roll.map { [Float](repeating: 0, count: lead) + $0 }
    }

    /// Six strokes from 1.5 to 10 km away, each its own channel: the thunder and the storm draw from them.
    static let strokes = EventRecipe(
        count: 6, channels: 2, seconds: 20, levelLU: 4, perHour: 36, minGapSeconds: 25, gainDB: -10...0,
        pan: -0.6...0.6
    ) { ctx, index in
        // Spread over distance, nearest first, so the bank holds claps and rolls alike.
        let bands: [ClosedRange<Double>] = [
            1_500...2_000, 2_200...3_000, 3_200...4_200, 4_500...5_800, 6_000...7_800, 8_000...10_000,
        ]
        let distance = ctx.rng.uniform(bands[index % bands.count])
        // The farther, the more of it is echo.
        let echo = 0.8 + 0.6 * (distance - 1_500) / 8_500
        return strokeClip(&ctx, distance: distance, pan: 0, echo: echo)
    }

    static let thunder = SoundRecipe(
        id: "thunder", title: "Distant thunder", category: "weather",
        description:
            "A summer storm passing at a distance: long rolls of thunder now and then over soft, far-off rain.",
        seconds: 60, channels: 2, seed: 0x5448_554E_4401,
        recipe:
            "thunder/2: bed of the grumble of far storms (brown noise 25-120 Hz swelling 1-4 times a minute), far "
            + "rain (pink noise 600 Hz-2.5 kHz, -3 dB) and a whisper of wind (-18 dB); events: 6 strokes 1.5-10 km "
            + "away, each a crooked 4-6 km channel of 6-12 m pieces with 1-3 branches, every piece an N-wave "
            + "arriving at r/343 m/s (1/r, 4-60 ms long), low-passed by distance, echoed by noise falling "
            + "6 dB/octave above 120 Hz (< 700 Hz) following the arrivals over 2.5-4 s; 36 an hour",
        events: strokes
    ) { ctx in
        let sr = ctx.sampleRate
        let bed = WeatherRecipes.rainBed(&ctx, low: 600, high: 2_500, body: 1_200)
        let breeze = ctx.blend(
            common: ctx.brownNoise(corner: 200), left: ctx.brownNoise(corner: 200),
            right: ctx.brownNoise(corner: 200), correlation: 0.5)
        let grumbles = ctx.blend(
            common: ctx.brownNoise(corner: 40), left: ctx.brownNoise(corner: 40),
            right: ctx.brownNoise(corner: 40), correlation: 0.6)
        let swell = Loop.exponentialMap(ctx.wander(perMinute: 1...4, tilt: 1.5), low: 0.35, high: 1.4)
        return (0..<2).map { c in
            var mix = Loop.scaled(bed[c], Float(SynthMath.amplitude(dB: -3)))
            let wind = Loop.normalizedRMS(Loop.filtered(breeze[c], Biquad.highPass(60, sampleRate: sr)))
            Loop.mix(wind, gain: Float(SynthMath.amplitude(dB: -18)), into: &mix)
            let grumble = Loop.normalizedRMS(
                Loop.filtered(
                    grumbles[c],
                    FilterChain([Biquad.lowPass(120, sampleRate: sr), Biquad.highPass(25, sampleRate: sr)])))
            Loop.mix(Loop.modulated(grumble, by: swell), gain: 1, into: &mix)
            return mix
        }
    }
}
