import Foundation
import Synchronization
import Testing

@testable import HumAudio
@testable import HumCore

@Suite struct LoudnessUserSoundsTests {
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "hum-user-loudness-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A 997 Hz stereo sine at `dBFS` (which EBU R128 reads as the same number of LUFS) in a WAV file.
    static func writeSine(_ path: String, dBFS: Double, seconds: Double = 3) throws {
        let writer = try AudioFileWriter(path: path, sampleRate: 48_000, channels: 2)
        try writer.write(
            LoudnessMeterTests.sine(frequency: 997, amplitude: pow(10, dBFS / 20), seconds: seconds, channels: 2))
        try writer.finish()
    }

    final class Counter: Sendable {
        let calls = Atomic<Int>(0)
    }

    static func counting(_ counter: Counter) -> @Sendable (String) throws -> LoudnessMeasurement {
        { path in
            counter.calls.add(1, ordering: .relaxed)
            return try UserSoundLoudness.measureFile(path)
        }
    }

    @Test func gainBringsAFileToTheTargetAndIsMeasuredOnce() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/sine.wav"
        try Self.writeSine(file, dBFS: -20)
        let counter = Counter()
        let loudness = UserSoundLoudness(cacheDirectory: dir + "/cache/hum", measure: Self.counting(counter))
        let gain = try loudness.gain(forFile: file, targetLUFS: -27)
        #expect(abs(20 * log10(Double(gain)) - -7) < 0.1)
        #expect(FileManager.default.fileExists(atPath: dir + "/cache/hum/loudness.json"))
        // A second asker, with a fresh value but the same cache file, does not decode the file again.
        let again = UserSoundLoudness(cacheDirectory: dir + "/cache/hum", measure: Self.counting(counter))
        #expect(try again.gain(forFile: file, targetLUFS: -27) == gain)
        #expect(try again.gain(forFile: file, targetLUFS: -23) != gain)
        #expect(counter.calls.load(ordering: .relaxed) == 1)
    }

    @Test func aChangedFileIsMeasuredAgain() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/sine.wav"
        try Self.writeSine(file, dBFS: -20)
        let counter = Counter()
        let loudness = UserSoundLoudness(cacheDirectory: dir, measure: Self.counting(counter))
        _ = try loudness.gain(forFile: file, targetLUFS: -27)
        try Self.writeSine(file, dBFS: -30, seconds: 4)
        let gain = try loudness.gain(forFile: file, targetLUFS: -27)
        #expect(abs(20 * log10(Double(gain)) - 3) < 0.1)
        #expect(counter.calls.load(ordering: .relaxed) == 2)
        let cache = loudness.load()
        #expect(cache.files.count == 1)
    }

    @Test func gainNeverLiftsTruePeaksAboveMinusOne() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A quiet click track: very low loudness, high peaks.
        var samples = [Float](repeating: 0, count: 2 * 48_000 * 3)
        for i in stride(from: 0, to: samples.count, by: 2 * 4_800) {
            samples[i] = 0.5
            samples[i + 1] = 0.5
        }
        let writer = try AudioFileWriter(path: dir + "/clicks.wav", sampleRate: 48_000, channels: 2, sampleFormat: .f32)
        try writer.write(samples)
        try writer.finish()
        let loudness = UserSoundLoudness(cacheDirectory: dir)
        let m = try loudness.measurement(forFile: dir + "/clicks.wav")
        let gain = try loudness.gain(forFile: dir + "/clicks.wav", targetLUFS: -27)
        #expect(m.truePeakDBTP + 20 * log10(Double(gain)) <= -1 + 1e-6)
    }

    @Test func silenceGetsUnityGainAndCachesWithoutInfinity() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let writer = try AudioFileWriter(path: dir + "/silence.wav", sampleRate: 48_000, channels: 1)
        try writer.write([Float](repeating: 0, count: 48_000))
        try writer.finish()
        let loudness = UserSoundLoudness(cacheDirectory: dir)
        #expect(try loudness.gain(forFile: dir + "/silence.wav", targetLUFS: -27) == 1)
        #expect(try loudness.measurement(forFile: dir + "/silence.wav").integratedLUFS == -.infinity)
    }

    @Test func aMissingFileIsAnErrorAndItsEntryStays() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/gone.wav"
        try Self.writeSine(file, dBFS: -20)
        let loudness = UserSoundLoudness(cacheDirectory: dir + "/cache")
        _ = try loudness.gain(forFile: file, targetLUFS: -27)
        try FileManager.default.removeItem(atPath: file)
        #expect(throws: AudioFileError(path: file, reason: "no such file")) {
            _ = try loudness.gain(forFile: file, targetLUFS: -27)
        }
        #expect(loudness.load().files.map(\.path) == [file])
    }

    @Test func aDamagedCacheIsRebuilt() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/sine.wav"
        try Self.writeSine(file, dBFS: -20)
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: dir + "/loudness.json"))
        let loudness = UserSoundLoudness(cacheDirectory: dir)
        _ = try loudness.gain(forFile: file, targetLUFS: -27)
        #expect(loudness.load().files.count == 1)
    }

    @Test func theCacheLivesUnderXDGCacheHome() {
        let loudness = UserSoundLoudness(environment: ["HOME": "/home/ann", "XDG_CACHE_HOME": "/tmp/c"])
        #expect(loudness.cachePath == "/tmp/c/hum/loudness.json")
        #expect(UserSoundLoudness(environment: ["HOME": "/home/ann"]).cachePath == "/home/ann/.cache/hum/loudness.json")
    }
}
