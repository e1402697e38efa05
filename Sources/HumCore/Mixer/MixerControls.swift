import Synchronization

/// How the outside world steers a running mix: every control is an atomic the audio thread reads once per block.
/// Nothing here locks or allocates after `init`, so any thread (the UI, the timer, a signal watcher) may call it
/// while the audio thread renders.
///
/// The mix has a fixed number of track slots. A slot's volume and mute may be set from any thread; which sound
/// a slot plays is changed only by the mixer's owner, through `TrackSlots`, with the commands at the end of this
/// file (internal to HumCore).
public final class MixerControls: @unchecked Sendable {
    // @unchecked: all shared state lives in atomics allocated once in init and freed in deinit.

    /// Slots in a mixer made for a mix of up to `Mix.maximumTracks` sounds: room for a full mix to crossfade into
    /// another full mix.
    public static let defaultSlotCount = 2 * Mix.maximumTracks

    /// How many track slots there are; a track is named by its slot, 0 ..< slotCount.
    public let slotCount: Int
    /// Per slot: volume (Float bits, 0–100) in bits 0–31, muted in bit 32, and the length of the ramp to it in
    /// frames in bits 33–63 (0: the mixer's usual ramp).
    private let gains: UnsafeMutablePointer<Atomic<UInt64>>
    /// Master volume (Float bits, 0–100) in bits 0–31 and the length of its ramp in bits 32–63 (0: the usual).
    private let master = Atomic<UInt64>(UInt64(Float(100).bitPattern))
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

    // Slot commands (owner to audio thread) and releases (audio thread to owner): see the last section.
    private let commands: UnsafeMutablePointer<Atomic<UInt64>>
    private let loopAddresses: UnsafeMutablePointer<Atomic<UInt>>
    private let loopFrames: UnsafeMutablePointer<Atomic<Int>>
    private let loopFormats: UnsafeMutablePointer<Atomic<UInt64>>
    private let eventTables: UnsafeMutablePointer<Atomic<UInt>>
    private let segmentTables: UnsafeMutablePointer<Atomic<UInt>>
    private let released: UnsafeMutablePointer<Atomic<UInt32>>
    /// Written by the audio thread after each block, per slot: where its voice reads (see `LoopReading`).
    let reading: UnsafeMutablePointer<Atomic<UInt64>>
    let nextReading: UnsafeMutablePointer<Atomic<UInt64>>
    let runReading: UnsafeMutablePointer<Atomic<UInt64>>
    private let publishedEpoch = Atomic<UInt32>(0)
    private let releaseCount = Atomic<UInt32>(0)

    /// - Parameters:
    ///   - volumes: the volumes of the tracks the mixer starts with, in slots 0, 1, …
    ///   - slots: how many slots; at least `volumes.count`, and at least twice it when fewer than the default.
    public init(volumes: [Float], master: Float = 100, slots: Int = MixerControls.defaultSlotCount) {
        slotCount = max(slots, 2 * volumes.count, 1)
        gains = .allocate(capacity: slotCount)
        commands = .allocate(capacity: slotCount)
        loopAddresses = .allocate(capacity: slotCount)
        loopFrames = .allocate(capacity: slotCount)
        loopFormats = .allocate(capacity: slotCount)
        eventTables = .allocate(capacity: slotCount)
        segmentTables = .allocate(capacity: slotCount)
        released = .allocate(capacity: slotCount)
        reading = .allocate(capacity: slotCount)
        nextReading = .allocate(capacity: slotCount)
        runReading = .allocate(capacity: slotCount)
        for i in 0..<slotCount {
            let volume = i < volumes.count ? MixerControls.clamp(volumes[i]) : 0
            (gains + i).initialize(to: Atomic(UInt64(volume.bitPattern)))
            (commands + i).initialize(to: Atomic(0))
            (loopAddresses + i).initialize(to: Atomic(0))
            (loopFrames + i).initialize(to: Atomic(0))
            (loopFormats + i).initialize(to: Atomic(0))
            (eventTables + i).initialize(to: Atomic(0))
            (segmentTables + i).initialize(to: Atomic(0))
            (released + i).initialize(to: Atomic(0))
            (reading + i).initialize(to: Atomic(MixerControls.notReading))
            (nextReading + i).initialize(to: Atomic(MixerControls.notReading))
            (runReading + i).initialize(to: Atomic(MixerControls.notReading))
        }
        self.master.store(UInt64(MixerControls.clamp(master).bitPattern), ordering: .relaxed)
    }

    deinit {
        for pointer in [gains, commands, loopFormats] { pointer.deinitialize(count: slotCount).deallocate() }
        loopAddresses.deinitialize(count: slotCount).deallocate()
        eventTables.deinitialize(count: slotCount).deallocate()
        segmentTables.deinitialize(count: slotCount).deallocate()
        loopFrames.deinitialize(count: slotCount).deallocate()
        released.deinitialize(count: slotCount).deallocate()
        reading.deinitialize(count: slotCount).deallocate()
        nextReading.deinitialize(count: slotCount).deallocate()
        runReading.deinitialize(count: slotCount).deallocate()
    }

    private static func clamp(_ v: Float) -> Float { v.isNaN ? 0 : min(max(v, 0), 100) }
    private static func rampBits(_ frames: Int) -> UInt64 { UInt64(min(max(frames, 0), Int(Int32.max))) }

    // MARK: Track and master volume

    /// Sets a slot's volume (0–100), reached over the usual ramp, or over `rampFrames` frames when given.
    public func setVolume(_ volume: Float, track: Int, rampFrames: Int = 0) {
        guard track >= 0, track < slotCount else { return }
        let muted = gains[track].load(ordering: .relaxed) & (1 << 32)
        gains[track].store(
            MixerControls.rampBits(rampFrames) << 33 | muted | UInt64(MixerControls.clamp(volume).bitPattern),
            ordering: .relaxed)
    }

    public func setMuted(_ muted: Bool, track: Int, rampFrames: Int = 0) {
        guard track >= 0, track < slotCount else { return }
        let bits = gains[track].load(ordering: .relaxed) & 0xFFFF_FFFF
        gains[track].store(
            MixerControls.rampBits(rampFrames) << 33 | bits | (muted ? 1 << 32 : 0), ordering: .relaxed)
    }

    /// Sets a slot's volume and mute at once, reached over `rampFrames` frames (0: the usual ramp).
    public func setVolume(_ volume: Float, muted: Bool, track: Int, rampFrames: Int = 0) {
        guard track >= 0, track < slotCount else { return }
        gains[track].store(
            MixerControls.rampBits(rampFrames) << 33 | (muted ? 1 << 32 : 0)
                | UInt64(MixerControls.clamp(volume).bitPattern), ordering: .relaxed)
    }

    public func volume(track: Int) -> Float {
        guard track >= 0, track < slotCount else { return 0 }
        return Float(bitPattern: UInt32(truncatingIfNeeded: gains[track].load(ordering: .relaxed)))
    }

    public func isMuted(track: Int) -> Bool {
        guard track >= 0, track < slotCount else { return false }
        return gains[track].load(ordering: .relaxed) & (1 << 32) != 0
    }

    public var masterVolume: Float {
        get { Float(bitPattern: UInt32(truncatingIfNeeded: master.load(ordering: .relaxed))) }
        set { setMasterVolume(newValue) }
    }

    /// Sets the master volume, reached over the usual ramp, or over `rampFrames` frames when given.
    public func setMasterVolume(_ volume: Float, rampFrames: Int = 0) {
        master.store(
            MixerControls.rampBits(rampFrames) << 32 | UInt64(MixerControls.clamp(volume).bitPattern),
            ordering: .relaxed)
    }

    /// The gain a track should have now (its volume on the perceptual curve, or 0 when muted) and the frames to
    /// ramp to it over (0: the usual ramp).
    @inline(__always)
    func targetGain(track: Int) -> (gain: Float, rampFrames: Int) {
        let bits = gains[track].load(ordering: .relaxed)
        let ramp = Int(bits >> 33)
        if bits & (1 << 32) != 0 { return (0, ramp) }
        return (Volume.gain(Float(bitPattern: UInt32(truncatingIfNeeded: bits))), ramp)
    }

    @inline(__always)
    func targetMasterGain() -> (gain: Float, rampFrames: Int) {
        let bits = master.load(ordering: .relaxed)
        return (Volume.gain(Float(bitPattern: UInt32(truncatingIfNeeded: bits))), Int(bits >> 32))
    }

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
            position: Double(Int(truncatingIfNeeded: (bits >> 32) & 0xFFF)) / 4095,
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
    /// Bumped by the audio thread each time it lets go of a slot's sound (or refused to take it up): the owner
    /// may then free what `TrackSlots.reclaim()` finds released. Compare it with an earlier value to learn that
    /// something was released, without polling the slots.
    public var releases: UInt32 { releaseCount.load(ordering: .acquiring) }

    @inline(__always)
    func report(frames: Int64, fade: Float, finished: Bool) {
        rendered.store(frames, ordering: .relaxed)
        fadeLevel.store(fade.bitPattern, ordering: .relaxed)
        if finished { finishedFlag.store(true, ordering: .releasing) }
    }

    // MARK: Slot commands: the owner's side of the handoff (used by TrackSlots)

    /// What the owner asks of a slot: take up the sound described in the slot and fade it in (`enter`; a sound
    /// still fading out turns around), or fade the slot's sound out and let go of it (`leave`).
    enum SlotCommandKind: UInt64 {
        case none = 0
        case enter = 1
        case leave = 2
    }

    struct SlotCommand: Equatable {
        /// The owner's epoch the command belongs to: commands of one epoch take effect on the same frame.
        var epoch: UInt32
        var kind: SlotCommandKind
        /// The length of a whole fade (silence to full or back) in frames.
        var fadeFrames: Int
    }

    /// The largest fade a command carries: 2³⁰ − 1 frames, over six hours at 48 kHz.
    static let maximumCommandFade = (1 << 30) - 1

    /// Describes the sound a slot is to play. The owner writes it only while the audio thread holds nothing in
    /// the slot (a free slot), before the `enter` command that makes it read it.
    func describe(
        slot: Int, samples: UnsafePointer<Int16>, frames: Int, channels: Int, normalization: Float,
        events: UnsafePointer<SoundEvents.Table>? = nil, segments: UnsafePointer<BedSegments.Table>? = nil
    ) {
        eventTables[slot].store(UInt(bitPattern: events), ordering: .relaxed)
        segmentTables[slot].store(UInt(bitPattern: segments), ordering: .relaxed)
        loopAddresses[slot].store(UInt(bitPattern: samples), ordering: .relaxed)
        loopFrames[slot].store(frames, ordering: .relaxed)
        loopFormats[slot].store(UInt64(channels) << 32 | UInt64(normalization.bitPattern), ordering: .relaxed)
    }

    /// Stores a command for a slot (it takes effect once its epoch is published).
    func command(slot: Int, _ command: SlotCommand) {
        let fade = UInt64(min(max(command.fadeFrames, 0), MixerControls.maximumCommandFade))
        commands[slot].store(
            UInt64(command.epoch) << 32 | command.kind.rawValue << 30 | fade, ordering: .releasing)
    }

    /// Makes every command of `epoch` and before visible to the audio thread at once.
    func publish(epoch: UInt32) { publishedEpoch.store(epoch, ordering: .releasing) }

    /// The epoch of the last `leave` the audio thread finished for a slot (its sound is let go of).
    func releasedEpoch(slot: Int) -> UInt32 { released[slot].load(ordering: .acquiring) }

    // MARK: Slot commands: the audio thread's side

    @inline(__always)
    func latestEpoch() -> UInt32 { publishedEpoch.load(ordering: .acquiring) }

    @inline(__always)
    func pendingCommand(slot: Int) -> SlotCommand {
        let bits = commands[slot].load(ordering: .acquiring)
        return SlotCommand(
            epoch: UInt32(truncatingIfNeeded: bits >> 32),
            kind: SlotCommandKind(rawValue: (bits >> 30) & 3) ?? .none,
            fadeFrames: Int(bits & UInt64(MixerControls.maximumCommandFade)))
    }

    @inline(__always)
    func description(slot: Int) -> (samples: UnsafePointer<Int16>?, frames: Int, channels: Int, normalization: Float) {
        let format = loopFormats[slot].load(ordering: .relaxed)
        return (
            UnsafePointer(bitPattern: loopAddresses[slot].load(ordering: .relaxed)),
            loopFrames[slot].load(ordering: .relaxed), Int(format >> 32),
            Float(bitPattern: UInt32(truncatingIfNeeded: format))
        )
    }

    /// The events of the sound described in a slot (nil: none).
    @inline(__always)
    func eventTable(slot: Int) -> UnsafePointer<SoundEvents.Table>? {
        UnsafePointer(bitPattern: eventTables[slot].load(ordering: .relaxed))
    }

    /// How the sound described in a slot plays in segments (nil: round and round).
    @inline(__always)
    func segmentTable(slot: Int) -> UnsafePointer<BedSegments.Table>? {
        UnsafePointer(bitPattern: segmentTables[slot].load(ordering: .relaxed))
    }

    /// The audio thread let go of a slot's sound at the end of the `leave` of `epoch`.
    @inline(__always)
    func release(slot: Int, epoch: UInt32) {
        released[slot].store(epoch, ordering: .releasing)
        releaseCount.add(1, ordering: .releasing)
    }
}
