import Foundation
import HumCore
import Testing

@testable import HumAudio

@Suite struct AudioFileTests {
    @Test(arguments: ["wav", "flac", "ogg"])
    func writesAndReadsBack(ext: String) throws {
        let dir = temporaryDirectory()
        let path = "\(dir)/a.\(ext)"
        let signal = sine(frequency: 440, rate: 48000, frames: 48000, channels: 2, amplitude: 0.25)
        try writeFile(path, signal, rate: 48000, channels: 2, format: ext == "wav" ? .f32 : .s16)
        let info = try AudioFileReader.info(path: path)
        #expect(info.sampleRate == 48000 && info.channels == 2)
        let decoded = try AudioFileReader.decode(path: path)
        #expect(abs(decoded.frames - 48000) <= (ext == "ogg" ? 1024 : 0))
        if ext != "ogg" {
            let tolerance: Float = ext == "wav" ? 0 : 1.0 / 16384
            #expect(zip(decoded.samples, signal).allSatisfy { abs($0 - $1) <= tolerance })
        }
    }

    @Test func namesEachKindOfBadFile() throws {
        let dir = temporaryDirectory()
        func reason(_ path: String) -> String {
            do {
                _ = try AudioFileReader.decode(path: path)
                return "decoded"
            } catch { return error.reason }
        }
        #expect(reason("\(dir)/missing.wav") == "no such file")
        _ = FileManager.default.createFile(atPath: "\(dir)/empty.wav", contents: Data())
        #expect(reason("\(dir)/empty.wav") == "the file is empty")
        _ = FileManager.default.createFile(
            atPath: "\(dir)/text.wav", contents: Data("just some text, not audio at all".utf8))
        #expect(reason("\(dir)/text.wav").hasPrefix("not an audio file"))
        #expect(reason(dir).contains("directory"))
        // A WAV cut short after its header promised more.
        try writeFile(
            "\(dir)/full.wav", sine(frequency: 220, rate: 48000, frames: 48000), rate: 48000, channels: 1, format: .s16)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/full.wav"))
        try bytes.prefix(20000).write(to: URL(fileURLWithPath: "\(dir)/cut.wav"))
        #expect(reason("\(dir)/cut.wav").contains("truncated"))
        // An Ogg file cut short.
        try writeFile(
            "\(dir)/full.ogg", sine(frequency: 220, rate: 48000, frames: 96000), rate: 48000, channels: 1, format: .s16)
        let ogg = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/full.ogg"))
        try ogg.prefix(ogg.count / 2).write(to: URL(fileURLWithPath: "\(dir)/cut.ogg"))
        #expect(reason("\(dir)/cut.ogg").contains("truncated"))
    }

    @Test func downmixesMoreThanTwoChannels() throws {
        let dir = temporaryDirectory()
        // Four channels: 0.1, 0.2, 0.3, 0.4 → left (0.1+0.3)/2, right (0.2+0.4)/2.
        let quad = (0..<4000).map { i in Float(i % 4 + 1) / 10 }
        try writeFile("\(dir)/quad.wav", quad, rate: 48000, channels: 4)
        let decoded = try AudioFileReader.decode(path: "\(dir)/quad.wav")
        #expect(decoded.channels == 2 && decoded.frames == 1000)
        #expect(abs(decoded.samples[0] - 0.2) < 1e-6 && abs(decoded.samples[1] - 0.3) < 1e-6)
    }

    @Test func refusesAnUnknownOutputExtension() {
        #expect(throws: AudioFileError.self) {
            try AudioFileWriter(path: temporaryDirectory() + "/x.xyz", sampleRate: 48000, channels: 2)
        }
    }
}

@Suite struct ResamplerTests {
    @Test func keepsPitchAndLength() throws {
        let input = sine(frequency: 441, rate: 44100, frames: 44100)
        let out = try resampledLoop(input, channels: 1, from: 44100, to: 48000)
        #expect(out.count == 48000)
        // 441 Hz at 48 kHz: zero crossings upward every 48000/441 frames, 441 of them in a second.
        let upward = zip(out.dropFirst(), out).filter { $1 < 0 && $0 >= 0 }.count
        #expect(abs(upward - 441) <= 1)
    }

    @Test func aPeriodicLoopStaysSeamlessAcrossTheWrap() throws {
        // 100 whole periods of a 100 Hz sine at 44.1 kHz: resampled as a loop, the wrap is as smooth as the rest.
        let input = sine(frequency: 100, rate: 44100, frames: 44100)
        let out = try resampledLoop(input, channels: 1, from: 44100, to: 48000)
        let inside = largestStep(out)
        let wrap = abs(out[0] - out[out.count - 1])
        #expect(wrap <= inside * 1.01)
        // Resampled one-shot instead, the filter's edges would show at the wrap.
        #expect(inside < 0.01)
    }

    @Test func aFailureNamesTheRatesAndTheCall() {
        // A negative rate: libsoxr refuses to create the resampler.
        #expect {
            try Resampler.resampleLoop(
                frames: 100, channels: 1, from: 44100, to: -48000, read: { _, _, _ in }, write: { _, _ in })
        } throws: { error in
            guard let error = error as? ResamplingError else { return false }
            return error.call == "soxr_create"
                && error.message.hasPrefix("resampling from 44100 Hz to -48000 Hz failed (soxr_create: ")
        }
    }
}
