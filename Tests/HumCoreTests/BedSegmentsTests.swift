import Foundation
import Testing

@testable import HumCore

/// Beds played in random segments (`BedSegments`), through `Mixer.render` itself, at 1 kHz so a render of
/// minutes stays small. A "ruler" loop (left: frame / 128, right: frame % 128, in 16-bit steps) tells, in every
/// frame played alone, which frame of the loop it is; in a crossfade, the two frames it mixes can be checked.
@Suite struct BedSegmentsTests {
    static let rate = 1000
    static let frames = 40 * rate

    static func ruler(frames: Int = frames) -> LoopBuffer {
        var samples = [Float](repeating: 0, count: 2 * frames)
        for i in 0..<frames {
            samples[2 * i] = Float(i / 128) / 32768
            samples[2 * i + 1] = Float(i % 128) / 32768
        }
        return LoopBuffer(interleaved: samples, channels: 2)
    }

    static func plan(
        _ seconds: ClosedRange<Double> = 3...7, crossfade: Double = 0.5, grid: Double? = nil, offset: Double = 0,
        name: String = "surf"
    ) -> BedSegments {
        BedSegments(
            name: name, segmentSeconds: seconds, crossfadeSeconds: crossfade, gridSeconds: grid,
            gridOffsetSeconds: offset, sampleRate: rate)
    }

    static func render(_ tracks: [Mixer.Track], seed: UInt64, seconds: Double, chunk: Int = 700) -> [Float] {
        let controls = MixerControls(volumes: tracks.map { _ in 100 })
        let mixer = Mixer(sampleRate: rate, tracks: tracks, controls: controls, eventSeed: seed)
        var out: [Float] = []
        let total = Int(seconds * Double(rate))
        while out.count < 2 * total { out += renderFrames(mixer, min(chunk, total - out.count / 2)) }
        return out
    }

    /// The loop frame each output frame plays, or nil where it is not one frame alone (a crossfade).
    static func positions(_ stereo: [Float]) -> [Int?] {
        stride(from: 0, to: stereo.count, by: 2).map { i in
            let l = stereo[i] * 32768
            let r = stereo[i + 1] * 32768
            guard abs(l - l.rounded()) < 1e-3, abs(r - r.rounded()) < 1e-3, r >= 0, r < 128 else { return nil }
            return Int(l.rounded()) * 128 + Int(r.rounded())
        }
    }

    /// Runs of frames playing the loop straight on: (first output frame, first loop frame, length).
    static func runs(_ stereo: [Float], frames: Int = frames) -> [(at: Int, from: Int, count: Int)] {
        let p = positions(stereo)
        var runs: [(at: Int, from: Int, count: Int)] = []
        for (i, value) in p.enumerated() {
            guard let value else { continue }
            if let last = runs.last, last.at + last.count == i, (last.from + last.count) % frames == value {
                runs[runs.count - 1].count += 1
            } else {
                runs.append((i, value, 1))
            }
        }
        return runs
    }

    @Test func segmentsAreStretchesOfTheLoopJoinedByCrossfadesAtRandomPlaces() {
        let crossfade = 500
        let out = Self.render([Mixer.Track(loop: Self.ruler(), segments: Self.plan())], seed: 1, seconds: 300)
        let runs = Self.runs(out)
        // 300 s of segments 3 to 7 s long: about 60 of them, each played alone for its length less the crossfade.
        #expect(runs.count >= 40 && runs.count <= 100, "\(runs.count) segments")
        #expect(runs[0].at == 0 && runs[0].from == 0)
        for (a, b) in zip(runs, runs.dropFirst()) {
            #expect(b.at - (a.at + a.count) == crossfade)  // a crossfade between every two
            let length = a.count + (a.at == 0 ? 0 : crossfade)  // from one crossfade's start to the next
            #expect(length >= 3000 && length <= 7000)
            // The next segment starts (its crossfade) at least a second away from where this one ended.
            let end = (a.from + a.count) % Self.frames
            let start = (b.from - crossfade + Self.frames) % Self.frames
            let jump = (start - end + Self.frames) % Self.frames
            #expect(jump >= 1000 && jump <= Self.frames - 1000)
        }
        // Random: lengths and places vary.
        #expect(Set(runs.dropFirst().dropLast().map(\.count)).count > 20)
        #expect(Set(runs.map(\.from)).count == runs.count)
        // Inside a crossfade, each frame is the end of the one (falling as cos) and the start of the next (rising
        // as sin): equal power.
        let a = runs[3]
        let b = runs[4]
        for k in 0..<crossfade {
            let angle = Double.pi / 2 * (Double(k) + 0.5) / Double(crossfade)
            let leaving = (a.from + a.count + k) % Self.frames
            let coming = (b.from - crossfade + k + Self.frames) % Self.frames
            let i = 2 * (a.at + a.count + k)
            let expectedLeft = Double(leaving / 128) * cos(angle) + Double(coming / 128) * sin(angle)
            let expectedRight = Double(leaving % 128) * cos(angle) + Double(coming % 128) * sin(angle)
            #expect(abs(Double(out[i]) * 32768 - expectedLeft) < 0.01)
            #expect(abs(Double(out[i + 1]) * 32768 - expectedRight) < 0.01)
        }
    }

    @Test func theSameSeedGivesTheSameSamplesInAnyBlocksAndAnotherSeedOthers() {
        let track = Mixer.Track(loop: Self.ruler(), segments: Self.plan())
        let a = Self.render([track], seed: 9, seconds: 60)
        let b = Self.render([track], seed: 9, seconds: 60, chunk: 4096)
        let c = Self.render([track], seed: 10, seconds: 60)
        #expect(a == b)
        #expect(a != c)
        // Another sound's name draws another sequence from the same seed.
        let other = Self.render(
            [Mixer.Track(loop: Self.ruler(), segments: Self.plan(name: "rain"))], seed: 9, seconds: 60)
        #expect(Self.runs(other).map(\.from) != Self.runs(a).map(\.from))
    }

    @Test func aGridKeepsSegmentsAndCrossfadesOnTheBeat() {
        // A beat of 2 s; crossfades of 0.3 s start 0.6 s into a beat; segments of 4 to 8 s (2 to 4 beats).
        let out = Self.render(
            [Mixer.Track(loop: Self.ruler(), segments: Self.plan(4...8, crossfade: 0.3, grid: 2, offset: 0.6))],
            seed: 2, seconds: 300)
        let runs = Self.runs(out)
        #expect(runs.count >= 40)
        for r in runs.dropFirst() {
            #expect((r.from - 300) % 2000 == 600, "a segment starts its crossfade 0.6 s into a beat")
            #expect(r.at == runs.last?.at || (r.count + 300) % 2000 == 0, "a segment is whole beats")
        }
        #expect((runs[0].count - 600) % 2000 == 0)
        #expect(Set(runs.dropFirst().dropLast().map(\.count)).count == 3)  // 2, 3 or 4 beats
    }

    @Test func aLoopTooShortForSegmentsPlaysRoundAndRound() {
        // 1.5 s: no jump of a second either way fits.
        let loop = Self.ruler(frames: 1500)
        let plain = Self.render([Mixer.Track(loop: loop)], seed: 1, seconds: 10)
        let segmented = Self.render([Mixer.Track(loop: loop, segments: Self.plan(1...1.2))], seed: 1, seconds: 10)
        #expect(Self.plan(1...1.2).fits(frames: 1500) == false)
        #expect(segmented == plain)
    }

    @Test func segmentsLeaveTheSoundsEventsWhereTheyWere() {
        let clip = LoopBuffer(interleaved: [Float](repeating: 0.25, count: 20), channels: 1)
        func bank() -> SoundEvents {
            SoundEvents(
                name: "surf", clips: [clip], perHour: 3600, minimumGapSeconds: 0.2, gainDB: 0...0, pan: 0...0,
                sampleRate: Self.rate)
        }
        let silentBed = Self.ruler()
        let events = Self.render([Mixer.Track(loop: silentBed, normalization: 0, events: bank())], seed: 4, seconds: 60)
        let both = Self.render(
            [Mixer.Track(loop: silentBed, normalization: 0, events: bank(), segments: Self.plan())], seed: 4,
            seconds: 60)
        #expect(both == events)
        #expect(events.contains { $0 != 0 })
    }

    @Test func aSoundAddedWhilePlayingFadesInAndPlaysInSegments() throws {
        let controls = MixerControls(volumes: [])
        let mixer = Mixer(sampleRate: Self.rate, tracks: [], controls: controls, eventSeed: 3)
        let slot = try mixer.slots.add(
            Mixer.Track(loop: Self.ruler(), segments: Self.plan()), volume: 100, fadeFrames: 2000)
        var out: [Float] = []
        while out.count < 2 * 60 * Self.rate { out += renderFrames(mixer, 1000) }
        // The fade-in first (2 s), then segments: several runs, none from the loop's start but the first.
        let runs = Self.runs(Array(out[(2 * 2000)...]))
        #expect(runs.count >= 7)
        #expect(out[2 * 100 + 1] * 32768 < 100 * 0.2)  // 5 % into the fade-in
        #expect(abs(out[2 * 2100 + 1] * 32768 - Float(2100 % 128)) < 1e-2)  // then at full
        mixer.slots.remove(slot, fadeFrames: 500)
        out = renderFrames(mixer, 1000)
        #expect(out.suffix(400).allSatisfy { $0 == 0 })
        #expect(mixer.slots.reclaim() == 1)
    }

    /// Noise through the joins: the level of 50 ms blocks is as steady as the plain loop's, and the steps from
    /// one sample to the next inside the crossfades are no larger than the loop's own (99.9th percentile, as the
    /// seam tests measure a click).
    @Test func noiseKeepsItsLevelAndSmoothnessThroughTheJoins() {
        var rng = SplitMix64(seed: 11)
        // Near-Gaussian noise (four uniforms summed): a crossfade of two stretches of it is the same noise.
        let noise = LoopBuffer(
            interleaved: (0..<(2 * Self.frames)).map { _ in
                (0..<4).reduce(Float(0)) { sum, _ in sum + rng.nextSignedUnit() } * 0.06
            }, channels: 2)
        func blockLevels(_ out: [Float]) -> [Double] {
            stride(from: 0, to: out.count - 100, by: 100).map { (start: Int) -> Double in
                var sum = 0.0
                for v in out[start..<(start + 100)] { sum += Double(v) * Double(v) }
                return 10 * log10(sum / 100)
            }
        }
        func spread(_ levels: [Double]) -> Double {
            let mean = levels.reduce(0, +) / Double(levels.count)
            return (levels.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(levels.count)).squareRoot()
        }
        func percentile999(_ steps: [Float]) -> Float { steps.sorted()[steps.count * 999 / 1000] }
        let plain = Self.render([Mixer.Track(loop: noise)], seed: 1, seconds: 600)
        let segmented = Self.render([Mixer.Track(loop: noise, segments: Self.plan())], seed: 1, seconds: 600)
        let a = blockLevels(plain)
        let b = blockLevels(segmented)
        let meanA = a.reduce(0, +) / Double(a.count)
        let meanB = b.reduce(0, +) / Double(b.count)
        #expect(abs(meanA - meanB) < 0.1, "mean level \(meanA) dB looping, \(meanB) dB in segments")
        #expect(spread(b) < spread(a) * 1.1, "spread \(spread(a)) dB looping, \(spread(b)) dB in segments")
        // Where the crossfades are: the same plan, seed and loop length, on the ruler.
        let runs = Self.runs(
            Self.render([Mixer.Track(loop: Self.ruler(), segments: Self.plan())], seed: 1, seconds: 600))
        var alone = [Bool](repeating: false, count: segmented.count / 2)
        for r in runs { for i in r.at..<(r.at + r.count) { alone[i] = true } }
        let l = left(segmented)
        let inCrossfades = (1..<l.count).filter { !alone[$0] && !alone[$0 - 1] }.map { abs(l[$0] - l[$0 - 1]) }
        let p = left(plain)
        let everywhere = (1..<p.count).map { abs(p[$0] - p[$0 - 1]) }
        #expect(inCrossfades.count >= 50_000)
        #expect(
            percentile999(inCrossfades) <= percentile999(everywhere) * 1.1,
            "steps in the crossfades \(percentile999(inCrossfades)), in the loop \(percentile999(everywhere))")
    }
}
