import Foundation
import Testing

@testable import HumAudio
@testable import HumCore

/// 16-bit output is made once, in hum's code, with TPDF dither: every 16-bit container gets the same samples.
@Suite struct SixteenBitOutputTests {
    /// A test signal: a fade from silence, a loud tone, a tone at −100 dBFS (a third of a 16-bit step), stereo.
    static func signal() -> [Float] {
        var out = [Float]()
        for i in 0..<48000 {
            let t = Double(i) / 48000
            let fade = Float(min(1, t * 4))
            let loud = Float(0.7 * sin(2 * Double.pi * 440 * t)) * fade
            let faint = Float(0.00001 * sin(2 * Double.pi * 1000 * t))
            out += [i < 24000 ? loud : faint, i < 24000 ? -loud * 0.5 : faint]
        }
        return out
    }

    /// Writes `samples` as 16-bit to a file of the given extension, and reads them back as integers.
    static func written(_ samples: [Float], ext: String, dither: Bool) throws -> [Int16] {
        let path = temporaryDirectory() + "/out." + ext
        let writer = try AudioFileWriter(path: path, sampleRate: 48000, channels: 2, sampleFormat: .s16, dither: dither)
        try writer.write(samples)
        try writer.finish()
        return try AudioFileReader.decode(path: path).samples.map { Int16(exactly: $0 * 32768)! }
    }

    @Test func wavAndFlacGetTheSameSamples() throws {
        let samples = Self.signal()
        for dither in [true, false] {
            let wav = try Self.written(samples, ext: "wav", dither: dither)
            let flac = try Self.written(samples, ext: "flac", dither: dither)
            #expect(wav.count == samples.count)
            #expect(wav == flac)
        }
        // Without dither: rounded to nearest, as the loops are (no truncation: no −½ step offset).
        #expect(try Self.written(samples, ext: "wav", dither: false) == samples.map(LoopBuffer.quantize))
        // The same render gives the same file every time.
        #expect(try Self.written(samples, ext: "wav", dither: true) == Self.written(samples, ext: "flac", dither: true))
    }

    @Test func ditherIsTriangularAndUnbiasedAndKeepsWhatIsBelowOneStep() throws {
        var converter = SixteenBit(dither: true)
        var rng = SplitMix64(seed: 4)
        let count = 200_000
        let input = (0..<count).map { _ in rng.nextSignedUnit() * 0.5 }
        var output = [Int16](repeating: 0, count: count)
        input.withUnsafeBufferPointer { i in
            output.withUnsafeMutableBufferPointer {
                converter.convert(i.baseAddress!, count: count, into: $0.baseAddress!)
            }
        }
        let errors = zip(output, input).map { Double($0) - Double($1) * 32768 }
        let mean = errors.reduce(0, +) / Double(count)
        let variance = errors.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(count)
        #expect(abs(mean) < 0.01)
        // Rounding (1/12) plus TPDF of ±1 step (1/6): 1/4 of a step squared.
        #expect(abs(variance - 0.25) < 0.01)
        #expect(errors.allSatisfy { abs($0) < 1.5 })
        // A tone a third of a step high: rounding alone makes silence; dither keeps it (in the noise).
        let faint = (0..<count).map { Float(0.33 / 32768 * sin(2 * Double.pi * 1000 * Double($0) / 48000)) }
        #expect(faint.map(LoopBuffer.quantize).allSatisfy { $0 == 0 })
        var kept = [Int16](repeating: 0, count: count)
        faint.withUnsafeBufferPointer { i in
            kept.withUnsafeMutableBufferPointer {
                converter.convert(i.baseAddress!, count: count, into: $0.baseAddress!)
            }
        }
        let correlation = zip(kept, faint).reduce(0.0) { $0 + Double($1.0) * Double($1.1) * 32768 }
        let power = faint.reduce(0.0) { $0 + Double($1) * Double($1) * 32768 * 32768 }
        #expect(abs(correlation / power - 1) < 0.1)  // the tone comes through at its level
    }

    /// The hiss the docs quote is the one the converter makes: the error's RMS in dBFS (full scale 32768), measured
    /// on a signal that moves, is the figure docs/mixer.md and the converter's comment give (−96.3, not −101).
    @Test func theDocumentedDitherFloorIsTheMeasuredOne() throws {
        var converter = SixteenBit(dither: true)
        var rng = SplitMix64(seed: 9)
        let count = 400_000
        let input = (0..<count).map { _ in rng.nextSignedUnit() * 0.3 }
        var output = [Int16](repeating: 0, count: count)
        input.withUnsafeBufferPointer { i in
            output.withUnsafeMutableBufferPointer {
                converter.convert(i.baseAddress!, count: count, into: $0.baseAddress!)
            }
        }
        let power = zip(output, input).reduce(0.0) {
            let e = Double($1.0) - Double($1.1) * 32768
            return $0 + e * e
        }
        let measured = 10 * log10(power / Double(count)) - 20 * log10(32768.0)
        #expect(abs(measured - -96.3) < 0.1, "\(measured) dBFS")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        for file in ["docs/mixer.md", "Sources/HumCore/Mixer/SixteenBit.swift"] {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
                .replacingOccurrences(of: "\n", with: " ")
            #expect(text.contains("hiss at −96.3 dBFS"), "\(file)")
            #expect(!text.contains("hiss at −101"), "\(file)")
        }
    }

    @Test func withoutDitherItRoundsAsTheLoopsDo() {
        var converter = SixteenBit(dither: false)
        let input: [Float] = [0, 0.5 / 32768, -0.5 / 32768, 1.49 / 32768, 1, -1, 2, -2, .nan, 0.2]
        var output = [Int16](repeating: 7, count: input.count)
        input.withUnsafeBufferPointer { i in
            output.withUnsafeMutableBufferPointer {
                converter.convert(i.baseAddress!, count: input.count, into: $0.baseAddress!)
            }
        }
        #expect(output == input.map(LoopBuffer.quantize))
        #expect(output == [0, 1, -1, 1, 32767, -32768, 32767, -32768, 0, 6554])
    }
}
