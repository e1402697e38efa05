import Testing

@testable import HumCore

/// The mixer's one-shot events, through `Mixer.render` itself: clips of constant levels (so each onset tells which
/// clip it was) over a silent bed, at 8 kHz to keep the renders small.
@Suite struct MixerEventsTests {
    static let rate = 8000

    /// A clip of `frames` frames at a constant `level` (mono).
    static func clip(_ level: Float, frames: Int = 40) -> LoopBuffer {
        LoopBuffer(interleaved: [Float](repeating: level, count: frames), channels: 1)
    }

    static func bank(
        levels: [Float] = [0.1, 0.2, 0.3], perHour: Double = 3600, minimumGap: Double = 0.25,
        gainDB: ClosedRange<Double> = 0...0, pan: ClosedRange<Double> = 0...0, name: String = "drops"
    ) -> SoundEvents {
        SoundEvents(
            name: name, clips: levels.map { clip($0) }, perHour: perHour, minimumGapSeconds: minimumGap,
            gainDB: gainDB, pan: pan, sampleRate: rate)
    }

    /// A sound of events alone: a silent bed played at normalization 0.
    static func eventsOnly(_ events: SoundEvents) -> Mixer.Track {
        Mixer.Track(loop: constantLoop(0, frames: 800), normalization: 0, events: events)
    }

    static func render(
        _ tracks: [Mixer.Track], seed: UInt64, seconds: Double = 30, volumes: [Float]? = nil, chunk: Int = 4096
    ) -> [Float] {
        let controls = MixerControls(volumes: volumes ?? tracks.map { _ in 100 })
        let mixer = Mixer(sampleRate: rate, tracks: tracks, controls: controls, eventSeed: seed)
        var out: [Float] = []
        let total = Int(seconds * Double(rate))
        while out.count < 2 * total { out += renderFrames(mixer, min(chunk, total - out.count / 2)) }
        return out
    }

    /// Frames where the left channel turns from silence to sound, and its level there.
    static func onsets(_ stereo: [Float]) -> [(frame: Int, level: Float)] {
        let l = left(stereo)
        return l.indices.compactMap { i in
            l[i] != 0 && (i == 0 || l[i - 1] == 0) ? (i, l[i]) : nil
        }
    }

    @Test func theSameSeedGivesTheSameSamplesAndAnotherSeedOtherTimes() {
        let a = Self.render([Self.eventsOnly(Self.bank())], seed: 42)
        let b = Self.render([Self.eventsOnly(Self.bank())], seed: 42, chunk: 1000)
        let c = Self.render([Self.eventsOnly(Self.bank())], seed: 43)
        #expect(a == b)
        let timesA = Self.onsets(a).map(\.frame)
        let timesC = Self.onsets(c).map(\.frame)
        // 30 s at a mean of one a second: about 30 events, and not at the same times under another seed.
        #expect(timesA.count >= 15 && timesA.count <= 50)
        #expect(timesA != timesC)
        #expect(Set(timesA).intersection(timesC).count < timesA.count / 2)
    }

    @Test func addingAnotherSoundLeavesASoundsScheduleAlone() {
        let alone = Self.onsets(Self.render([Self.eventsOnly(Self.bank())], seed: 7)).map(\.frame)
        // The other sound plays on the right only; the left channel holds the first sound's events alone.
        let other = Self.bank(levels: [0.05], name: "cups")
        let otherRight = SoundEvents(
            name: "cups", clips: other.clips, perHour: 3600, minimumGapSeconds: 0.25, gainDB: 0...0, pan: 1...1,
            sampleRate: Self.rate)
        let both = Self.render([Self.eventsOnly(Self.bank()), Self.eventsOnly(otherRight)], seed: 7)
        #expect(Self.onsets(both).map(\.frame) == alone)
        #expect(right(both).contains { $0 != 0 })
    }

    @Test func eventsKeepTheMinimumGapAndComeAtTheAskedRate() {
        // A mean of 2 s with at least 1.5 s between starts, over 10 minutes.
        let out = Self.render([Self.eventsOnly(Self.bank(perHour: 1800, minimumGap: 1.5))], seed: 3, seconds: 600)
        let times = Self.onsets(out).map(\.frame)
        let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 >= Int(1.5 * Double(Self.rate)) })
        #expect(Set(gaps).count > 10)  // random, not a fixed beat
        #expect(times.count >= 240 && times.count <= 360)  // 300 expected
    }

    @Test func neverTheSameClipTwiceInARow() {
        let out = Self.render([Self.eventsOnly(Self.bank())], seed: 11, seconds: 120)
        let clips = Self.onsets(out).map { Int(($0.level * 10).rounded()) }
        #expect(clips.count > 60)
        #expect(Set(clips) == [1, 2, 3])
        #expect(zip(clips.dropFirst(), clips).allSatisfy { $0 != $1 })
        // Two clips: they alternate.
        let two = Self.onsets(Self.render([Self.eventsOnly(Self.bank(levels: [0.1, 0.2]))], seed: 11, seconds: 60))
        let pattern = two.map { Int(($0.level * 10).rounded()) }
        #expect(zip(pattern.dropFirst(), pattern).allSatisfy { $0 != $1 })
    }

    @Test func gainAndPanStayWithinTheirRangesEqualPower() {
        let bank = Self.bank(levels: [0.2], gainDB: -6...0, pan: -0.5...0.5)
        let out = Self.render([Self.eventsOnly(bank)], seed: 5, seconds: 60)
        let l = left(out)
        let r = right(out)
        let starts = Self.onsets(out).map(\.frame)
        #expect(starts.count > 30)
        var lefts: [Float] = []
        for i in starts {
            // Equal power, unity at the centre: l² + r² = 2·(0.2·g)², with g from −6 to 0 dB, and the pan's
            // angle within ±0.5 (a quarter of a turn spans −1 … 1).
            let power = (l[i] * l[i] + r[i] * r[i]) / 2
            let g = power.squareRoot() / 0.2
            #expect(g >= 0.5 - 0.01 && g <= 1.0 + 0.01)
            let angle = Double(atan2Approx(r[i], l[i]))
            #expect(angle >= Double.pi / 8 - 0.02 && angle <= 3 * Double.pi / 8 + 0.02)
            lefts.append(l[i])
        }
        #expect(Set(lefts).count > 10)
    }

    @Test func eventsFollowTheSoundsVolumeAndMute() {
        let loud = Self.render([Self.eventsOnly(Self.bank())], seed: 9, seconds: 10, volumes: [100])
        let soft = Self.render([Self.eventsOnly(Self.bank())], seed: 9, seconds: 10, volumes: [50])
        let ratio = Volume.gain(50) / Volume.gain(100)
        #expect(loud.contains { $0 != 0 })
        for (a, b) in zip(loud, soft) where a != 0 { #expect(abs(b - a * ratio) <= 1e-4) }
        #expect(Self.render([Self.eventsOnly(Self.bank())], seed: 9, seconds: 10, volumes: [0]).allSatisfy { $0 == 0 })
    }

    @Test func loudEventsOverALoudBedNeverPassTheLimitersCeiling() {
        // A full-scale bed and full-scale clips lifted 6 dB, hard left and right: the sum is far over full scale.
        var random = SplitMix64(seed: 1)
        let noise = (0..<(2 * 8000)).map { _ in random.nextSignedUnit() * 0.9 }
        let bed = LoopBuffer(interleaved: noise, channels: 2)
        let bang = LoopBuffer(interleaved: (0..<800).map { $0 % 2 == 0 ? 0.95 : -0.95 }, channels: 1)
        let events = SoundEvents(
            name: "bangs", clips: [bang, bang], perHour: 36000, minimumGapSeconds: 0.05, gainDB: 0...6,
            pan: -1...1, sampleRate: Self.rate)
        let out = Self.render([Mixer.Track(loop: bed, events: events)], seed: 2, seconds: 20)
        let peak = out.map { abs($0) }.max() ?? 0
        #expect(peak <= TruePeakLimiter.threshold + 1e-6)
        #expect(peak > 0.8)  // the limiter was busy, not idle
    }

    @Test func aSoundAddedWhileTheMixPlaysSchedulesFromItsEntry() throws {
        let start = Self.onsets(Self.render([Self.eventsOnly(Self.bank())], seed: 21, seconds: 20)).map(\.frame)
        let controls = MixerControls(volumes: [])
        let mixer = Mixer(sampleRate: Self.rate, tracks: [], controls: controls, eventSeed: 21)
        _ = renderFrames(mixer, 4096)  // a block with nothing in it
        let slot = try mixer.slots.add(Self.eventsOnly(Self.bank()), volume: 100, fadeFrames: 1)
        #expect(mixer.slots.memoryBytes > 0)
        var out: [Float] = []
        while out.count < 2 * 20 * Self.rate { out += renderFrames(mixer, 4096) }
        // The fade-in's first ramp frames aside, the same events at the same times from the sound's entry.
        // It enters with the first block mixed after the add: the first render mixed the look-ahead too.
        let entry = 4096 + mixer.latencyFrames
        let added = Self.onsets(out).map { $0.frame + 4096 }.filter { $0 >= entry + 1000 }
        let expected = start.map { $0 + entry }.filter { $0 >= entry + 1000 }
        #expect(!added.isEmpty)
        #expect(Array(added.prefix(expected.count)) == Array(expected.prefix(added.count)))
        mixer.slots.remove(slot, fadeFrames: 1)
        _ = renderFrames(mixer, 4096)
        #expect(mixer.slots.reclaim() == 1)
    }

    @Test func theLogarithmIsAccurate() {
        for x in [1e-12, 0.001, 0.3, 0.5, 0.999, 1, 2, 10, 12345.678] {
            let expected = naturalLog(x)
            #expect(abs(EventMath.log(x) - expected) <= 1e-12 * max(1, abs(expected)))
        }
    }
}

func right(_ stereo: [Float]) -> [Float] { stride(from: 1, to: stereo.count, by: 2).map { stereo[$0] } }

/// atan2 for y, x ≥ 0 by bisection on the angle (the test target has no libm either).
func atan2Approx(_ y: Float, _ x: Float) -> Float {
    var low = 0.0
    var high = Double.pi / 2
    for _ in 0..<60 {
        let mid = (low + high) / 2
        if VoiceFade.sin(mid) * Double(x) < VoiceFade.cos(mid) * Double(y) { low = mid } else { high = mid }
    }
    return Float(low)
}

/// ln x by Newton's method on e^y = x, with the chime's exponential (an independent route).
func naturalLog(_ x: Double) -> Double {
    var y = Double(x.exponent) * 0.6931471805599453
    for _ in 0..<60 { y -= 1 - x / ChimeMath.exp(y) }
    return y
}
