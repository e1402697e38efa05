import Foundation
import Testing

@testable import HumAudio
@testable import HumCore
@testable import HumSynth

/// The generator's last steps on a short loop: loudness matching through the codec, exact length, fixed serial.
@Suite struct BuiltinSoundsMasteringTests {
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "hum-mastering-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static let settings = LoopMastering.Settings(
        targetLUFS: -27, truePeakLimitDBTP: -3, monoQuality: 0.5, stereoQuality: 0.5)

    @Test func aLoudLoopIsBroughtToTheTargetWithItsPeaksUnderTheLimit() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rng = SplitMix64(seed: 9)
        // Pink noise with a few loud clicks: both the gain and the limiter have work to do.
        var left = Loop.filtered(Loop.whiteNoise(frames: 5 * 48_000, rng: &rng), PinkingFilter(sampleRate: 48_000))
        var right = Loop.filtered(Loop.whiteNoise(frames: 5 * 48_000, rng: &rng), PinkingFilter(sampleRate: 48_000))
        for at in stride(from: 1_000, to: left.count, by: 50_000) {
            left[at] += 8
            right[at + 7] -= 8
        }
        let path = dir + "/loop.ogg"
        let result = try LoopMastering.master(
            [left, right], sampleRate: 48_000, to: path, settings: Self.settings, oggSerial: 42)
        let decoded = try AudioFileReader.decode(path: path)
        #expect(decoded.frames == 5 * 48_000)
        let m = try LoudnessMeter.measure(decoded)
        #expect(abs(m.integratedLUFS - -27) <= 0.1)
        #expect(m.truePeakDBTP <= -3)
        #expect(m == result.measurement)
        #expect(result.limiterCeilingDBFS < 0)
        // Only the finished file is left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["loop.ogg"])
    }

    /// A loop that leans to one side (thumps all one way, plus an offset) is mastered without DC.
    @Test func aLoopWithDCIsMasteredWithoutIt() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var rng = SplitMix64(seed: 5)
        var loop = Loop.scaled(
            Loop.filtered(Loop.whiteNoise(frames: 3 * 48_000, rng: &rng), PinkingFilter(sampleRate: 48_000)), 0.1)
        let thump = Grain.decayingSine(frequency: 60, decay: 0.05, sampleRate: 48_000, phase: 0.25)
        for at in stride(from: 0, to: loop.count, by: 24_000) { Loop.add(thump, at: at, gain: 0.5, into: &loop) }
        loop = loop.map { $0 + 0.05 }
        #expect(LoopMastering.dcDBFS(interleaved: loop, channels: 1) > -30)
        let path = dir + "/thumps.ogg"
        let result = try LoopMastering.master([loop], sampleRate: 48_000, to: path, settings: Self.settings)
        let decoded = try AudioFileReader.decode(path: path)
        #expect(LoopMastering.dcDBFS(interleaved: decoded.samples, channels: 1) < -80)
        #expect(result.dcDBFS == LoopMastering.dcDBFS(interleaved: decoded.samples, channels: 1))
    }

    @Test func theSameLoopAndSerialGiveTheSameBytes() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let recipe = try #require(BuiltinSoundRecipes.named("fan"))
        let loop = recipe.render(frames: 2 * 48_000)
        _ = try LoopMastering.master(
            loop, sampleRate: 48_000, to: dir + "/a.ogg", settings: Self.settings, oggSerial: 7)
        _ = try LoopMastering.master(
            loop, sampleRate: 48_000, to: dir + "/b.ogg", settings: Self.settings, oggSerial: 7)
        let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.ogg"))
        let b = try Data(contentsOf: URL(fileURLWithPath: dir + "/b.ogg"))
        #expect(a == b)
        // The serial sits at byte 14 of every page, little-endian.
        #expect(Array(a[14..<18]) == [7, 0, 0, 0])
    }

    @Test func serialNumberRefusesWhatIsNotOgg() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/x.ogg"
        try Data("not an ogg file at all, just text".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: AudioFileError.self) { try OggSerialNumber.set(1, inFile: path) }
    }

    @Test func oggChecksumMatchesTheKnownValue() {
        // CRC-32 with polynomial 0x04C11DB7, no reflection, zero start and no final XOR ("CRC-32/MPEG-2" without
        // its 0xFFFFFFFF start): the check value for "123456789" is 0x89A1897F.
        #expect(OggSerialNumber.checksum(ArraySlice(Array("123456789".utf8))) == 0x89A1_897F)
    }
}
