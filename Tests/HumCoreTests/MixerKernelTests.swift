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

    @Test func theLimiterSkipsWorkOnlyWhereItWouldChangeNothing() {
        var fast = TruePeakLimiter(sampleRate: 48000, maximumBlock: 2048)
        var slow = TruePeakLimiter(sampleRate: 48000, maximumBlock: 2048)
        slow.skipsWork = false
        defer {
            fast.deallocate()
            slow.deallocate()
        }
        var rng = SplitMix64(seed: 5)
        // Quiet, loud (the gain drops), a long quiet stretch (it recovers to rest), loud again, NaN.
        for (level, blocks) in [(Float(0.3), 5), (1.6, 3), (0.3, 400), (1.2, 2), (0.5, 50), (0.45, 9), (0.2, 3)] {
            for _ in 0..<blocks {
                let block = (0..<2048).map { _ in rng.nextSignedUnit() * level }
                var a = [Float](repeating: 0, count: 2048)
                var b = a
                block.withUnsafeBufferPointer { fast.input.update(from: $0.baseAddress!, count: 2048) }
                block.withUnsafeBufferPointer { slow.input.update(from: $0.baseAddress!, count: 2048) }
                a.withUnsafeMutableBufferPointer { fast.process(into: $0.baseAddress!, frames: 1024) }
                b.withUnsafeMutableBufferPointer { slow.process(into: $0.baseAddress!, frames: 1024) }
                #expect(a == b)
                #expect(fast.gain == slow.gain)
            }
        }
    }
}
