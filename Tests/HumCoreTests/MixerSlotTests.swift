import Foundation
import HumTestSupport
import Synchronization
import Testing

@testable import HumCore

/// Sample memory that counts how often it was freed, and poisons itself on release instead of going back to the
/// allocator (so a read after the release shows up in the mix as full scale, where every sound here is silence
/// or small). Freed for real when the counter goes away.
final class CountedMemory: @unchecked Sendable {
    // @unchecked: the counter is atomic; the quarantine is touched under its mutex.
    let releases = Atomic<Int>(0)
    /// The addresses of released memory, freed for real in deinit.
    private let quarantine = Mutex<[UInt]>([])

    func storage(_ values: [Int16]) -> SampleStorage {
        let base = UnsafeMutablePointer<Int16>.allocate(capacity: values.count)
        base.initialize(from: values, count: values.count)
        return SampleStorage(adopting: base, count: values.count) { [self] base, count in
            base.update(repeating: Int16.max, count: count)
            let address = UInt(bitPattern: base)
            quarantine.withLock { $0.append(address) }
            releases.add(1, ordering: .relaxed)
        }
    }

    /// A mono loop of `frames` frames at a constant value (as 16-bit), or of the given values.
    func track(_ value: Float, frames: Int = 4800) -> Mixer.Track {
        track(values: [Float](repeating: value, count: frames))
    }

    func track(values: [Float], channels: Int = 1) -> Mixer.Track {
        let samples = values.map { LoopBuffer.quantize($0) }
        let loop = LoopBuffer(
            storage: storage(samples), startFrame: 0, frames: samples.count / channels, channels: channels)
        return Mixer.Track(loop: loop)
    }

    var released: Int { releases.load(ordering: .relaxed) }

    deinit {
        for address in quarantine.withLock({ $0 }) {
            UnsafeMutablePointer<Int16>(bitPattern: address)?.deallocate()
        }
    }
}

/// sin(π/2 · x), the entering curve (cos is the leaving one), in Double.
func quarterSine(_ x: Double) -> Double { ChimeMath.sinTurns(min(1, max(0, x)) / 4) }

/// Renders `frames` frames in calls of `chunk` frames.
func renderFrames(_ mixer: Mixer, _ frames: Int, chunk: Int) -> [Float] {
    var out: [Float] = []
    var left = frames
    while left > 0 {
        let part = renderFrames(mixer, min(chunk, left))
        if part.isEmpty { break }
        out += part
        left -= part.count / 2
    }
    return out
}

@Suite struct MixerSlotTests {
    let q = Float(1) / 32768  // one step of 16-bit

    @Test func anAddedSoundFadesInFromSilenceOnTheEqualPowerCurve() throws {
        let memory = CountedMemory()
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(sampleRate: 48000, tracks: [memory.track(0.5)], controls: controls)
        let before = left(renderFrames(mixer, 1000))
        let slot = try mixer.slots.add(memory.track(0.25), volume: 100, fadeFrames: 4800)
        #expect(slot == 1)
        // Heard after the limiter's look-ahead: the mix runs that far ahead of what comes out.
        let l = mixer.latencyFrames
        let after = left(renderFrames(mixer, 6000 + l))
        #expect(after[..<l].allSatisfy { $0 == 0.5 })
        for k in [0, 100, 479, 2400, 4000, 4798] {
            let expected = 0.5 + 0.25 * quarterSine(Double(k + 1) / 4800)
            #expect(abs(Double(after[l + k]) - expected) < 1e-4, "frame \(k): \(after[l + k]) vs \(expected)")
        }
        #expect(after[(4799 + l)...].allSatisfy { abs($0 - 0.75) < 1e-4 })
        // The steepest step of a 4800-frame quarter sine of 0.25 is 0.25 · (π/2) / 4800.
        #expect(largestStep(before + after) <= 0.25 * (Float.pi / 2) / 4800 + 2 * q)
        #expect(mixer.slots.playing == [0, 1])
    }

    @Test func aRemovedSoundFadesOutAndItsMemoryIsFreedOnlyAfterTheAudioThreadLetGo() throws {
        let memory = CountedMemory()
        let controls = MixerControls(volumes: [100])
        let mixer = Mixer(sampleRate: 48000, tracks: [memory.track(0.5)], controls: controls)
        let slot = try mixer.slots.add(memory.track(0.25), volume: 100, fadeFrames: 480)
        _ = renderFrames(mixer, 2000)
        mixer.slots.remove(slot, fadeFrames: 4800)
        // Nothing rendered yet: the audio thread has not even seen the request; nothing may be freed.
        #expect(mixer.slots.reclaim() == 0)
        #expect(mixer.slots.state(of: slot) == .leaving)
        let releasesBefore = controls.releases
        let first = left(renderFrames(mixer, 3000))
        #expect(mixer.slots.reclaim() == 0)  // midway through the fade: still read
        #expect(memory.released == 0)
        #expect(controls.releases == releasesBefore)
        let l = mixer.latencyFrames  // heard after the limiter's look-ahead
        let rest = left(renderFrames(mixer, 3000 + l))
        #expect(controls.releases == releasesBefore &+ 1)
        #expect(memory.released == 0)  // let go of, but still held by the owner until it reclaims
        #expect(mixer.slots.reclaim() == 1)
        #expect(memory.released == 1)
        #expect(mixer.slots.state(of: slot) == .free)
        let out = first + rest
        for k in [0, 1200, 2400, 4000] {
            let expected = 0.5 + 0.25 * quarterSine(1 - Double(k + 1) / 4800)
            #expect(abs(Double(out[l + k]) - expected) < 1e-4, "frame \(k)")
        }
        #expect(out[(4799 + l)...].allSatisfy { abs($0 - 0.5) < 1e-4 })
        #expect(largestStep(out) <= 0.25 * (Float.pi / 2) / 4800 + 2 * q)
        // The freed slot takes a new sound.
        #expect(try mixer.slots.add(memory.track(0.125), volume: 100, fadeFrames: 480) == slot)
    }

    @Test func replaceCrossfadesKeepsSharedSoundsPlayingAndMovesThemToTheirNewVolume() throws {
        let memory = CountedMemory()
        let controls = MixerControls(volumes: [100, 100])
        let mixer = Mixer(
            sampleRate: 48000, tracks: [memory.track(0.5), memory.track(0.25)], controls: controls)
        _ = renderFrames(mixer, 1000)
        let added = try mixer.slots.replace(
            keeping: [.init(slot: 1, volume: 50)], adding: [.init(track: memory.track(0.125), volume: 100)],
            fadeFrames: 4800)
        #expect(added == [2])
        #expect(mixer.slots.state(of: 0) == .leaving)
        let l = mixer.latencyFrames  // heard after the limiter's look-ahead
        let out = left(renderFrames(mixer, 7000 + l, chunk: 960))
        for k in [0, 1000, 2400, 3600, 4798] {
            let x = Double(k + 1) / 4800
            let kept = 0.25 + (0.25 * 0.125 - 0.25) * x  // volume 50 is a gain of 1/8, reached linearly
            let expected = 0.5 * quarterSine(1 - x) + kept + 0.125 * quarterSine(x)
            #expect(abs(Double(out[l + k]) - expected) < 2e-4, "frame \(k): \(out[l + k]) vs \(expected)")
        }
        #expect(out[(4800 + l)...].allSatisfy { abs($0 - (0.25 * 0.125 + 0.125)) < 1e-4 })
        #expect(mixer.slots.reclaim() == 1)
        #expect(memory.released == 1)
        #expect(mixer.slots.playing == [1, 2])
    }

    @Test func aSharedSoundGoesOnFromWhereItsLoopIsWithoutARestart() throws {
        // A ramp loop that never repeats within the test; the other sounds are silence, so the output is the
        // kept sound alone, to the bit, as if nothing had happened.
        let memory = CountedMemory()
        let ramp = (0..<50_000).map { Float($0 % 20_000) / 40_000 }
        let controls = MixerControls(volumes: [0, 100])
        let mixer = Mixer(
            sampleRate: 48000, tracks: [memory.track(0), memory.track(values: ramp)], controls: controls)
        let alone = Mixer(
            sampleRate: 48000, tracks: [memory.track(values: ramp)], controls: MixerControls(volumes: [100]))
        var out = renderFrames(mixer, 3000)
        try mixer.slots.replace(
            keeping: [.init(slot: 1, volume: 100)], adding: [.init(track: memory.track(0), volume: 80)],
            fadeFrames: 4800)
        out += renderFrames(mixer, 9000, chunk: 700)
        #expect(out == renderFrames(alone, 12_000))
    }

    @Test func removingWhileEnteringAndAddingBackWhileLeavingTurnAroundWithoutAStep() throws {
        let memory = CountedMemory()
        let controls = MixerControls(volumes: [])
        let mixer = Mixer(sampleRate: 48000, tracks: [], controls: controls)
        let slot = try mixer.slots.add(memory.track(0.5), volume: 100, fadeFrames: 4800)
        // The mix runs the limiter's look-ahead ahead of what comes out: changes asked for after 1200 − l frames
        // out are mixed from frame 1200 on.
        let l = mixer.latencyFrames
        var out = left(renderFrames(mixer, 1200 - l))
        mixer.slots.remove(slot, fadeFrames: 4800)
        out += left(renderFrames(mixer, 600))
        try mixer.slots.bringBack(slot, volume: 100, fadeFrames: 2400)
        out += left(renderFrames(mixer, 3000 + l))
        // Up a quarter of the swing, down an eighth, then up the rest on a swing half as long.
        #expect(abs(Double(out[1199]) - 0.5 * quarterSine(0.25)) < 1e-4)
        #expect(abs(Double(out[1799]) - 0.5 * quarterSine(0.125)) < 1e-4)
        #expect(out[(1800 + 2100)...].allSatisfy { abs($0 - 0.5) < 1e-4 })
        #expect(largestStep(out) <= 0.5 * (Float.pi / 2) / 2400 + 2 * q)
        #expect(memory.released == 0)
        #expect(mixer.slots.playing == [slot])
    }

    @Test func commandsTakeEffectOnBlockBoundariesWhateverTheCallSize() throws {
        // The same add rendered in one call and in odd-sized calls: the same samples (to float rounding).
        func run(chunk: Int) throws -> [Float] {
            let memory = CountedMemory()
            var rng = SplitMix64(seed: 3)
            let noise = (0..<9000).map { _ in rng.nextSignedUnit() * 0.3 }
            let mixer = Mixer(
                sampleRate: 48000, tracks: [memory.track(values: noise)], controls: MixerControls(volumes: [70]))
            var out = renderFrames(mixer, 1500)
            try mixer.slots.add(
                memory.track(values: Array(noise.reversed()), channels: 2), volume: 60, fadeFrames: 3000)
            out += renderFrames(mixer, 6000, chunk: chunk)
            mixer.slots.remove(0, fadeFrames: 2000)
            out += renderFrames(mixer, 6000, chunk: chunk)
            return out
        }
        let whole = try run(chunk: 6000)
        for chunk in [1, 333, 960, 2048, 2049] {
            let split = try run(chunk: chunk)
            #expect(split.count == whole.count)
            #expect(zip(split, whole).allSatisfy { abs($0 - $1) < 1e-6 }, "chunk \(chunk)")
        }
    }

    @Test func theShortestFadeIsTheUsualRampSoNothingStartsOrStopsAsAStep() throws {
        let memory = CountedMemory()
        let mixer = Mixer(sampleRate: 48000, tracks: [], controls: MixerControls(volumes: []))
        let slot = try mixer.slots.add(memory.track(0.5), volume: 100, fadeFrames: 0)
        var out = left(renderFrames(mixer, 3000))
        mixer.slots.remove(slot, fadeFrames: 0)
        out += left(renderFrames(mixer, 3000))
        let ramp = Int(48000 * Mixer.rampSeconds)
        #expect(abs(out[ramp - 1] - 0.5) < 1e-4)
        #expect(out.suffix(3000 - ramp - mixer.latencyFrames).allSatisfy { $0 == 0 })
        #expect(largestStep([0] + out) <= 0.5 * (Float.pi / 2) / Float(ramp) + 2 * q)
        #expect(mixer.slots.reclaim() == 1)
    }

    @Test func slotsRunOutOnlyWhenEverySlotIsPlayingOrStillFadingOut() throws {
        let memory = CountedMemory()
        let controls = MixerControls(volumes: [], slots: 4)
        let mixer = Mixer(sampleRate: 48000, tracks: [], controls: controls)
        for _ in 0..<4 { try mixer.slots.add(memory.track(0.01, frames: 10), volume: 10, fadeFrames: 10) }
        #expect(throws: TrackSlots.Problem.noFreeSlot(slots: 4)) {
            try mixer.slots.add(memory.track(0.01, frames: 10), volume: 10, fadeFrames: 10)
        }
        mixer.slots.remove(2, fadeFrames: 100)
        #expect(throws: TrackSlots.Problem.noFreeSlot(slots: 4)) {
            try mixer.slots.replace(
                keeping: [], adding: [.init(track: memory.track(0.01, frames: 10), volume: 1)], fadeFrames: 10)
        }
        #expect(mixer.slots.playing == [0, 1, 3])  // the refused replace changed nothing
        _ = renderFrames(mixer, 2000)
        #expect(memory.released == 2)  // the two refused sounds, never taken
        #expect(try mixer.slots.add(memory.track(0.01, frames: 10), volume: 10, fadeFrames: 10) == 2)
        #expect(memory.released == 3)
    }

    @Test func aRemovalTheAudioThreadNeverSawIsReleasedWithoutPlaying() throws {
        let memory = CountedMemory()
        let mixer = Mixer(sampleRate: 48000, tracks: [], controls: MixerControls(volumes: []))
        let slot = try mixer.slots.add(memory.track(0.5), volume: 100, fadeFrames: 480)
        mixer.slots.remove(slot, fadeFrames: 480)
        let out = renderFrames(mixer, 1000)
        #expect(out.allSatisfy { $0 == 0 })
        #expect(mixer.slots.reclaim() == 1)
        #expect(memory.released == 1)
    }

    @Test func theOwnerAndTheAudioThreadNeverShareASoundBeingFreed() throws {
        // Two threads as in a player: one renders without pause, the other adds, removes, replaces and reclaims
        // at random. Every sound is quiet noise; a freed sound turns to full scale, so a read after release would
        // show as a sample beyond what the sounds can sum to.
        let memory = CountedMemory()
        let controls = MixerControls(volumes: [], slots: 12)
        let mixer = Mixer(sampleRate: 48000, tracks: [], controls: controls)
        final class Shared: Sendable {
            let stop = Atomic<Bool>(false)
            /// The loudest sample rendered, as the bits of its magnitude (which order as the magnitudes do).
            let loudest = Atomic<UInt32>(0)
        }
        let shared = Shared()
        let audio = Thread {
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 256)
            defer { buffer.deallocate() }
            while !shared.stop.load(ordering: .relaxed) {
                let n = mixer.render(into: buffer, frames: 256)
                for i in 0..<(2 * n) { shared.loudest.max(abs(buffer[i]).bitPattern, ordering: .relaxed) }
            }
        }
        audio.start()
        var rng = SplitMix64(seed: 11)
        var created = 0
        func quiet() -> Mixer.Track {
            created += 1
            return memory.track(values: (0..<(64 + Int(rng.next() % 512))).map { _ in rng.nextSignedUnit() * 0.001 })
        }
        var added = 0
        for round in 0..<3000 {
            switch rng.next() % 4 {
            case 0, 1:
                if (try? mixer.slots.add(quiet(), volume: 100, fadeFrames: Int(rng.next() % 300))) != nil {
                    added += 1
                }
            case 2:
                if let slot = mixer.slots.playing.randomElement(using: &rng) {
                    mixer.slots.remove(slot, fadeFrames: Int(rng.next() % 300))
                }
            default:
                let keep = mixer.slots.playing.filter { _ in rng.next() % 2 == 0 }
                if let slots = try? mixer.slots.replace(
                    keeping: keep.map { .init(slot: $0, volume: 90) }, adding: [.init(track: quiet(), volume: 100)],
                    fadeFrames: Int(rng.next() % 300))
                {
                    added += slots.count
                }
            }
            mixer.slots.reclaim()
            if round % 100 == 0 { usleep(200) }  // a time: the audio thread gets turns between bursts of changes
        }
        for slot in mixer.slots.playing { mixer.slots.remove(slot, fadeFrames: 10) }
        eventually(within: 10) {
            mixer.slots.reclaim()
            return mixer.slots.leaving.isEmpty
        }
        shared.stop.store(true, ordering: .relaxed)
        #expect(eventually(within: 10) { audio.isFinished }, "the audio thread did not end")
        #expect(mixer.slots.leaving.isEmpty)
        #expect(memory.released == created)  // every sound freed: those that played, and those refused
        // Twelve quiet sounds sum to at most 0.012; full scale would be 1.
        #expect(Float(bitPattern: shared.loudest.load(ordering: .relaxed)) < 0.02)
        #expect(added > 500)
    }
}
