import Foundation
import Testing

@testable import HumAudio
@testable import HumCore

/// The mixer's output true peak, measured with libebur128's true-peak mode (4× oversampling at 48 kHz), stays at
/// or below −1 dBTP on loud mixes; the old sample-peak limiter let +2.7 dBTP through with 8 full-scale noises.
@Suite struct LimiterTruePeakTests {
    static func noise(frames: Int, channels: Int, seed: UInt64) -> LoopBuffer {
        var rng = SplitMix64(seed: seed)
        return LoopBuffer(interleaved: (0..<(frames * channels)).map { _ in rng.nextSignedUnit() }, channels: channels)
    }

    static func tone(_ frequency: Double, frames: Int, square: Bool = false) -> LoopBuffer {
        let samples = (0..<frames).map { i -> Float in
            let v = sin(2 * Double.pi * frequency * Double(i) / 48000 + frequency)
            return square ? (v >= 0 ? 0.99 : -0.99) : Float(0.99 * v)
        }
        return LoopBuffer(interleaved: samples, channels: 1)
    }

    /// The true peak of `seconds` of the mix, in dBTP.
    static func truePeak(_ loops: [LoopBuffer], seconds: Int = 6) throws -> Double {
        let controls = MixerControls(volumes: loops.map { _ in 100 })
        let mixer = Mixer(sampleRate: 48000, tracks: loops.map { Mixer.Track(loop: $0) }, controls: controls)
        let meter = try LoudnessMeter(channels: 2, sampleRate: 48000)
        var block = [Float](repeating: 0, count: 2 * 4800)
        for _ in 0..<(seconds * 10) {
            let n = block.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frames: 4800) }
            #expect(n == 4800)
            try meter.add(block)
        }
        return try meter.truePeak()
    }

    @Test func eightFullScaleNoisesStayUnderMinusOneDBTP() throws {
        let loops = (0..<8).map { Self.noise(frames: 48000 + 1009 * $0, channels: $0 % 2 + 1, seed: UInt64($0 + 1)) }
        let peak = try Self.truePeak(loops)
        #expect(peak <= -1.0)
        #expect(peak > -3)  // limited to the target, not far under it
    }

    @Test func loudTonesNearNyquistAndSquareWavesStayUnderMinusOneDBTP() throws {
        // Tones whose crests fall between samples, alone and together, and square waves (their overshoot).
        let high = [11_999.0, 15_013, 17_987, 19_997].map { Self.tone($0, frames: 48000) }
        #expect(try Self.truePeak(high) <= -1.0)
        #expect(try Self.truePeak([Self.tone(12_000, frames: 48000)]) <= -1.0)
        let squares = [110.0, 220.5, 331, 441.3].map { Self.tone($0, frames: 48000, square: true) }
        #expect(try Self.truePeak(squares) <= -1.0)
        #expect(try Self.truePeak(squares + high + [Self.noise(frames: 30000, channels: 2, seed: 9)]) <= -1.0)
    }

    /// Pink noise (Paul Kellet's economy filter over uniform white noise), scaled to peak at full scale.
    static func pinkNoise(frames: Int, channels: Int, seed: UInt64) -> LoopBuffer {
        var rng = SplitMix64(seed: seed)
        var state = [[Float]](repeating: [0, 0, 0], count: channels)
        var samples = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            for c in 0..<channels {
                let w = rng.nextSignedUnit()
                state[c][0] = 0.99765 * state[c][0] + w * 0.0990460
                state[c][1] = 0.96300 * state[c][1] + w * 0.2965164
                state[c][2] = 0.57000 * state[c][2] + w * 1.0526913
                samples[i * channels + c] = state[c][0] + state[c][1] + state[c][2] + w * 0.1848
            }
        }
        let peak = samples.reduce(0) { max($0, abs($1)) }
        return LoopBuffer(interleaved: samples.map { $0 / peak }, channels: channels)
    }

    /// The true peak ffmpeg's BS.1770 meter (`ebur128=peak=true`) reads on a float WAV, in dBTP.
    static func ffmpegTruePeak(_ path: String) throws -> Double {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        child.arguments = [
            "-nostdin", "-hide_banner", "-nostats", "-i", path, "-af", "ebur128=peak=true", "-f", "null", "-",
        ]
        let pipe = Pipe()
        child.standardError = pipe
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        let log = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        try #require(child.terminationStatus == 0, "\(log)")
        // The summary's last lines: "True peak:" then "Peak: -1.4 dBFS".
        let summary = try #require(log.range(of: "True peak:", options: .backwards), "\(log)")
        let line = try #require(log[summary.upperBound...].split(separator: "\n").first { $0.contains("Peak:") })
        let value = line.split(separator: " ").compactMap { Double($0) }.first
        return try #require(value, "\(line)")
    }

    /// The torture mix: ten full-scale noises (five white, five pink, stereo) at volume 100, rendered
    /// through the mixer and read by ffmpeg's meter, the standard one (its 4× resampler rebuilds the top octave
    /// more fully than libebur128's 48-tap filter). The old 12-taps-per-phase interpolator let −0.2 dBTP through.
    @Test func tenFullScaleNoisesReadUnderMinusOneDBTPByFFmpeg() throws {
        let loops = (0..<10).map { i in
            i < 5
                ? Self.noise(frames: 96000 + 1009 * i, channels: 2, seed: UInt64(20 + i))
                : Self.pinkNoise(frames: 96000 + 1013 * i, channels: 2, seed: UInt64(40 + i))
        }
        let controls = MixerControls(volumes: loops.map { _ in 100 })
        let mixer = Mixer(sampleRate: 48000, tracks: loops.map { Mixer.Track(loop: $0) }, controls: controls)
        var samples = [Float]()
        var block = [Float](repeating: 0, count: 2 * 4800)
        for _ in 0..<100 {
            let n = block.withUnsafeMutableBufferPointer { mixer.render(into: $0.baseAddress!, frames: 4800) }
            #expect(n == 4800)
            samples += block
        }
        let path = temporaryDirectory() + "/ten-noises.wav"
        try writeFile(path, samples, rate: 48000, channels: 2)
        let peak = try Self.ffmpegTruePeak(path)
        #expect(peak <= -1.0, "ffmpeg reads \(peak) dBTP")
        #expect(peak > -3, "ffmpeg reads \(peak) dBTP")  // limited to the target, not far under it
    }
}
