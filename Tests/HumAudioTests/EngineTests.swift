import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumAudio

@Suite struct EngineTests {
    func mixer(rate: Int = 48000, endFrame: Int64) -> Mixer {
        let loop = LoopBuffer(interleaved: sine(frequency: 300, rate: rate, frames: 4800), channels: 1)
        let controls = MixerControls(volumes: [100])
        controls.scheduleEnd(atFrame: endFrame, fadeFrames: 480)
        return Mixer(sampleRate: rate, tracks: [.init(loop: loop)], controls: controls)
    }

    @Test func playsToTheEndAndFinishesTheSink() {
        let sink = MemorySink(periodFrames: 960)
        let engine = PlaybackEngine(mixer: mixer(endFrame: 10_000), sink: sink)
        engine.start()
        #expect(engine.wait(timeout: 10))
        #expect(engine.state == .finished)
        #expect(sink.samples.count == 20_000)
        #expect(sink.finished)
    }

    @Test func recoversUnderrunsAndReopensALostDevice() {
        let sink = MemorySink(periodFrames: 960)
        sink.underrunOnWrites = [1: 1, 3: 2]  // two underruns reported by one write count as two
        sink.loseOnWrites = [5]
        sink.failOpens = [0, 1]  // the device takes two attempts to come back
        let engine = PlaybackEngine(mixer: mixer(endFrame: 20 * 960), sink: sink)
        engine.reopenInterval = 0.01
        engine.start()
        #expect(engine.wait(timeout: 10))
        #expect(engine.underruns == 3)
        #expect(engine.underrunSeconds.count == 3)
        #expect(engine.underrunSeconds.allSatisfy { $0 >= 0 && $0 < 10 })
        #expect(engine.reopens == 1)
        #expect(sink.opens == 3)
        // The period lost with the device is gone; everything else arrived, in order.
        #expect(sink.samples.count == 19 * 960 * 2)
    }

    @Test func abortStopsAtOnce() {
        let sink = MemorySink(periodFrames: 960)
        let engine = PlaybackEngine(mixer: mixer(endFrame: Int64.max / 2), sink: sink)
        sink.loseOnWrites = [0]
        sink.failOpens = Set(0..<1000)  // never comes back
        engine.reopenInterval = 0.01
        engine.start()
        #expect(eventually { engine.state == .deviceLost }, "\(engine.state)")
        engine.abort()
        #expect(engine.wait(timeout: 5))
    }
}

@Suite struct TrackLoaderTests {
    @Test func loadsAtTheOutputRateAndSeamsAFileThatDoesNotLoop() throws {
        let dir = temporaryDirectory()
        var signal = sine(frequency: 200, rate: 44100, frames: 44100 + 37)  // ends mid-period: a jump at the wrap
        signal[signal.count - 1] = 0.5
        try writeFile("\(dir)/jump.wav", signal, rate: 44100, channels: 1)
        let sound = SoundReference(
            name: "jump", title: "jump", path: "\(dir)/jump.wav", source: .file, loop: nil, loudnessLUFS: nil)
        let track = try TrackLoader.load(sound, outputRate: 48000)
        let loop = (0..<track.loop.frames).map { track.loop.sample(frame: $0, channel: 0) }
        #expect(abs(loop.count - 48000 * 9 / 10) < 2400)  // shortened by the crossfade
        #expect(largestStep(loop + loop) <= largestStep(Array(signal.dropLast())) * 1.1)
    }

    @Test func precutSoundsLoopAsTheyAre() throws {
        let dir = temporaryDirectory()
        var signal = sine(frequency: 200, rate: 48000, frames: 4800)
        signal[4799] = 0.4
        try writeFile("\(dir)/cut.wav", signal, rate: 48000, channels: 1)
        let sound = SoundReference(
            name: "cut", title: "cut", path: "\(dir)/cut.wav", source: .builtin, loop: .precut, loudnessLUFS: nil)
        let track = try TrackLoader.load(sound, outputRate: 48000)
        #expect(track.loop.frames == 4800)
        #expect(abs(track.loop.sample(frame: 4799, channel: 0) - 0.4) < 1e-4)
    }
}
