import Testing

@testable import HumCore

/// Renders `frames` frames from a mixer into a fresh array (interleaved stereo).
func renderFrames(_ mixer: Mixer, _ frames: Int) -> [Float] {
    var out = [Float](repeating: .nan, count: frames * 2)
    let n = out.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frames: frames) }
    return Array(out.prefix(n * 2))
}

func constantLoop(_ value: Float, frames: Int = 4800, channels: Int = 1) -> LoopBuffer {
    LoopBuffer(interleaved: [Float](repeating: value, count: frames * channels), channels: channels)
}

func left(_ stereo: [Float]) -> [Float] { stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] } }

func largestStep(_ signal: [Float]) -> Float {
    zip(signal.dropFirst(), signal).map { abs($0 - $1) }.max() ?? 0
}

@Suite struct GainRampTests {
    @Test func reachesTargetExactlyAfterTheRamp() {
        var ramp = GainRamp(gain: 1, rampFrames: 100)
        ramp.setTarget(0)
        ramp.advance(99)
        #expect(ramp.isRamping)
        #expect(abs(ramp.current - 0.01) < 1e-5)
        ramp.advance(1)
        #expect(!ramp.isRamping)
        #expect(ramp.current == 0)
    }

    @Test func retargetingMidwayStartsFromTheCurrentGain() {
        var ramp = GainRamp(gain: 0, rampFrames: 100)
        ramp.setTarget(1)
        ramp.advance(50)
        let before = ramp.current
        ramp.setTarget(0)
        #expect(ramp.current == before)
        #expect(abs(ramp.increment - (-before / 100)) < 1e-7)
    }
}

@Suite struct FadeEnvelopeTests {
    func fadeCurve(_ fade: inout FadeEnvelope, frames: Int) -> [Float] {
        var out = [Float](repeating: 0, count: frames)
        var result = out
        out.withUnsafeMutableBufferPointer { buffer in
            if fade.fill(buffer.baseAddress!, frames: frames) {
                result = Array(buffer)
            } else {
                result = [Float](repeating: buffer[0], count: frames)
            }
        }
        return result
    }

    @Test func fadesToSilenceInExactlyTheRequestedFramesOnALogCurve() {
        var fade = FadeEnvelope()
        fade.start(toSilence: true, frames: 1000)
        let curve = fadeCurve(&fade, frames: 1200)
        #expect(curve[998] > 0)
        #expect(curve[999] == 0)
        #expect(curve[1199] == 0)
        #expect(zip(curve.dropFirst(), curve).allSatisfy { $0 <= $1 })
        // Linear in dB: halfway is −30 dB (less the tiny offset that lands the curve on zero).
        #expect(abs(curve[499] - 0.0316) < 0.002)
        #expect(fade.isSilent)
    }

    @Test func reversingMidwayDoesNotJump() {
        var fade = FadeEnvelope()
        fade.start(toSilence: true, frames: 1000)
        let down = fadeCurve(&fade, frames: 400)
        fade.start(toSilence: false, frames: 400)
        let up = fadeCurve(&fade, frames: 500)
        let joined = down + up
        // A 60 dB fade over 1000 frames moves at most ~0.7 % per frame; a reversal adds no larger step.
        #expect(largestStep(joined) < 0.008)
        #expect(up[399] == 1 && up[499] == 1)
        #expect(!fade.isMoving)
    }

    @Test func holdingMidwayKeepsTheLevel() {
        var fade = FadeEnvelope()
        fade.start(toSilence: true, frames: 1000)
        let down = fadeCurve(&fade, frames: 300)
        fade.hold()
        let held = fadeCurve(&fade, frames: 300)
        #expect(held.allSatisfy { abs($0 - down[299]) < 1e-4 })
    }

    @Test func theAudioThreadsRoundingIsTheStandardOne() {
        var rng = SplitMix64(seed: 8)
        var values: [Double] = [
            0, -0.0, 0.5, -0.5, 1.5, -2.5, 0.49999999999999994, -0.49999999999999994, 4503599627370495.5,
        ]
        values += [.nan, .infinity, -.infinity, 1e300, -1e19, Double.ulpOfOne, 2.5000000000000004]
        for _ in 0..<100_000 { values.append(Double(rng.nextSignedUnit()) * 40) }
        for k in -200...200 { values.append(Double(k) / 2) }
        for x in values {
            let expected = x.rounded()
            let got = FadeEnvelope.roundedHalfAway(x)
            #expect(got == expected || (got.isNaN && expected.isNaN), "\(x)")
        }
    }

    @Test func pow10MatchesKnownValues() {
        #expect(abs(FadeEnvelope.pow10(-3) - 0.001) < 1e-12)
        #expect(abs(FadeEnvelope.pow10(-1.5) - 0.031622776601683794) < 1e-12)
        #expect(FadeEnvelope.pow10(0) == 1)
    }
}

@Suite struct MixerTests {
    @Test func volumeChangesRampWithoutASteps() {
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(sampleRate: 48000, tracks: [.init(loop: constantLoop(0.5))], controls: controls)
        let before = left(renderFrames(mixer, 480))
        #expect(before.allSatisfy { abs($0 - 0.5) < 1e-4 })
        controls.setVolume(50, track: 0)
        // Heard after the limiter's look-ahead: the mix runs that far ahead of what comes out.
        let l = mixer.latencyFrames
        let after = left(renderFrames(mixer, 4800))
        let rampFrames = Int(48000 * Mixer.rampSeconds)
        #expect(after[..<l].allSatisfy { abs($0 - 0.5) < 1e-4 })
        #expect(abs(after[l + rampFrames - 1] - 0.0625) < 1e-4)  // (50/100)^3 × 0.5
        #expect(after[l + rampFrames / 2] > 0.07 && after[l + rampFrames / 2] < 0.49)
        #expect(largestStep(before + after) <= (0.5 - 0.0625) / Float(rampFrames) + 1e-5)
    }

    @Test func muteAndMasterRampToo() {
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(sampleRate: 48000, tracks: [.init(loop: constantLoop(0.5))], controls: controls)
        _ = renderFrames(mixer, 100)
        controls.setMuted(true, track: 0)
        let muted = left(renderFrames(mixer, 3000))
        #expect(muted.last == 0)
        #expect(largestStep(muted) < 0.5 / 1000)
        controls.setMuted(false, track: 0)
        controls.masterVolume = 50
        let back = left(renderFrames(mixer, 3000))
        #expect(abs(back.last! - 0.0625) < 1e-4)
        #expect(largestStep(back) < 0.5 / 1000)
    }

    @Test func mixesMonoIntoBothChannelsAndStereoAsIs() {
        let mono = constantLoop(0.25, frames: 1000, channels: 1)
        let stereo = LoopBuffer(
            interleaved: [Float](repeating: 0, count: 2000).enumerated().map { $0.offset % 2 == 0 ? 0.1 : -0.1 },
            channels: 2)
        let controls = MixerControls(volumes: [100, 100])
        let mixer = Mixer(sampleRate: 48000, tracks: [.init(loop: mono), .init(loop: stereo)], controls: controls)
        let out = renderFrames(mixer, 2500)
        for f in [0, 999, 1000, 2499] {
            #expect(abs(out[2 * f] - 0.35) < 1e-4)
            #expect(abs(out[2 * f + 1] - 0.15) < 1e-4)
        }
    }

    @Test func loopsWrapSampleExactly() {
        // A ramp 0…0.495 over 100 frames loops back to 0: the output repeats the loop exactly.
        let ramp = (0..<100).map { Float($0) / 200 }
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(
            sampleRate: 48000, tracks: [.init(loop: LoopBuffer(interleaved: ramp, channels: 1))], controls: controls)
        let out = left(renderFrames(mixer, 350))
        for i in 0..<350 { #expect(abs(out[i] - Float(i % 100) / 200) < 1e-4) }
    }

    @Test func limiterKeepsTheSumWithinFullScaleAndLeavesOrdinaryLevelsAlone() {
        let loud = (0..<4800).map { i in Float(i % 48 < 24 ? 0.9 : -0.9) }
        let controls = MixerControls(volumes: [100, 100, 100])
        let tracks = (0..<3).map { _ in Mixer.Track(loop: LoopBuffer(interleaved: loud, channels: 1)) }
        let mixer = Mixer(sampleRate: 48000, tracks: tracks, controls: controls)
        let out = renderFrames(mixer, 48000)
        #expect(out.allSatisfy { abs($0) <= TruePeakLimiter.threshold + 1e-6 })
        // Limited, not crushed: a square wave's true peak, as the limiter's 32-taps-per-phase interpolator rebuilds
        // it, is about 1.26 times its samples' (Gibbs' overshoot): samples at 0.85 / 1.26 = 0.68.
        #expect(out.map(abs).max()! > 0.65)

        let quiet = MixerControls(volumes: [100])
        let plain = Mixer(
            sampleRate: 48000, tracks: [.init(loop: LoopBuffer(interleaved: loud.map { $0 / 2 }, channels: 1))],
            controls: quiet)
        let untouched = left(renderFrames(plain, 4800))
        for i in 0..<4800 { #expect(abs(untouched[i] - loud[i] / 2) < 1e-4) }
    }

    @Test func scheduledEndFadesAndFinishesOnTheExactFrame() {
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(sampleRate: 48000, tracks: [.init(loop: constantLoop(0.5))], controls: controls)
        controls.scheduleEnd(atFrame: 10_000, fadeFrames: 4_000)
        let out = left(renderFrames(mixer, 20_000))
        #expect(out.count == 10_000)
        #expect(mixer.finished && controls.isFinished)
        #expect(abs(out[5_999] - 0.5) < 1e-4)
        #expect(out[6_000] < 0.5 && out[6_000] > 0.49)
        #expect(out[9_999] == 0)
        #expect(zip(out[6000...].dropFirst(), out[6000...]).allSatisfy { $0 <= $1 })
        #expect(renderFrames(mixer, 100).isEmpty)
    }

    @Test func stopFadesOutThenFinishes() {
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(sampleRate: 48000, tracks: [.init(loop: constantLoop(0.5))], controls: controls)
        _ = renderFrames(mixer, 1000)
        controls.stop(fadeFrames: 2400)
        let out = left(renderFrames(mixer, 10_000))
        #expect(out.count >= 2400 && out.count <= 2400 + Mixer.maximumBlock)
        #expect(out.last == 0)
        #expect(controls.isFinished)
    }

    @Test func fadeInAtStartAndFadeOutInBackCycle() {
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(
            sampleRate: 48000, tracks: [.init(loop: constantLoop(0.5))], controls: controls, fadeInFrames: 4800)
        let start = left(renderFrames(mixer, 6000))
        #expect(start[0] < 0.001)
        #expect(abs(start[4799] - 0.5) < 1e-4)
        controls.fadeOut(frames: 4800)
        let down = left(renderFrames(mixer, 2400))
        controls.fadeIn(frames: 4800)
        let up = left(renderFrames(mixer, 6000))
        #expect(largestStep(start + down + up) < 0.01)
        #expect(down.last! < 0.05)
        #expect(abs(up.last! - 0.5) < 1e-4)
        #expect(!controls.isFinished)
    }

    @Test func controlsClampNonsense() {
        let controls = MixerControls(volumes: [250, -3, .nan])
        #expect(controls.volume(track: 0) == 100)
        #expect(controls.volume(track: 1) == 0)
        #expect(controls.volume(track: 2) == 0)
        controls.setVolume(40, track: 99)  // ignored, no crash
        #expect(Volume.gain(50) == 0.125)
    }
}

@Suite struct LoopSeamTests {
    /// Smooth noise (Gaussian-like white noise through a one-pole low-pass, like brown noise) with a deliberate
    /// jump at the end.
    func smoothNoise(frames: Int, jump: Float, seed: UInt64) -> [Float] {
        var rng = SplitMix64(seed: seed)
        var y: Float = 0
        var out = (0..<frames).map { _ -> Float in
            let gaussian = (0..<12).reduce(Float(0)) { sum, _ in sum + rng.nextSignedUnit() } / 2
            y = 0.995 * y + 0.01 * gaussian
            return y
        }
        let last = out.count - 1
        out[last] = out[0] + jump
        out[last - 1] = out[last]
        return out
    }

    @Test func aFileWithAJumpLoopsWithNoStepLargerThanItsOwnLargestStep() {
        let file = smoothNoise(frames: 48000, jump: 0.6, seed: 6)
        let plan = LoopSeam.plan(file, channels: 1, sampleRate: 48000)
        #expect(plan.crossfadeFrames >= 2400 && plan.crossfadeFrames <= 24000)
        let loop = LoopSeam.makeLoop(file, channels: 1, plan: plan)
        let ownLargest = largestStep(Array(file.dropLast(2)))
        let twice = loop + loop  // covers the seam and the wrap back to the start
        #expect(largestStep(twice) <= ownLargest)
        #expect(largestStep(file + file) > 0.5)  // without the seam the jump is there
    }

    @Test func aFileThatAlreadyJoinsLoopsAsItIs() {
        let period = (0..<4800).map { i in Float(0.5 * sinApprox(Double(i) / 4800 * 2 * Double.pi * 10)) }
        let plan = LoopSeam.plan(period, channels: 1, sampleRate: 48000)
        #expect(plan.crossfadeFrames == 0)
        #expect(LoopSeam.makeLoop(period, channels: 1, plan: plan) == period)
    }

    @Test func correlatedMaterialIsBlendedAtEqualGain() {
        // A steady tone whose tail and head are in phase: equal power would swell by up to 3 dB.
        var tone = (0..<48000).map { i in Float(0.5 * sinApprox(Double(i) / 48000 * 2 * Double.pi * 100)) }
        tone[47999] = 0.45  // break the join so a seam is made
        let plan = LoopSeam.plan(tone, channels: 1, sampleRate: 48000)
        #expect(plan.correlation > 0.95)
        let loop = LoopSeam.makeLoop(tone, channels: 1, plan: plan)
        #expect(loop.map(abs).max()! < 0.51)
    }

    @Test func cosSinAreAccurate() {
        for x in stride(from: Float(0), through: .pi / 2, by: 0.1) {
            let (c, s) = LoopSeam.cosSin(x)
            #expect(abs(c * c + s * s - 1) < 1e-5)
        }
        #expect(abs(LoopSeam.cosSin(.pi / 2).0) < 1e-6)
    }
}

/// sin through the seam's own series (valid on any range after reduction), for building test signals.
func sinApprox(_ x: Double) -> Double {
    var r = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if r > Double.pi { r -= 2 * Double.pi }
    if r < -Double.pi { r += 2 * Double.pi }
    var term = r
    var sum = r
    for n in 1...15 {
        term *= -r * r / Double((2 * n) * (2 * n + 1))
        sum += term
    }
    return sum
}

@Suite struct MixerEndTests {
    @Test func anEndFadeThatMeetsAFadeInStillPlaysToTheEndFrame() {
        // Fade in over 4800 frames, end at 4800 with a fade of 2400: the mix turns around midway and lasts.
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(
            sampleRate: 48000, tracks: [.init(loop: constantLoop(0.5))], controls: controls, fadeInFrames: 4800)
        controls.scheduleEnd(atFrame: 4800, fadeFrames: 2400)
        let out = left(renderFrames(mixer, 10_000))
        #expect(out.count == 4800)
        #expect(out[2399] > 0.0001)
        #expect(out[4799] == 0)
    }
}

@Suite struct MixerChimeAndLevelTests {
    @Test func theChimeSoundsOutsideTheFadeAndDelaysTheFinish() {
        let controls = MixerControls(volumes: [100])
        let chime = LoopBuffer(interleaved: [Float](repeating: 0.25, count: 5000), channels: 1)
        let mixer = Mixer(sampleRate: 48000, tracks: [.init(loop: constantLoop(0.5))], controls: controls, chime: chime)
        controls.fadeOut(frames: 100)
        _ = renderFrames(mixer, 200)  // the mix is silent now
        controls.ringChime()
        controls.stop(fadeFrames: 10)
        let out = left(renderFrames(mixer, 20_000))
        // Finished once the chime rang out (at the end of that block), not after the 10-frame stop fade; the
        // chime starts after the limiter's look-ahead.
        let l = mixer.latencyFrames
        #expect(out.count >= 5000 + l && out.count < 5000 + l + Mixer.maximumBlock)
        #expect(out.prefix(l).allSatisfy { $0 == 0 })
        #expect(out.dropFirst(l).prefix(5000).allSatisfy { abs($0 - 0.25) < 1e-4 })
        #expect(out.dropFirst(5000 + l).allSatisfy { $0 == 0 })
    }

    @Test func fadesToALevelAlongTheCurve() {
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(sampleRate: 48000, tracks: [.init(loop: constantLoop(0.5))], controls: controls)
        controls.fade(toLevel: 0.5, frames: 1000)
        let out = left(renderFrames(mixer, 2000))
        // Halfway along the curve is −30 dB.
        #expect(abs(out[1999] / 0.5 - FadeEnvelope.gain(at: 0.5)) < 0.002)
        #expect(abs(FadeEnvelope.gain(at: 0.5) - 0.0316) < 0.001)
    }
}
