import Foundation
import HumCore
import HumTestSupport
import Synchronization
import Testing

@testable import HumAudio

#if canImport(Glibc)
    import Glibc
#endif

/// A memory sink paced a little (each period takes `pause` seconds to "play"), so a test can act while the engine
/// runs; it begins playing only after `beginsAfter` writes.
final class PacedSink: AudioSink, @unchecked Sendable {
    // @unchecked: written by the engine thread, read once the engine finished; `writes` is atomic.
    let sampleRate = 48000
    let periodFrames = 480
    let pause: Double
    let beginsAfter: Int
    private(set) var samples: [Float] = []
    let writes = Atomic<Int>(0)

    init(pause: Double = 0.0005, beginsAfter: Int = 0) {
        self.pause = pause
        self.beginsAfter = beginsAfter
        samples.reserveCapacity(48000 * 20)
    }

    func open() throws(AudioSinkError) {}
    func write(_ frames: UnsafePointer<Float>, count: Int) -> AudioSinkWriteResult {
        samples.append(contentsOf: UnsafeBufferPointer(start: frames, count: 2 * count))
        writes.add(1, ordering: .releasing)
        usleep(UInt32(pause * 1_000_000))  // a time: this sink stands for a device that takes audio at its pace
        return .written
    }
    func finish() {}
    func close() {}
    var hasBegunPlaying: Bool { writes.load(ordering: .acquiring) > beginsAfter }
}

/// Counts the frees of the sample memory it hands out.
final class FreeCounter: @unchecked Sendable {
    // @unchecked: the count is atomic.
    let frees = Atomic<Int>(0)

    func constantTrack(_ value: Float, frames: Int = 4800) -> Mixer.Track {
        let base = UnsafeMutablePointer<Int16>.allocate(capacity: frames)
        base.initialize(repeating: LoopBuffer.quantize(value), count: frames)
        let storage = SampleStorage(adopting: base, count: frames) { [self] base, _ in
            frees.add(1, ordering: .relaxed)
            base.deallocate()
        }
        return Mixer.Track(loop: LoopBuffer(storage: storage, startFrame: 0, frames: frames, channels: 1))
    }
}

@Suite struct EngineSlotTests {
    @Test func soundsAddedAndRemovedWhilePlayingAreFreedWhenTheEngineSaysSo() throws {
        let counter = FreeCounter()
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(sampleRate: 48000, tracks: [counter.constantTrack(0.25)], controls: controls)
        controls.scheduleEnd(atFrame: 48000 * 4, fadeFrames: 0)
        let sink = PacedSink()
        let engine = PlaybackEngine(mixer: mixer, sink: sink)
        let released = DispatchSemaphore(value: 0)
        engine.onRelease = { released.signal() }
        engine.start()
        let fade = 2400
        #expect(eventually(within: 10) { sink.writes.load(ordering: .acquiring) >= 20 }, "the engine does not write")
        let slot = try mixer.slots.add(counter.constantTrack(0.25), volume: 100, fadeFrames: fade)
        #expect(eventually(within: 10) { sink.writes.load(ordering: .acquiring) >= 60 }, "the engine stopped writing")
        mixer.slots.remove(slot, fadeFrames: fade)
        #expect(mixer.slots.reclaim() == 0)
        #expect(released.wait(timeout: .now() + 10) == .success)
        #expect(mixer.slots.reclaim() == 1)
        #expect(counter.frees.load(ordering: .relaxed) == 1)
        #expect(engine.wait(timeout: 20))
        let left = stride(from: 0, to: sink.samples.count, by: 2).map { sink.samples[$0] }
        #expect(left.count == 48000 * 4)
        // It was heard (0.5 at full), then gone again, and never moved faster than its fade allows.
        #expect(left.contains { abs($0 - 0.5) < 1e-4 })
        #expect(abs(left.last! - 0.25) < 1e-4)
        #expect(largestStep(left) <= 0.25 * Float.pi / 2 / Float(fade) + 1e-4)
    }

    @Test func abortEndsTheWaitToReopenALostDeviceAtOnce() {
        let counter = FreeCounter()
        let mixer = Mixer(
            sampleRate: 48000, tracks: [counter.constantTrack(0.1)], controls: MixerControls(volumes: [50]))
        let sink = MemorySink(periodFrames: 960)
        sink.loseOnWrites = [0]
        sink.failOpens = Set(0..<100)
        let engine = PlaybackEngine(mixer: mixer, sink: sink)
        engine.reopenInterval = 60
        engine.start()
        #expect(eventually { engine.state == .deviceLost }, "\(engine.state)")
        let asked = Date()
        engine.abort()
        #expect(engine.wait(timeout: 5))
        #expect(Date().timeIntervalSince(asked) < 0.5)
    }

    @Test func hasStartedWaitsUntilTheDeviceBeginsToPlay() {
        let counter = FreeCounter()
        let controls = MixerControls(volumes: [50])
        let mixer = Mixer(sampleRate: 48000, tracks: [counter.constantTrack(0.1)], controls: controls)
        controls.scheduleEnd(atFrame: 480 * 200, fadeFrames: 0)
        let sink = PacedSink(pause: 0.002, beginsAfter: 30)
        let engine = PlaybackEngine(mixer: mixer, sink: sink)
        final class FirstStart: Sendable {
            /// The sink's write count when the engine first said it had started.
            let writes = Atomic<Int>(-1)
            let signal = DispatchSemaphore(value: 0)
        }
        let first = FirstStart()
        engine.onStateChange = { [unowned engine] in
            if engine.hasStarted, first.writes.load(ordering: .relaxed) < 0 {
                first.writes.store(sink.writes.load(ordering: .acquiring), ordering: .relaxed)
                first.signal.signal()
            }
        }
        engine.start()
        #expect(first.signal.wait(timeout: .now() + 10) == .success)
        #expect(first.writes.load(ordering: .relaxed) == 31)
        #expect(engine.wait(timeout: 10))
    }
}
