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
}
