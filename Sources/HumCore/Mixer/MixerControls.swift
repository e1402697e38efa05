import Synchronization

/// How the outside world steers a running mix: every control is an atomic the audio thread reads once per block.
/// Nothing here locks or allocates after `init`, so any thread (the UI, the timer, a signal watcher) may call it
/// while the audio thread renders.
public final class MixerControls: @unchecked Sendable {
    // @unchecked: all shared state lives in atomics allocated once in init and freed in deinit.

    public let trackCount: Int
    /// Per track: volume (Float bits, 0–100) in the low 32 bits, muted in bit 32.
    private let tracks: UnsafeMutablePointer<Atomic<UInt64>>
    /// Master volume (Float bits, 0–100).
    private let master = Atomic<UInt32>(Float(100).bitPattern)
    /// The latest fade request: sequence (bits 48–63), finish when silent (bit 44), target position on the fade
    /// curve in 1/4095 steps (32–43), duration in frames (0–31, up to a day at 48 kHz).
    private let fadeRequest = Atomic<UInt64>(0)
    /// Bumped once per chime to play.
    private let chimes = Atomic<UInt32>(0)
    /// The frame at which the mix ends with a fade (−1: plays until stopped), and that fade's length in frames.
    private let end = Atomic<Int64>(-1)
    private let endFade = Atomic<Int64>(0)
    /// Written by the audio thread: frames rendered so far, and whether the mix has finished.
    private let rendered = Atomic<Int64>(0)
    private let finishedFlag = Atomic<Bool>(false)
    private let fadeLevel = Atomic<UInt32>(Float(1).bitPattern)

    public init(volumes: [Float], master: Float = 100) {
        trackCount = volumes.count
        tracks = .allocate(capacity: max(1, volumes.count))
        for (i, v) in volumes.enumerated() {
            (tracks + i).initialize(to: Atomic(UInt64(MixerControls.clamp(v).bitPattern)))
        }
        self.master.store(MixerControls.clamp(master).bitPattern, ordering: .relaxed)
    }

    deinit {
        tracks.deinitialize(count: trackCount)
        tracks.deallocate()
    }

    private static func clamp(_ v: Float) -> Float { v.isNaN ? 0 : min(max(v, 0), 100) }

    // MARK: Track and master volume

    public func setVolume(_ volume: Float, track: Int) {
        guard track >= 0, track < trackCount else { return }
        let muted = tracks[track].load(ordering: .relaxed) & (1 << 32)
        tracks[track].store(muted | UInt64(MixerControls.clamp(volume).bitPattern), ordering: .relaxed)
    }

    public func setMuted(_ muted: Bool, track: Int) {
        guard track >= 0, track < trackCount else { return }
        let bits = tracks[track].load(ordering: .relaxed) & 0xFFFF_FFFF
        tracks[track].store(bits | (muted ? 1 << 32 : 0), ordering: .relaxed)
    }

    public func volume(track: Int) -> Float {
        guard track >= 0, track < trackCount else { return 0 }
        return Float(bitPattern: UInt32(truncatingIfNeeded: tracks[track].load(ordering: .relaxed)))
    }

    public func isMuted(track: Int) -> Bool {
        guard track >= 0, track < trackCount else { return false }
        return tracks[track].load(ordering: .relaxed) & (1 << 32) != 0
    }

    public var masterVolume: Float {
        get { Float(bitPattern: master.load(ordering: .relaxed)) }
        set { master.store(MixerControls.clamp(newValue).bitPattern, ordering: .relaxed) }
    }

    /// The gain a track should have now: its volume on the perceptual curve, or 0 when muted.
    @inline(__always)
    func targetGain(track: Int) -> Float {
        let bits = tracks[track].load(ordering: .relaxed)
        if bits & (1 << 32) != 0 { return 0 }
        return Volume.gain(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
    }

    @inline(__always)
    func targetMasterGain() -> Float { Volume.gain(masterVolume) }

    // MARK: Fades

    /// A request to fade the whole mix, as the audio thread sees it.
    public struct FadeRequest: Equatable, Sendable {
        public var sequence: UInt16
        /// Where on the fade curve to go: 0 is the mix as set, 1 silence.
        public var position: Double
        /// When the fade reaches silence, the mix finishes (used to stop with a fade).
        public var finishWhenSilent: Bool
        public var frames: Int
    }

    /// Fades the mix to silence over exactly `frames` frames from wherever it is now.
    public func fadeOut(frames: Int) { post(position: 1, finish: false, frames: frames) }
    /// Fades the mix back to full over exactly `frames` frames from wherever it is now.
    public func fadeIn(frames: Int) { post(position: 0, finish: false, frames: frames) }
    /// Moves the fade to a level (1 the mix as set, 0 silence, measured along the fade curve) over `frames`.
    public func fade(toLevel level: Double, frames: Int) {
        post(position: 1 - level, finish: false, frames: frames)
    }
    /// Fades to silence over `frames` frames, then the mix finishes (once a chime still sounding has rung out).
    public func stop(fadeFrames: Int) { post(position: 1, finish: true, frames: fadeFrames) }

    private func post(position: Double, finish: Bool, frames: Int) {
        let frames = UInt64(min(max(frames, 0), Int(UInt32.max)))
        let target = UInt64((min(max(position.isNaN ? 0 : position, 0), 1) * 4095).rounded())
        let finishBit = UInt64(finish ? 1 : 0) << 44
        var current = fadeRequest.load(ordering: .relaxed)
        while true {
            let sequence = ((current >> 48) &+ 1) & 0xFFFF
            let next = sequence << 48 | finishBit | target << 32 | frames
            let (exchanged, original) = fadeRequest.compareExchange(
                expected: current, desired: next, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    @inline(__always)
    func latestFade() -> FadeRequest {
        let bits = fadeRequest.load(ordering: .acquiring)
        return FadeRequest(
            sequence: UInt16(truncatingIfNeeded: bits >> 48),
            position: Double((bits >> 32) & 0xFFF) / 4095,
            finishWhenSilent: bits & (1 << 44) != 0,
            frames: Int(bits & 0xFFFF_FFFF))
    }

    /// Plays the mixer's chime once from its start (outside the fade: a break is silent apart from it).
    public func ringChime() { chimes.add(1, ordering: .releasing) }

    @inline(__always)
    func chimeCount() -> UInt32 { chimes.load(ordering: .acquiring) }

    /// Ends the mix at an absolute frame, fading to silence over the last `fadeFrames` frames (a sleep timer, or a
    /// render of a fixed length). The mix then finishes exactly at `frame`.
    public func scheduleEnd(atFrame frame: Int64, fadeFrames: Int64) {
        endFade.store(max(0, min(fadeFrames, frame)), ordering: .relaxed)
        end.store(frame, ordering: .releasing)
    }

    @inline(__always)
    func scheduledEnd() -> (frame: Int64, fade: Int64) {
        let frame = end.load(ordering: .acquiring)
        return (frame, endFade.load(ordering: .relaxed))
    }

    // MARK: What the audio thread reports

    /// Frames rendered since the start: the mix's own clock.
    public var framesRendered: Int64 { rendered.load(ordering: .relaxed) }
    /// True once a stop or a scheduled end has faded to silence: nothing more will sound.
    public var isFinished: Bool { finishedFlag.load(ordering: .acquiring) }
    /// The fade's current gain (1 = no fade).
    public var fadeGain: Float { Float(bitPattern: fadeLevel.load(ordering: .relaxed)) }

    @inline(__always)
    func report(frames: Int64, fade: Float, finished: Bool) {
        rendered.store(frames, ordering: .relaxed)
        fadeLevel.store(fade.bitPattern, ordering: .relaxed)
        if finished { finishedFlag.store(true, ordering: .releasing) }
    }
}
