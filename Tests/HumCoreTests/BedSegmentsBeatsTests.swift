import Foundation
import Testing

@testable import HumCore

/// Beds whose beat is not even (a heart whose rate breathes), played in segments that join on a list of their
/// beats (`SoundManifest.Segments.beats`), and jumps that land a little off their place (`jitterSeconds`): through
/// `Mixer.render` itself, at 1 kHz. The loop is a click of 0.25 on each beat and silence between, so every click
/// heard says where a beat fell, and one heard at any other level fell inside a crossfade.
@Suite struct BedSegmentsBeatsTests {
    static let rate = BedSegmentsTests.rate

    /// 36 beats over a 40 s loop, their gaps from 0.9 to 1.3 s in no order (the last one round the wrap).
    static let beatFrames: [Int] = {
        var rng = SplitMix64(seed: 7)
        var beats: [Int] = [0]
        for _ in 0..<35 { beats.append(beats[beats.count - 1] + 900 + Int(rng.next() % 401)) }
        return beats
    }()
    static var loopFrames: Int { beatFrames[beatFrames.count - 1] + 1100 }
    static var gaps: [Int] {
        zip(beatFrames, beatFrames.dropFirst() + [loopFrames]).map { $1 - $0 }
    }

    static func clicks() -> LoopBuffer {
        var samples = [Float](repeating: 0, count: 2 * loopFrames)
        for b in beatFrames {
            samples[2 * b] = 0.25
            samples[2 * b + 1] = 0.25
        }
        return LoopBuffer(interleaved: samples, channels: 2)
    }

    static func plan(jitter: Double = 0, beats: [Double]? = nil) -> BedSegments {
        BedSegments(
            name: "heart", segmentSeconds: 3...7, crossfadeSeconds: 0.3, gridOffsetSeconds: 0.3,
            beats: beats ?? beatFrames.map { Double($0) / Double(rate) }, jitterSeconds: jitter, sampleRate: rate)
    }

    /// The clicks heard: (output frame, level) of every frame of the left channel that is not silent.
    static func heard(_ out: [Float]) -> [(at: Int, level: Float)] {
        stride(from: 0, to: out.count, by: 2).compactMap { i in abs(out[i]) > 1e-6 ? (i / 2, out[i]) : nil }
    }

    @Test func joinsFallBetweenBeatsAndEveryIntervalIsOneOfTheLoops() {
        let out = BedSegmentsTests.render(
            [Mixer.Track(loop: Self.clicks(), segments: Self.plan())], seed: 3, seconds: 600)
        let clicks = Self.heard(out)
        // Every beat is heard whole: none fell inside a crossfade, where it would be weighed down.
        #expect(clicks.allSatisfy { abs($0.level - 0.25) < 1e-6 }, "\(clicks.filter { abs($0.level - 0.25) >= 1e-6 })")
        // About 600 s over the mean gap of 1.1 s: no beat doubled or dropped at the ~100 joins.
        let mean = Double(Self.gaps.reduce(0, +)) / Double(Self.gaps.count)
        #expect(abs(Double(clicks.count) - 600_000 / mean) < 15, "\(clicks.count) beats")
        let intervals = zip(clicks, clicks.dropFirst()).map { $1.at - $0.at }
        let gaps = Set(Self.gaps)
        #expect(intervals.allSatisfy { gaps.contains($0) }, "\(intervals.filter { !gaps.contains($0) })")
        // And it did jump: the intervals do not follow each other as in the loop at many places.
        let loopPairs = Set(Self.gaps.indices.map { Self.gaps[$0] * 10_000 + Self.gaps[($0 + 1) % Self.gaps.count] })
        let turns = zip(intervals, intervals.dropFirst()).filter { !loopPairs.contains($0 * 10_000 + $1) }
        #expect(turns.count >= 60, "\(turns.count) jumps")
    }

    @Test func jitterMovesEachJumpALittleAndNoBeatIntoACrossfade() {
        let track = Mixer.Track(loop: Self.clicks(), segments: Self.plan(jitter: 0.05))
        let out = BedSegmentsTests.render([track], seed: 3, seconds: 600)
        let clicks = Self.heard(out)
        #expect(clicks.allSatisfy { abs($0.level - 0.25) < 1e-6 })
        let intervals = zip(clicks, clicks.dropFirst()).map { $1.at - $0.at }
        let shortest = Self.gaps.min()!
        let longest = Self.gaps.max()!
        // Each segment sits up to 50 ms off its place, so a beat across a join comes up to 100 ms early or late.
        #expect(intervals.allSatisfy { $0 >= shortest - 100 && $0 <= longest + 100 })
        // Off the loop's own gaps at most joins, by amounts all over the range.
        let off = intervals.filter { !Set(Self.gaps).contains($0) }
        #expect(off.count >= 60, "\(off.count) intervals moved")
        #expect(intervals.contains { $0 < shortest } || intervals.contains { $0 > longest })
        // The same seed, in other blocks, plays the same; without the jitter, the beats fall elsewhere.
        #expect(BedSegmentsTests.render([track], seed: 3, seconds: 600, chunk: 4096) == out)
        let plain = Self.heard(
            BedSegmentsTests.render([Mixer.Track(loop: Self.clicks(), segments: Self.plan())], seed: 3, seconds: 60))
        #expect(plain.count > 40)
        #expect(plain.prefix(40).map(\.at) != clicks.prefix(40).map(\.at))
    }

    @Test func aGridJumpWithJitterLandsNearItsPlace() {
        // A 2 s beat, crossfades 0.6 s into it, jumps up to 50 ms either side.
        let plan = BedSegments(
            name: "clock", segmentSeconds: 4...8, crossfadeSeconds: 0.3, gridSeconds: 2, gridOffsetSeconds: 0.6,
            jitterSeconds: 0.05, sampleRate: Self.rate)
        let out = BedSegmentsTests.render(
            [Mixer.Track(loop: BedSegmentsTests.ruler(), segments: plan)], seed: 2, seconds: 300)
        let runs = BedSegmentsTests.runs(out)
        #expect(runs.count >= 40)
        var offsets: Set<Int> = []
        for r in runs.dropFirst() {
            let into = (r.from - 300) % 2000
            #expect(into >= 550 && into <= 650, "a segment starts its crossfade 0.6 s ± 50 ms into a beat")
            offsets.insert(into)
            #expect(r.at == runs.last?.at || (r.count + 300) % 2000 == 0, "a segment is still whole beats")
        }
        #expect(offsets.count > 20)
        // Without a grid or beats there is nothing to be off: the jitter is not used.
        #expect(
            BedSegments(name: "x", segmentSeconds: 3...7, crossfadeSeconds: 1, jitterSeconds: 0.05, sampleRate: 1000)
                .jitterSeconds == 0)
    }

    @Test func beatsThatDoNotFitTheLoopAreNotUsed() {
        #expect(Self.plan().fits(frames: Self.loopFrames))
        // The last beat past the loop's end, or too near it for a crossfade round the wrap: round and round.
        #expect(!Self.plan().fits(frames: Self.beatFrames[Self.beatFrames.count - 1]))
        #expect(!Self.plan().fits(frames: Self.beatFrames[Self.beatFrames.count - 1] + 500))
        let short = Self.clicks()
        let plain = BedSegmentsTests.render([Mixer.Track(loop: short)], seed: 1, seconds: 30)
        let tooLong = Self.plan(
            beats: Self.beatFrames.map { Double($0) / Double(Self.rate) } + [Double(Self.loopFrames + 1000) / 1000])
        #expect(!tooLong.fits(frames: Self.loopFrames))
        #expect(BedSegmentsTests.render([Mixer.Track(loop: short, segments: tooLong)], seed: 1, seconds: 30) == plain)
        // Beats that do not rise, or leave no room for the crossfade between two: not kept.
        #expect(Self.plan(beats: [0, 2, 1, 3]).beats == nil)
        #expect(Self.plan(beats: [0, 1, 1.5, 3]).beats == nil)
        #expect(Self.plan(beats: [0, 1, 2, 3]).beats == [0, 1, 2, 3])
    }

    @Test func theManifestChecksBeatsAndJitterWhereTheyEnter() throws {
        func segments(_ json: String) throws -> SoundManifest.Segments {
            try JSONDecoder().decode(SoundManifest.Segments.self, from: Data(json.utf8))
        }
        let base = #""min_seconds": 4, "max_seconds": 8, "crossfade_seconds": 0.35, "grid_offset_seconds": 0.55"#
        let good = try segments("{\(base), \"beats\": [0, 1.1, 2.15, 3.2], \"jitter_seconds\": 0.008}")
        #expect(good.beats == [0, 1.1, 2.15, 3.2])
        #expect(good.jitterSeconds == 0.008)
        #expect(good.problem == nil)
        #expect(good.bed(name: "h", sampleRate: 48_000).beats == [0, 1.1, 2.15, 3.2])
        #expect(good.bed(name: "h", sampleRate: 48_000).jitterSeconds == 0.008)
        let cases: [(String, String)] = [
            ("\"beats\": [0, 1.1]", "beats must list from 3"),
            ("\"beats\": [-1, 0.5, 2]", "beats must be times from 0"),
            ("\"beats\": [0, 2.2, 1.1, 3.3]", "beats must rise (beat 3 is not after beat 2)"),
            ("\"beats\": [0, 1, 1, 3]", "beats must rise (beat 3 is not after beat 2)"),
            ("\"beats\": [0, 1.1, 2, 3]", "the shortest gap between beats (0.9 s)"),
            ("\"beats\": [0, 1, 2], \"grid_seconds\": 1", "give grid_seconds or beats, not both"),
            ("\"beats\": [0, 1.1, 2.2], \"jitter_seconds\": 0.2", "jitter_seconds must be from 0 to 0.05"),
            ("\"beats\": [0, 0.95, 2], \"jitter_seconds\": 0.05", "jitter_seconds + crossfade_seconds must be"),
            ("\"jitter_seconds\": 0.01", "jitter_seconds needs grid_seconds or beats"),
        ]
        for (extra, expected) in cases {
            let problem = try segments("{\(base), \(extra)}").problem
            #expect(problem?.contains(expected) == true, "\(extra): \(problem ?? "no problem")")
        }
        let early = try segments(
            #"{"min_seconds": 4, "max_seconds": 8, "crossfade_seconds": 0.3, "grid_offset_seconds": 0.005, "grid_seconds": 2, "jitter_seconds": 0.01}"#
        )
        #expect(early.problem?.contains("at most grid_offset_seconds") == true)
        let crowded = try segments(
            #"{"min_seconds": 4, "max_seconds": 8, "crossfade_seconds": 1.5, "grid_offset_seconds": 0.45, "grid_seconds": 2, "jitter_seconds": 0.05}"#
        )
        #expect(crowded.problem?.contains("must be below grid_seconds") == true)
        // A file written without the new fields reads as before.
        let old = try segments(#"{"min_seconds": 4, "max_seconds": 8, "crossfade_seconds": 0.4}"#)
        #expect(old.beats == nil && old.jitterSeconds == nil && old.problem == nil)
    }
}
