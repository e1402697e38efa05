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
