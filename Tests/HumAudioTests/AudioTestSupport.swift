import Foundation
import HumCore

@testable import HumAudio

/// A fresh temporary directory per test.
func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "hum-audio-test-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A sine, interleaved over `channels`, as float.
func sine(frequency: Double, rate: Int, frames: Int, channels: Int = 1, amplitude: Float = 0.5) -> [Float] {
    var out: [Float] = []
    out.reserveCapacity(frames * channels)
    for i in 0..<frames {
        let v = amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / Double(rate)))
        for _ in 0..<channels { out.append(v) }
    }
    return out
}

func writeFile(_ path: String, _ samples: [Float], rate: Int, channels: Int, format: SampleFormat = .f32) throws {
    // Test inputs hold exactly the samples given (rounded), not dithered ones.
    let writer = try AudioFileWriter(
        path: path, sampleRate: rate, channels: channels, sampleFormat: format, dither: false)
    try writer.write(samples)
    try writer.finish()
}

func largestStep(_ signal: [Float]) -> Float {
    zip(signal.dropFirst(), signal).map { abs($0 - $1) }.max() ?? 0
}

/// A whole loop held in an array, resampled through the streaming resampler the loader uses.
func resampledLoop(_ samples: [Float], channels: Int, from inputRate: Int, to outputRate: Int) throws -> [Float] {
    guard inputRate != outputRate else { return samples }
    var out = [Float](
        repeating: 0, count: Resampler.loopFrames(samples.count / channels, from: inputRate, to: outputRate) * channels)
    try samples.withUnsafeBufferPointer { input in
        try Resampler.resampleLoop(
            frames: samples.count / channels, channels: channels, from: inputRate, to: outputRate,
            read: { start, count, destination in
                destination.update(from: input.baseAddress! + start * channels, count: count * channels)
            },
            write: { frame, block in
                for (i, v) in block.enumerated() { out[frame * channels + i] = v }
            })
    }
    return out
}
