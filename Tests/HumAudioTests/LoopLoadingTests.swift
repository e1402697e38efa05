import Foundation
import Testing

@testable import HumAudio
@testable import HumCore

/// The loader's 16-bit pipeline (decode to 16-bit, seam in place, streamed resampling) against the float
/// pipeline it replaces: for a 16-bit file the loops must be the same, sample for sample.
@Suite struct LoopLoadingTests {
    /// The loop as the float pipeline made it: decode, plan, makeLoop, resample (streamed from the array), convert.
    func floatPipeline(_ path: String, outputRate: Int, precut: Bool = false) throws -> [Int16] {
        let decoded = try AudioFileReader.decode(path: path)
        var samples = decoded.samples
        if !precut {
            let plan = LoopSeam.plan(samples, channels: decoded.channels, sampleRate: decoded.sampleRate)
            samples = LoopSeam.makeLoop(samples, channels: decoded.channels, plan: plan)
        }
        samples = try resampledLoop(
            samples, channels: decoded.channels, from: decoded.sampleRate, to: outputRate)
        let loop = LoopBuffer(interleaved: samples, channels: decoded.channels)
        return Array(UnsafeBufferPointer(start: loop.samples, count: loop.frames * loop.channels))
    }

    func loaded(_ path: String, outputRate: Int, precut: Bool = false) throws -> [Int16] {
        let sound = SoundReference(
            name: "x", title: "x", path: path, source: .file, loop: precut ? .precut : nil, loudnessLUFS: nil)
        let loop = try TrackLoader.load(sound, outputRate: outputRate).loop
        return Array(UnsafeBufferPointer(start: loop.samples, count: loop.frames * loop.channels))
    }

    /// Smooth noise with a jump at the end (so it gets a seam), written as 16-bit.
    func writeNoise(_ path: String, rate: Int, channels: Int, seconds: Double, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var y: Float = 0
        var samples = (0..<(Int(Double(rate) * seconds) * channels)).map { _ -> Float in
            y = 0.98 * y + 0.02 * rng.nextSignedUnit()
            return y * 4
        }
        samples[samples.count - 1] = 0.6
        try writeFile(path, samples, rate: rate, channels: channels, format: .s16)
    }

    @Test(arguments: [(44100, 1), (44100, 2), (48000, 1), (48000, 2), (32000, 2), (96000, 2), (88200, 1)])
    func aSixteenBitFileLoadsToTheSameLoopAsThroughFloat(rate: Int, channels: Int) throws {
        let dir = temporaryDirectory()
        let path = "\(dir)/noise.wav"
        try writeNoise(path, rate: rate, channels: channels, seconds: 2.3, seed: UInt64(rate + channels))
        let expected = try floatPipeline(path, outputRate: 48000)
        let actual = try loaded(path, outputRate: 48000)
        #expect(actual.count == expected.count)
        #expect(actual == expected)
        #expect(
            try loaded(path, outputRate: 48000, precut: true) == floatPipeline(path, outputRate: 48000, precut: true))
    }

    /// A header that promised too little leaves too little room before the samples: the loader makes more.
    @Test(arguments: [1, 2])
    func resamplingInPlaceMakesRoomWhenTheDecoderLeftTooLittle(channels: Int) throws {
        let dir = temporaryDirectory()
        let path = "\(dir)/noise.wav"
        try writeNoise(path, rate: 44100, channels: channels, seconds: 7, seed: 11)  // grows by more than its seam
        let expected = try floatPipeline(path, outputRate: 48000)
        for lead in [0, 100, TrackLoader.resampleMargin] {
            var region = try AudioFileReader.decodeRegion(path: path) { _, _ in lead }
            let plan = LoopSeam.plan(UnsafeBufferPointer(region.samples), channels: channels, sampleRate: 44100)
            #expect(plan.crossfadeFrames > 0)
            let loop = try TrackLoader.resampledLoop(&region, plan: plan, outputRate: 48000, path: path)
            #expect(Array(UnsafeBufferPointer(start: loop.samples, count: loop.frames * loop.channels)) == expected)
        }
    }

    @Test func decodingTo16BitEqualsDecodingToFloatRounded() throws {
        let dir = temporaryDirectory()
        let signal = sine(frequency: 440, rate: 44100, frames: 30000, channels: 2, amplitude: 0.7)
        for (name, format) in [("a.wav", SampleFormat.s16), ("b.wav", .f32), ("c.flac", .s24), ("d.ogg", .s16)] {
            let path = "\(dir)/\(name)"
            try writeFile(path, signal, rate: 44100, channels: 2, format: format)
            let float = try AudioFileReader.decode(path: path)
            let decoded = try AudioFileReader.decodeSamples(path: path)
            #expect(decoded.frames == float.frames && decoded.channels == 2 && decoded.sampleRate == 44100)
            #expect(Array(decoded.samples) == float.samples.map(LoopBuffer.quantize), "\(name)")
            #expect(decoded.storage.count == decoded.frames * 2)
        }
        // More than two channels: down-mixed as decode does, then rounded.
        let quad = (0..<4000).map { i in Float(i % 4 + 1) / 10 }
        try writeFile("\(dir)/quad.wav", quad, rate: 48000, channels: 4)
        let decoded = try AudioFileReader.decodeSamples(path: "\(dir)/quad.wav")
        #expect(decoded.channels == 2 && decoded.frames == 1000)
        #expect(
            Array(decoded.samples)
                == (try AudioFileReader.decode(path: "\(dir)/quad.wav")).samples.map(LoopBuffer.quantize))
    }

    @Test func badFilesAreNamedAsWhenDecodingToFloat() throws {
        let dir = temporaryDirectory()
        func reasons(_ path: String) -> (String, String) {
            var a = "decoded"
            var b = "decoded"
            do { _ = try AudioFileReader.decode(path: path) } catch { a = error.reason }
            do { _ = try AudioFileReader.decodeSamples(path: path) } catch { b = error.reason }
            return (a, b)
        }
        try writeFile(
            "\(dir)/full.wav", sine(frequency: 220, rate: 48000, frames: 48000), rate: 48000, channels: 1, format: .s16)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/full.wav"))
        try bytes.prefix(20000).write(to: URL(fileURLWithPath: "\(dir)/cut.wav"))
        _ = FileManager.default.createFile(atPath: "\(dir)/empty.wav", contents: Data())
        for path in ["\(dir)/missing.wav", "\(dir)/empty.wav", "\(dir)/cut.wav", dir] {
            let (a, b) = reasons(path)
            #expect(a == b)
            #expect(a != "decoded")
        }
    }

    @Test func sampleMemoryGrowsKeepingWhatWasWrittenAndGivesBackTheRest() throws {
        let memory = try SampleMemory(samples: 1000, path: "test")
        for i in 0..<1000 { memory.base[i] = Int16(i) }
        try memory.reserve(3_000_000)  // large enough for 2 MB pages
        #expect(memory.capacity >= 3_000_000)
        #expect((0..<1000).allSatisfy { memory.base[$0] == Int16($0) })
        memory.base[2_999_999] = 7
        let storage = memory.finish(count: 2000)
        #expect(storage.count == 2000 && storage.base[999] == 999)
    }

    @Test func aCacheMissMeasuresTheDecodedSamplesAsTheFloatFile() throws {
        let dir = temporaryDirectory()
        let path = "\(dir)/noise.wav"
        try writeNoise(path, rate: 44100, channels: 2, seconds: 3, seed: 3)
        // The file measured as float, and as the loader measures it: from the 16-bit samples it decoded.
        let fromFloat = try UserSoundLoudness(cacheDirectory: "\(dir)/a").gain(forFile: path, targetLUFS: -27)
        let decoded = try AudioFileReader.decodeSamples(path: path)
        let fromSamples = try UserSoundLoudness(cacheDirectory: "\(dir)/b").gain(
            forFile: path, samples: UnsafeBufferPointer(decoded.samples), channels: decoded.channels,
            sampleRate: decoded.sampleRate, targetLUFS: -27)
        #expect(fromFloat == fromSamples)
        #expect(fromFloat != 1)
    }
}
