import Testing

@testable import HumCore

/// The kernel adds steady voices several at a time; the sum must be the same, to the bit, as adding them one
/// after the other in track order.
@Suite struct MixerKernelTests {
    func noiseLoop(frames: Int, channels: Int, seed: UInt64) -> LoopBuffer {
        var rng = SplitMix64(seed: seed)
        return LoopBuffer(
            interleaved: (0..<(frames * channels)).map { _ in rng.nextSignedUnit() * 0.05 }, channels: channels)
    }

    /// Voice by voice in track order, each sample × (gain / 32768), as the plain kernel does (no ramps here).
    func reference(_ tracks: [Mixer.Track], gains: [Float], frames: Int) -> [Float] {
        var out = [Float](repeating: 0, count: 2 * frames)
        for i in 0..<frames {
            for (track, gain) in zip(tracks, gains) where gain != 0 {
                let loop = track.loop
                let f = i % loop.frames
                let g = gain * track.normalization * (1 / 32768)
                for c in 0..<2 {
                    out[2 * i + c] += Float(loop.samples[f * loop.channels + min(c, loop.channels - 1)]) * g
                }
            }
        }
        return out
    }

    @Test func steadyVoicesSumAsOneAfterAnother() {
        // Mono and stereo runs of several lengths, different loop lengths (wraps at different frames), a silent
        // track inside a run, and normalizations.
        let layout = [1, 1, 1, 1, 1, 2, 2, 2, 1, 2, 2, 2, 2, 2, 1, 1, 1]
        var tracks: [Mixer.Track] = []
        for (i, channels) in layout.enumerated() {
            tracks.append(
                .init(
                    loop: noiseLoop(frames: 3000 + 517 * i, channels: channels, seed: UInt64(i + 1)),
                    normalization: 1 + Float(i % 3) * 0.1))
        }
        var volumes = layout.indices.map { Float(40 + 3 * $0) }
        volumes[2] = 0
        volumes[11] = 0
        let controls = MixerControls(volumes: volumes)
        let mixer = Mixer(sampleRate: 48000, tracks: tracks, controls: controls)
        let frames = 20_000
        let out = renderFrames(mixer, frames)
        let gains = volumes.map { Volume.gain($0) }
        #expect(out == reference(tracks, gains: gains, frames: frames))
    }

    /// The limiter as first written: frame by frame, always.
    struct FrameByFrameLimiter {
        var gain: Float = 1
        let release: Float
        mutating func process(_ buffer: inout [Float]) {
            var g = gain
            let t = SoftLimiter.threshold
            for i in 0..<(buffer.count / 2) {
                let l = buffer[2 * i]
                let r = buffer[2 * i + 1]
                let peak = max(abs(l), abs(r))
                if g < 1 { g += (1 - g) * release }
                if peak * g > t { g = t / peak }
                buffer[2 * i] = max(-1, min(1, l * g))
                buffer[2 * i + 1] = max(-1, min(1, r * g))
            }
            gain = g
        }
    }

    @Test func theLimiterSkipsWorkOnlyWhereItWouldChangeNothing() {
        var limiter = SoftLimiter(sampleRate: 48000)
        var reference = FrameByFrameLimiter(
            release: 1 - Float(FadeEnvelope.pow10(-1 / (0.1 * 48000 * 2.302585092994046))))
        var rng = SplitMix64(seed: 5)
        // Quiet, loud (the gain drops), a long quiet stretch (it recovers until recovery stalls below 1), loud again.
        for (level, blocks) in [(Float(0.3), 5), (1.6, 3), (0.3, 400), (1.2, 2), (0.5, 50), (Float.nan, 1), (0.2, 3)] {
            for _ in 0..<blocks {
                var block = (0..<2048).map { _ in rng.nextSignedUnit() * level }
                var expected = block
                block.withUnsafeMutableBufferPointer { limiter.process($0.baseAddress!, frames: 1024) }
                reference.process(&expected)
                #expect(block.elementsEqual(expected) { $0 == $1 || ($0.isNaN && $1.isNaN) })
                #expect(limiter.gain == reference.gain)
            }
        }
    }
}
