import Foundation
import Testing

@testable import HumAudio
@testable import HumCore
@testable import HumSynth

/// The built-in beds with a beat (the clock, the heartbeat) played in segments as the mixer plays them, from the
/// shipped files and manifest: no beat is doubled or dropped at a join, and every interval heard is one the loop has
/// (widened by the segments' jitter, both sides of a join).
@Suite struct BuiltinBeatsTests {
    static let rate = 48_000

    /// The sound's bed loaded as `hum` loads it, with its segments (`jitter`: instead of the manifest's).
    static func track(_ name: String, jitter: Double? = nil) throws -> (Mixer.Track, SoundManifest.Segments) {
        let catalog = SoundCatalog(builtinDirectory: BuiltinSoundsTests.directory, userDirectory: temporaryDirectory())
        let sound = try #require(catalog.resolve(name))
        var segments = try #require(sound.segments)
        if let jitter { segments.jitterSeconds = jitter }
        let loop = try TrackLoader.load(sound, outputRate: rate).loop
        let bed = segments.bed(name: name, sampleRate: rate)
        #expect(bed.fits(frames: loop.frames))
        return (Mixer.Track(loop: loop, segments: bed), segments)
    }

    /// The left channel of `seconds` of the track alone at 100 (seed 1); 0 seconds: the loop once, round.
    static func render(_ track: Mixer.Track, seconds: Double, seed: UInt64 = 1) -> [Float] {
        let mixer = Mixer(
            sampleRate: rate, tracks: [track], controls: MixerControls(volumes: [100]), eventSeed: seed)
        let frames = Int(seconds * Double(rate))
        var out = [Float](repeating: 0, count: 2 * frames)
        var done = 0
        out.withUnsafeMutableBufferPointer { buffer in
            while done < frames {
                done += mixer.render(into: buffer.baseAddress! + 2 * done, frames: min(4096, frames - done))
            }
        }
        return stride(from: 0, to: out.count, by: 2).map { out[$0] }
    }

    /// Onsets, in frames: where the level of `window` frames (every millisecond) first rises above `belowPeak` dB
    /// under the median beat's, at least `apart` frames after the last.
    static func onsets(_ x: [Float], window: Int, belowPeak: Double, apart: Int) -> [Int] {
        let hop = rate / 1000
        var energy = [Double](repeating: 0, count: x.count / hop)
        for i in 0..<energy.count {
            var sum = 0.0
            for k in (i * hop)..<min(x.count, i * hop + window) { sum += Double(x[k]) * Double(x[k]) }
            energy[i] = sum / Double(window)
        }
        let top = energy.sorted()[energy.count - energy.count / 500]  // near the beats' peaks
        let threshold = top * pow(10, -belowPeak / 10)
        var found: [Int] = []
        for i in 1..<energy.count where energy[i] >= threshold && energy[i - 1] < threshold {
            if let last = found.last, i * hop - last < apart { continue }
            found.append(i * hop)
        }
        return found
    }

    /// The intervals between onsets, but the first (the render starts on a beat, already loud: its onset is missed).
    static func intervals(_ onsets: [Int]) -> [Double] {
        Array(zip(onsets, onsets.dropFirst()).map { Double($1 - $0) / Double(rate) }.dropFirst())
    }

    static func highPassed(_ x: [Float]) -> [Float] {
        // The ticks' clicks stand out above 2 kHz (a first difference twice over).
        var y = x
        for _ in 0..<2 { y = zip(y, [0] + y.dropLast()).map { $0 - $1 } }
        return y
    }

    @Test func theHeartbeatNeverDoublesOrDropsABeatAtAJoin() throws {
        let (track, segments) = try Self.track("heartbeat")
        let beats = try #require(segments.beats)
        #expect(segments.problem == nil)
        #expect(beats == PulseRecipes.heartbeat.beats())
        let gaps = zip(beats, beats.dropFirst() + [beats[0] + 60]).map { $1 - $0 }
        let jitter = 2 * (segments.jitterSeconds ?? 0)
        // The detector, on the loop played round, finds every beat within `error` of where the recipe put it (the
        // lubs' modes start at random phases, so their envelopes differ a little).
        let error = 0.008
        let round = Self.intervals(
            Self.onsets(
                Self.render(Mixer.Track(loop: track.loop), seconds: 60.5), window: 480, belowPeak: 20, apart: 28_800))
        #expect(round.count == 54)  // beats 1 to 55 (the first beat again at 60 s)
        #expect(zip(round, gaps.dropFirst()).allSatisfy { abs($0 - $1) < error })
        // In segments: a beat every 1.06 to 1.12 s as in the loop, give or take the jitter at a join: no beat
        // doubled (an interval of half that or less) or dropped (twice it).
        let seconds = 240.0
        let heard = Self.onsets(Self.render(track, seconds: seconds), window: 480, belowPeak: 20, apart: 28_800)
        let mean = gaps.reduce(0, +) / Double(gaps.count)
        #expect(abs(Double(heard.count) - seconds / mean) < 3, "\(heard.count) beats in \(seconds) s")
        let played = Self.intervals(heard)
        let low = gaps.min()! - jitter - error
        let high = gaps.max()! + jitter + error
        #expect(played.allSatisfy { $0 >= low && $0 <= high }, "\(played.filter { $0 < low || $0 > high })")
        // It played in segments: the intervals do not come in the loop's order.
        #expect(zip(played, round).contains { abs($0 - $1) > 0.005 })
    }

    /// The joins of `seconds` of a bed played in segments, from a ruler loop of the sound's length at `rate`
    /// (`BedSegmentsTests`' ruler: each frame says which frame of the loop it is): (output frame where the crossfade
    /// starts, loop frame it leaves from, loop frame it comes in at).
    static func joins(_ segments: BedSegments, loopFrames: Int, rate: Int, seconds: Double) -> [(Int, Int, Int)] {
        var samples = [Float](repeating: 0, count: 2 * loopFrames)
        for i in 0..<loopFrames {
            samples[2 * i] = Float(i / 128) / 32768
            samples[2 * i + 1] = Float(i % 128) / 32768
        }
        let mixer = Mixer(
            sampleRate: rate,
            tracks: [Mixer.Track(loop: LoopBuffer(interleaved: samples, channels: 2), segments: segments)],
            controls: MixerControls(volumes: [100]), eventSeed: 1)
        let crossfade = Int((segments.crossfadeSeconds * Double(rate)).rounded())
        var joins: [(Int, Int, Int)] = []
        var out = [Float](repeating: 0, count: 2 * 4096)
        var done = 0
        var previous: Int? = nil  // the loop frame of the last output frame played alone
        var alone = 0  // output frames since the last frame played alone
        var pending: Int? = nil  // after a crossfade, a frame that reads as one alone, until the next agrees
        while done < Int(seconds * Double(rate)) {
            let n = out.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frames: 4096) }
            for i in 0..<n {
                let l = out[2 * i] * 32768
                let r = out[2 * i + 1] * 32768
                let exact = abs(l - l.rounded()) < 1e-3 && abs(r - r.rounded()) < 1e-3 && r >= 0 && r < 128
                let frame = exact ? Int(l.rounded()) * 128 + Int(r.rounded()) : -1
                if let first = pending {
                    pending = nil
                    if frame == (first + 1) % loopFrames, let last = previous {
                        // A crossfade of `alone` frames ended a frame ago: it left the loop after `last`, came in
                        // before `first`.
                        #expect(alone == crossfade)
                        let at = done + i - 1 - alone
                        joins.append((at, (last + 1) % loopFrames, (first - alone + loopFrames) % loopFrames))
                        previous = frame
                        alone = 0
                        continue
                    }
                    alone += 1  // inside a crossfade, a mix that happened to read as a whole frame
                }
                guard exact else {
                    alone += 1
                    continue
                }
                if alone > 0 {
                    pending = frame
                    continue
                }
                if let last = previous, frame != (last + 1) % loopFrames {
                    Issue.record("a jump without a crossfade at \(done + i)")
                }
                previous = frame
            }
            done += n
        }
        return joins
    }

    /// The longest stretch, in frames, that two places of the output hold the same (the same loop frames played the
    /// same way, within `tolerance` frames): a stretch around a join, or a run of joins, that comes back at the
    /// same distances with the same places, up to the joins before and after, where they part.
    static func longestRepeat(_ joins: [(Int, Int, Int)], loopFrames: Int, crossfade: Int, tolerance: Int) -> Int {
        func near(_ a: Int, _ b: Int) -> Bool {
            let d = abs(a - b) % loopFrames
            return min(d, loopFrames - d) <= tolerance
        }
        var longest = 0
        for j in 1..<(joins.count - 1) {
            for k in (j + 1)..<(joins.count - 1)
            where near(joins[j].1, joins[k].1) && near(joins[j].2, joins[k].2) {
                // The same join: extend over the joins after it that come at the same distances, the same.
                var last = 0
                while j + last + 1 < k, k + last + 2 < joins.count,
                    joins[j + last + 1].0 - joins[j].0 == joins[k + last + 1].0 - joins[k].0,
                    near(joins[j + last + 1].1, joins[k + last + 1].1),
                    near(joins[j + last + 1].2, joins[k + last + 1].2)
                {
                    last += 1
                }
                // The same from the end of the crossfade before (the shorter way back) to the next join.
                let back = min(joins[j].0 - joins[j - 1].0, joins[k].0 - joins[k - 1].0) - crossfade
                let on = min(
                    joins[j + last + 1].0 - joins[j + last].0, joins[k + last + 1].0 - joins[k + last].0)
                longest = max(longest, back + joins[j + last].0 - joins[j].0 + on)
            }
        }
        return longest
    }

    /// Every 10 s of 30 minutes of the clock, the train and the heartbeat, as the mixer joins their segments with
    /// seed 1, is its own: no stretch of 10 s comes back played the same way (the same loop frames within 0.25 ms,
    /// the same joins at the same distances). Without the jitter, the clock's 15 places and the train's 36 do not
    /// keep them apart.
    @Test(arguments: ["clock", "train", "heartbeat"])
    func noTenSecondsComeBackInThirtyMinutes(name: String) throws {
        let rate = 12_000
        let entry = try #require(try BuiltinSoundsTests.manifest().sounds.first { $0.id == name })
        let segments = try #require(entry.segments)
        let frames = Int(entry.durationSeconds * Double(rate))
        let crossfade = Int((segments.crossfadeSeconds * Double(rate)).rounded())
        func longest(_ s: SoundManifest.Segments) -> Double {
            let joins = Self.joins(s.bed(name: name, sampleRate: rate), loopFrames: frames, rate: rate, seconds: 1800)
            #expect(joins.count > 200)
            let frames = Self.longestRepeat(joins, loopFrames: frames, crossfade: crossfade, tolerance: 3)
            return Double(frames) / Double(rate)
        }
        let jittered = longest(segments)
        #expect(jittered < 10, "\(name): \(jittered) s come back the same")
        print("\(name): the longest stretch that comes back the same in 30 minutes: \(jittered) s")
        if name != "heartbeat" {
            var plain = segments
            plain.jitterSeconds = nil
            let repeated = longest(plain)
            #expect(repeated >= 10, "\(name) without jitter: at most \(repeated) s come back the same")
            print("\(name) without jitter: \(repeated) s")
        }
    }

    @Test func theClockKeepsItsTickTockAtEveryJoin() throws {
        let (track, segments) = try Self.track("clock", jitter: 0)
        #expect(segments.problem == nil)
        let seconds = 120.0
        // Without the jitter, ticks alternate 0.988 and 1.012 s and every pair is 2 s: a join that landed after a
        // tock would make a pair of 1.976 or 2.024 s.
        let heard = Self.intervals(
            Self.onsets(Self.highPassed(Self.render(track, seconds: seconds)), window: 48, belowPeak: 20, apart: 24_000)
        )
        #expect(abs(Double(heard.count) - (seconds - 1)) <= 2, "\(heard.count) intervals")
        let pairs = zip(heard, heard.dropFirst()).map { $0 + $1 }
        #expect(pairs.allSatisfy { abs($0 - 2) < 0.004 }, "\(pairs.filter { abs($0 - 2) >= 0.004 })")
        #expect(heard.allSatisfy { abs($0 - 0.988) < 0.004 || abs($0 - 1.012) < 0.004 })
        // With the manifest's jitter every interval stays within twice it of a beat.
        let (jittered, manifest) = try Self.track("clock")
        let jitter = 2 * (manifest.jitterSeconds ?? 0)
        #expect(jitter > 0)
        let moved = Self.intervals(
            Self.onsets(
                Self.highPassed(Self.render(jittered, seconds: seconds)), window: 48, belowPeak: 20, apart: 24_000))
        #expect(abs(Double(moved.count) - (seconds - 1)) <= 2)
        #expect(moved.allSatisfy { $0 > 0.988 - jitter - 0.004 && $0 < 1.012 + jitter + 0.004 })
        #expect(moved.contains { abs($0 - 0.988) > 0.004 && abs($0 - 1.012) > 0.004 })
    }
}
