import HumCore

/// A city heard from an open window above a street: a steady bed of traffic roar with the street's own small
/// sounds, and the cars that pass close as events.
///
/// The roar of distant traffic is the sum of countless tyres (a broad hump around 600-1200 Hz and a hiss reaching
/// past 8 kHz) and engines (below 150 Hz), with cars far off (60-200 m) coming and going in it; it never falls
/// quiet, and its top octave never empties. People walk by on the pavement below. A car passing close is a one-shot
/// event rendered from its physics: its engine (firing at a rate that follows its speed, louder behind it, where the
/// exhaust points) and its tyres (road noise growing with speed, loudest ahead of it) travel along the street; what
/// the window hears at time t left the car at the time τ with τ + r(τ)/c = t, so the pitch of everything rises as
/// it comes and falls as it goes (Doppler), 1/r weaker and darker with distance (air absorbs the highs), moving
/// across the stereo field, in the street's echo. The engine behind and the echo make a pass swell slowly and die
/// away longer: not a symmetric bell. Blanket's and Moodist's street recordings as the yardstick: centroid
/// 350-610 Hz, slope -5.3 to -7.2 dB an octave, 4-7.5 swells a minute.
enum CityRecipes {
    /// One vehicle passing at `closest` metres from the listener, starting at `speed` m/s and gaining `accel`
    /// m/s², its engine firing at `firing` Hz at that speed: both channels, `seconds` long, the closest point at
    /// `middle` (0-1) of it, no reverb.
    static func passing(
        _ ctx: inout RenderContext, seconds: Double, closest: Double, speed: Double, accel: Double = 0,
        firing: Double, tyres: Double, engine: Double, direction: Double, middle: Double = 0.5
    ) -> [[Float]] {
        let sr = ctx.sampleRate
        let length = Int(seconds * sr)
        let c = 343.0
        // The source as it is at the car, over a little more than the clip (the sound heard late left early).
        let margin = Int((closest * 6 + speed * seconds) / c * sr) + 16
        let sourceLength = length + margin
        let t0 = -Double(margin) / sr - middle * seconds  // source time of sample 0, the closest point at 0
        // A car pulling away (accel > 0) waited at the lights until it was 0.5 m/s under `speed`/`accel` seconds
        // before passing.
        let stop = accel > 0 ? (0.5 - speed) / accel : -Double.infinity
        func position(_ tau: Double) -> Double {
            guard tau < stop else { return direction * (speed * tau + 0.5 * accel * tau * tau) }
            return direction * (speed * stop + 0.5 * accel * stop * stop + 0.5 * (tau - stop))
        }
        func velocity(_ tau: Double) -> Double { max(0.5, speed + accel * tau) }
        var road = Grain.filtered(
            Loop.whiteNoise(frames: sourceLength, rng: &ctx.rng),
            FilterChain([
                Biquad.peak(ctx.rng.uniform(700...1_100), q: 0.6, gainDB: 8, sampleRate: sr),
                Biquad.highPass(200, sampleRate: sr), Biquad.lowPass(9_000, q: 0.5, sampleRate: sr),
            ]))
        let roadRMS = Float(max(1e-9, Loop.rms(road)))
        var motorNoise = Grain.filtered(
            Loop.whiteNoise(frames: sourceLength, rng: &ctx.rng), Biquad.lowPass(700, sampleRate: sr))
        let motorRMS = Float(max(1e-9, Loop.rms(motorNoise)))
        var tyreSource = [Float](repeating: 0, count: sourceLength)
        var engineSource = [Float](repeating: 0, count: sourceLength)
        var phase = ctx.rng.unit()
        var wheel = ctx.rng.unit()
        var cycleGain = 1.0
        for j in 0..<sourceLength {
            let tau = t0 + Double(j) / sr
            let v = velocity(tau)
            let ratio = v / speed
            phase += firing * max(0.45, min(1.6, ratio)) / sr
            if phase >= 1 {
                phase -= 1
                cycleGain = ctx.rng.uniform(0.75...1.25)  // no two firings alike
            }
            wheel += v / (2 * SynthMath.pi * 0.31) / sr
            // A four-stroke's firing: a buzzy pulse, its harmonics falling, and the noise of the intake.
            let buzz =
                SynthMath.sinCycles(phase) + 0.6 * SynthMath.sinCycles(2 * phase + 0.1) + 0.35
                * SynthMath.sinCycles(3 * phase + 0.3) + 0.2 * SynthMath.sinCycles(4 * phase + 0.5)
            engineSource[j] = Float(
                engine * max(0.5, min(1.6, ratio)) * (buzz * cycleGain + 1.5 * Double(motorNoise[j] / motorRMS)))
            // Tyre noise grows with the cube of speed; the tread beats faintly at the wheel's turn.
            let tread = 1 + 0.15 * SynthMath.sinCycles(wheel)
            tyreSource[j] = Float(tyres * ratio * ratio * ratio * tread) * road[j] / roadRMS
        }
        road = []
        motorNoise = []
        var out = [[Float]](repeating: [Float](repeating: 0, count: length), count: 2)
        var svf = StateVariableFilter(sampleRate: sr)
        for i in 0..<length {
            let t = Double(i) / sr - middle * seconds
            // When did what is heard now leave the car: τ + r(τ)/c = t (two rounds of fixed point are plenty).
            var tau = t - closest / c
            for _ in 0..<3 {
                let x = position(tau)
                tau = t - (closest * closest + x * x).squareRoot() / c
            }
            let x = position(tau)
            let r = (closest * closest + x * x).squareRoot()
            let at = (tau - t0) * sr
            let k = max(0, min(sourceLength - 2, Int(at)))
            let f = Float(at - Double(k))
            let tyre = tyreSource[k] * (1 - f) + tyreSource[k + 1] * f
            let motor = engineSource[k] * (1 - f) + engineSource[k + 1] * f
            // Where the car points: ahead (+1) when the listener is in front of it, behind (-1) once it is past.
            let ahead = -x * direction / r
            let v = Double(tyre) * (1 + 0.35 * ahead) + Double(motor) * (1 - 0.45 * ahead)
            // Air takes the highs: a low-pass falling with distance.
            let cutoff = min(16_000, 200_000 / r)
            let heard = Double(svf.process(Float(v), cutoff: cutoff, q: 0.6).lowPass) * closest / r
            let angle = (max(-1, min(1, 0.85 * x / r)) + 1) * SynthMath.pi / 4
            let sc = SynthMath.sinCos(angle)
            out[0][i] = Float(heard * sc.cos)
            out[1][i] = Float(heard * sc.sin)
        }
        // Fade the ends so a car never starts or stops abruptly.
        let fade = min(Int(1 * sr), length / 2)
        for ch in 0..<2 {
            for i in 0..<fade {
                let g = Float(Double(i) / Double(fade))
                out[ch][i] *= g
                out[ch][length - 1 - i] *= g
            }
        }
        return out
    }

    /// Cars passing in the street below: five cars, a van, a motorbike and a car pulling away from the lights.
    static let cars = EventRecipe(
        count: 8, channels: 2, seconds: 10, levelLU: -1.5, perHour: 150, minGapSeconds: 5, gainDB: -10...0,
        pan: -0.3...0.3
    ) { ctx, index in
        let sr = ctx.sampleRate
        let direction = ctx.rng.unit() < 0.5 ? -1.0 : 1.0
        let seconds = ctx.seconds - 1.6
        var car: [[Float]]
        switch index {
        case 5:
            car = passing(
                &ctx, seconds: seconds, closest: ctx.rng.uniform(9...16), speed: ctx.rng.uniform(8...11),
                firing: ctx.rng.uniform(22...32), tyres: 1.2, engine: 1.4, direction: direction, middle: 0.45)
        case 6:
            car = passing(
                &ctx, seconds: seconds, closest: ctx.rng.uniform(8...14), speed: ctx.rng.uniform(11...15),
                firing: ctx.rng.uniform(70...95), tyres: 0.4, engine: 1.3, direction: direction, middle: 0.4)
        case 7:
            car = passing(
                &ctx, seconds: seconds, closest: ctx.rng.uniform(8...14), speed: ctx.rng.uniform(4...6),
                accel: ctx.rng.uniform(1.5...2.5), firing: ctx.rng.uniform(35...45), tyres: 0.8, engine: 1.1,
                direction: direction, middle: 0.35)
        default:
            car = passing(
                &ctx, seconds: seconds, closest: ctx.rng.uniform(7...18), speed: ctx.rng.uniform(9...14),
                firing: ctx.rng.uniform(40...70), tyres: 1, engine: ctx.rng.uniform(0.35...0.7), direction: direction,
                middle: ctx.rng.uniform(0.4...0.5))
        }
        // The street's echo, a little longer than the pass; 20 ms of silence first.
        let lead = [Float](repeating: 0, count: Int(0.02 * sr))
        let tail = [Float](repeating: 0, count: Int(1.5 * sr))
        return (0..<2).map { side in
            // Nothing under 20 Hz: a clip that starts and ends in silence must have no mean to take out afterwards.
            var clip = Grain.filtered(
                Grain.filtered(
                    lead + car[side] + tail,
                    RoomReverb(sampleRate: sr, size: 3, decay: 1.2, damping: 0.5, wet: 0.3, seed: 70 + UInt64(side))),
                FilterChain([Biquad.highPass(20, sampleRate: sr), Biquad.highPass(20, sampleRate: sr)]))
            if clip.count > ctx.frames { clip.removeLast(clip.count - ctx.frames) }
            let fade = Int(0.3 * sr)
            for i in 0..<fade {
                clip[clip.count - fade + i] *= Float(SynthMath.pow(1 - Double(i + 1) / Double(fade), 2))
            }
            return clip
        }
    }

    static let city = SoundRecipe(
        id: "city", title: "Distant city", category: "city",
        description:
            "A city from an open window: the steady roar of traffic, cars passing in the street below, people walking by.",
        seconds: 60, channels: 2, seed: 0x4349_5459_02,
        recipe:
            "city/2: bed of traffic roar (pink noise, humps at 80 and 900 Hz, > 1.5 kHz falling 9 dB an octave), a "
            + "tyre hiss floor 2-10 kHz peaking at 4 kHz (-6 dB), 20 cars a minute 60-200 m off and footsteps on the pavement (a "
            + "walker every 12 s, heel and sole 1.8-2.2 steps a second), street echo 1.2 s; events: 8 close passes "
            + "(5 cars, a van, a motorbike, a car pulling away) at 7-18 m, engine firing with speed and louder "
            + "behind, tyre noise ∝ v³ louder ahead, heard at τ + r(τ)/c = t (Doppler, delay), 1/r, air "
            + "absorption, street echo; 150 an hour",
        events: cars
    ) { ctx in
        let sr = ctx.sampleRate
        let n = ctx.frames
        var street = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        // Cars farther off, coming and going in the roar.
        for t in ctx.eventTimes(rate: 20.0 / 60) {
            let car = passing(
                &ctx, seconds: min(ctx.seconds, ctx.rng.uniform(10...16)), closest: ctx.rng.uniform(60...200),
                speed: ctx.rng.uniform(8...15), firing: ctx.rng.uniform(30...70), tyres: 1,
                engine: ctx.rng.uniform(0.3...0.8), direction: ctx.rng.unit() < 0.5 ? -1 : 1)
            let gain = Float(ctx.rng.uniform(0.5...1))
            Loop.add(car[0], at: t, gain: gain, into: &street[0])
            Loop.add(car[1], at: t, gain: gain, into: &street[1])
        }
        let farRMS = max(1e-6, street.map { Loop.rms($0) }.reduce(0, +) / 2)
        // People walking by below: heel and sole on the pavement.
        var steps = [[Float]](repeating: [Float](repeating: 0, count: n), count: 2)
        for t in ctx.eventTimes(rate: 1.0 / 12) {
            let rate = ctx.rng.uniform(1.8...2.2)
            let count = Int(ctx.rng.uniform(8...18.99))
            let from = ctx.rng.uniform(-0.9...0.9)
            let to = max(-1, min(1, from + ctx.rng.uniform(-0.8...0.8)))
            let level = ctx.rng.uniform(0.4...1)
            let tone = ctx.rng.uniform(1_200...2_800)
            for k in 0..<count {
                let x = Double(k) / Double(count - 1)
                let at = t + Int((Double(k) / rate + ctx.rng.uniform(-0.02...0.02)) * sr)
                let heel = Grain.filtered(
                    Grain.noiseBurst(decay: ctx.rng.uniform(0.006...0.012), sampleRate: sr, rng: &ctx.rng),
                    Biquad.bandPass(tone, q: 1.2, sampleRate: sr))
                let sole = Grain.filtered(
                    Grain.noiseBurst(decay: 0.02, attack: 0.004, sampleRate: sr, rng: &ctx.rng),
                    Biquad.bandPass(tone * 0.4, q: 0.8, sampleRate: sr))
                let (l, r) = ctx.pan(from + (to - from) * x)
                let g = Float(level * SynthMath.sin(SynthMath.pi * (0.1 + 0.8 * x)) * ctx.rng.uniform(0.7...1))
                for (grain, w) in [(heel, Float(1)), (sole, Float(0.5))] {
                    Loop.add(grain, at: at, gain: g * w * l, into: &steps[0])
                    Loop.add(grain, at: at + Int(0.03 * sr), gain: g * w * r * 0.9, into: &steps[1])
                }
            }
        }
        let stepsRMS = max(1e-9, steps.map { Loop.rms($0) }.reduce(0, +) / 2)
        let roars = ctx.blend(
            common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.5)
        let hisses = ctx.blend(
            common: ctx.pinkNoise(), left: ctx.pinkNoise(), right: ctx.pinkNoise(), correlation: 0.1)
        let density = Loop.exponentialMap(ctx.wander(perMinute: 1...3), low: 0.9, high: 1.1)
        let roarShape = FilterChain([
            Biquad.highPass(35, sampleRate: sr), Biquad.peak(80, q: 1, gainDB: 10, sampleRate: sr),
            Biquad.peak(900, q: 0.8, gainDB: 3, sampleRate: sr), Biquad.lowPass(1_500, q: 0.5, sampleRate: sr),
        ])
        let hissShape = FilterChain([
            Biquad.highPass(2_000, sampleRate: sr), Biquad.peak(4_000, q: 1, gainDB: 6, sampleRate: sr),
            Biquad.lowPass(10_000, q: 0.5, sampleRate: sr),
        ])
        return (0..<2).map { c in
            var out = Loop.modulated(Loop.normalizedRMS(Loop.filtered(roars[c], roarShape)), by: density)
            Loop.mix(Loop.normalizedRMS(Loop.filtered(hisses[c], hissShape)), gain: 0.5, into: &out)
            Loop.mix(street[c], gain: Float(0.5 / farRMS), into: &out)
            Loop.mix(steps[c], gain: Float(0.12 / stepsRMS), into: &out)
            return Loop.filtered(
                out, RoomReverb(sampleRate: sr, size: 3, decay: 1.2, damping: 0.5, wet: 0.3, seed: 10 + UInt64(c)))
        }
    }
}
