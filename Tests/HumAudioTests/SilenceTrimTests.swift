import Foundation
import Testing

@testable import HumAudio
@testable import HumCore

/// Digital silence at the ends of a user's file is cut before the loop is made: half a second of it at each end
/// was a one-second hole in every loop. Quiet shorter than 10 ms stays, and built-in sounds are not touched.
@Suite struct SilenceTrimTests {
    /// Noise (uniform, ±0.5) of `seconds`, with `lead` and `trail` seconds of digital silence around it, 16-bit.
    static func write(_ path: String, rate: Int, channels: Int, seconds: Double, lead: Double, trail: Double) throws {
        var rng = SplitMix64(seed: UInt64(rate + channels))
        let silence = { (s: Double) in [Float](repeating: 0, count: Int(s * Double(rate)) * channels) }
        let noise = (0..<(Int(seconds * Double(rate)) * channels)).map { _ in rng.nextSignedUnit() * 0.5 }
        try writeFile(path, silence(lead) + noise + silence(trail), rate: rate, channels: channels, format: .s16)
    }

    /// The longest run of frames, counted around the wrap, whose samples are all under −80 dBFS.
    static func longestSilence(_ loop: LoopBuffer) -> Int {
        let silent = (0..<loop.frames).map { f in
            (0..<loop.channels).allSatisfy { abs(loop.sample(frame: f, channel: $0)) < 1e-4 }
        }
        var longest = 0
        var run = 0
        for f in 0..<(2 * loop.frames) {  // twice round: a run across the wrap counts whole
            run = silent[f % loop.frames] ? run + 1 : 0
            longest = max(longest, min(run, loop.frames))
        }
        return longest
    }

    static func load(_ path: String, source: SoundSource = .user) throws -> LoopBuffer {
        let sound = SoundReference(name: "x", title: "x", path: path, source: source, loop: nil, loudnessLUFS: nil)
        return try TrackLoader.load(sound, outputRate: 48000).loop
    }

    @Test(arguments: [(48000, 2), (44100, 2), (48000, 1)])
    func halfASecondOfSilenceAtEachEndIsNotInTheLoop(rate: Int, channels: Int) throws {
        let path = temporaryDirectory() + "/padded.wav"
        try Self.write(path, rate: rate, channels: channels, seconds: 3, lead: 0.5, trail: 0.5)
        let loop = try Self.load(path)
        #expect(Self.longestSilence(loop) < 10)  // a few samples of noise may fall under −80 dBFS, not a gap
        // What plays is the 3 s of noise (less its seam), not the 4 s of the file.
        #expect(loop.frames <= 3 * 48000 + 2 && loop.frames > 2 * 48000)
    }

    @Test func quietShorterThanTenMillisecondsStays() throws {
        let path = temporaryDirectory() + "/short.wav"
        try Self.write(path, rate: 48000, channels: 1, seconds: 3, lead: 0.005, trail: 0)
        let padded = temporaryDirectory() + "/long.wav"
        try Self.write(padded, rate: 48000, channels: 1, seconds: 3, lead: 0.02, trail: 0)
        let decodedShort = try AudioFileReader.decodeRegion(path: path) { _, _ in 0 }
        let decodedLong = try AudioFileReader.decodeRegion(path: padded) { _, _ in 0 }
        let short = SilenceTrim.silentEnds(
            UnsafeBufferPointer(decodedShort.samples), channels: 1, sampleRate: 48000)
        let long = SilenceTrim.silentEnds(UnsafeBufferPointer(decodedLong.samples), channels: 1, sampleRate: 48000)
        #expect(short.lead == 0 && short.trail == 0)
        #expect(long.lead == 960 && long.trail == 0)
    }

    @Test func builtInSoundsAreNotTrimmed() throws {
        let path = temporaryDirectory() + "/padded.wav"
        try Self.write(path, rate: 48000, channels: 2, seconds: 3, lead: 0.5, trail: 0.5)
        let builtin = try Self.load(path, source: .builtin)
        #expect(Self.longestSilence(builtin) >= 48000)  // as the file is: its silence plays
    }
}
