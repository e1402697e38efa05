/// The owner's side of a mixer's track slots: which sound each slot plays, the adding, removing and replacing of
/// sounds while the mix plays, and the freeing of a removed sound's memory once the audio thread let go of it.
///
/// The handoff, read-copy-update style, with no lock on either side:
/// - The owner describes a sound in a free slot (pointer, frames, channels, normalization), sets its volume and
///   stores an `enter` command stamped with a new epoch; then it publishes the epoch. Every command of one call
///   shares an epoch, so a crossfade's sounds all start on the same frame.
/// - The audio thread reads one atomic per block, the published epoch; when it moved, it takes up the new commands:
///   an `enter` makes the slot's voice read the description and fade in; a `leave` fades the voice out.
/// - When a leaving voice has reached silence, the audio thread stops reading its samples, then stores the
///   `leave`'s epoch as the slot's released epoch and bumps `MixerControls.releases` (the engine wakes its owner
///   on that). `reclaim()` frees the sounds of the slots whose release matches their last `leave`, and only them.
/// The owner keeps the `Mixer.Track` (and so its `LoopBuffer`) of every slot that is playing or leaving: the audio
/// thread never holds the last reference to anything, and never releases memory.
///
/// A sound removed and added again while it fades out is brought back (`bringBack`): its fade turns around and it
/// goes on from where its loop is, with no restart.
///
/// Not thread-safe: used by one thread, the mixer's owner (the player's event loop, or whoever renders offline).
public final class TrackSlots: @unchecked Sendable {
    // @unchecked: one thread uses it (see above); the audio thread never touches it. It is reached through the
    // mixer, which keeps it (and so every sound it holds) alive as long as the mixer may render.

    public enum State: Equatable, Sendable {
        /// Holds nothing.
        case free
        /// Playing, or fading in.
        case playing
        /// Fading out; its sound is kept until the audio thread lets go of it.
        case leaving
    }

    /// Why a change could not be made.
    public enum Problem: Error, Equatable, Sendable {
        /// Every slot is taken by sounds playing or still fading out.
        case noFreeSlot(slots: Int)
        /// The slot holds no sound that plays (it is free, or fading out).
        case notPlaying(slot: Int)
    }

    /// A sound kept through a `replace`, moving to a new volume.
    public struct Kept: Equatable, Sendable {
        public var slot: Int
        public var volume: Float
        public var muted: Bool
        public init(slot: Int, volume: Float, muted: Bool = false) {
            self.slot = slot
            self.volume = volume
            self.muted = muted
        }
    }

    /// A sound that enters with a `replace`.
    public struct Added: Sendable {
        public var track: Mixer.Track
        public var volume: Float
        public var muted: Bool
        public init(track: Mixer.Track, volume: Float, muted: Bool = false) {
            self.track = track
            self.volume = volume
            self.muted = muted
        }
    }

    private struct Slot {
        var state = State.free
        var track: Mixer.Track?
        /// The epoch of the slot's last `leave`, which the audio thread echoes when it let go.
        var leaveEpoch: UInt32 = 0
    }

    private let controls: MixerControls
    private var table: [Slot]
    private var epoch: UInt32 = 0
    /// The mixer's usual ramp: the shortest fade a sound enters or leaves with, so none starts or stops as a step.
    public let shortestFade: Int

    init(controls: MixerControls, tracks: [Mixer.Track], rampFrames: Int) {
        self.controls = controls
        shortestFade = max(1, rampFrames)
        table = (0..<controls.slotCount).map { i in
            i < tracks.count ? Slot(state: .playing, track: tracks[i]) : Slot()
        }
        // Described as an added sound is, though the mixer starts them itself: `MixerControls.readings()` tells
        // where every playing sound's loop lies from the descriptions.
        for (slot, track) in tracks.enumerated() {
            controls.describe(
                slot: slot, samples: UnsafePointer(track.loop.samples), frames: track.loop.frames,
                channels: track.loop.channels, normalization: track.normalization,
                events: track.events.map { UnsafePointer($0.table) },
                segments: track.segments.map { UnsafePointer($0.table) })
        }
    }

    public var slotCount: Int { table.count }
    public func state(of slot: Int) -> State { table.indices.contains(slot) ? table[slot].state : .free }
    /// The sound a slot holds (playing or leaving).
    public func track(in slot: Int) -> Mixer.Track? { table.indices.contains(slot) ? table[slot].track : nil }
    /// The slots that play (or fade in), in slot order.
    public var playing: [Int] { table.indices.filter { table[$0].state == .playing } }
    /// The slots fading out whose sound the audio thread has not let go of yet.
    public var leaving: [Int] { table.indices.filter { table[$0].state == .leaving } }
    /// Sample memory held for the slots' sounds (playing and leaving), in bytes.
    public var memoryBytes: Int {
        table.reduce(0) { $0 + ($1.track?.loop.memoryBytes ?? 0) + ($1.track?.events?.memoryBytes ?? 0) }
    }

    private func fade(_ frames: Int) -> Int { min(max(frames, shortestFade), MixerControls.maximumCommandFade) }

    private func nextEpoch() -> UInt32 {
        epoch &+= 1
        if epoch == 0 { epoch = 1 }  // 0 is what a slot that never had a command holds
        return epoch
    }

    /// `count` free slots, reclaiming what was let go of if needed (but not the slots `sparing`).
    private func freeSlots(_ count: Int, sparing: Set<Int> = []) throws(Problem) -> [Int] {
        var found: [Int] = []
        for i in table.indices where table[i].state == .free {
            found.append(i)
            if found.count == count { return found }
        }
        if count == 0 { return [] }
        reclaim(sparing: sparing)
        found = table.indices.filter { table[$0].state == .free }
        guard found.count >= count else { throw .noFreeSlot(slots: table.count) }
        return Array(found.prefix(count))
    }

    private func enter(_ added: Added, slot: Int, epoch: UInt32, fadeFrames: Int) {
        let loop = added.track.loop
        table[slot] = Slot(state: .playing, track: added.track)
        controls.describe(
            slot: slot, samples: UnsafePointer(loop.samples), frames: loop.frames, channels: loop.channels,
            normalization: added.track.normalization, events: added.track.events.map { UnsafePointer($0.table) },
            segments: added.track.segments.map { UnsafePointer($0.table) })
        controls.setVolume(added.volume, muted: added.muted, track: slot)
        controls.command(slot: slot, .init(epoch: epoch, kind: .enter, fadeFrames: fadeFrames))
    }

    private func leave(slot: Int, epoch: UInt32, fadeFrames: Int) {
        table[slot].state = .leaving
        table[slot].leaveEpoch = epoch
        controls.command(slot: slot, .init(epoch: epoch, kind: .leave, fadeFrames: fadeFrames))
    }

    /// Adds a sound that fades in from silence over `fadeFrames` (at least the usual ramp). Returns its slot.
    @discardableResult
    public func add(_ track: Mixer.Track, volume: Float, muted: Bool = false, fadeFrames: Int) throws(Problem) -> Int {
        let slot = try freeSlots(1)[0]
        let epoch = nextEpoch()
        enter(Added(track: track, volume: volume, muted: muted), slot: slot, epoch: epoch, fadeFrames: fade(fadeFrames))
        controls.publish(epoch: epoch)
        return slot
    }

    /// Fades a slot's sound out over `fadeFrames` (at least the usual ramp); its memory is freed by a `reclaim()`
    /// once the audio thread let go of it. A slot that is not playing is left as it is.
    public func remove(_ slot: Int, fadeFrames: Int) {
        guard state(of: slot) == .playing else { return }
        let epoch = nextEpoch()
        leave(slot: slot, epoch: epoch, fadeFrames: fade(fadeFrames))
        controls.publish(epoch: epoch)
    }

    /// Brings back a sound that is fading out: its fade turns around (a whole swing taking `fadeFrames`) and it
    /// goes on from where it is, at `volume`. Throws when the slot is not leaving (free, or already let go of).
    public func bringBack(_ slot: Int, volume: Float, muted: Bool = false, fadeFrames: Int) throws(Problem) {
        guard state(of: slot) == .leaving else { throw .notPlaying(slot: slot) }
        let epoch = nextEpoch()
        table[slot].state = .playing
        controls.setVolume(volume, muted: muted, track: slot)
        controls.command(slot: slot, .init(epoch: epoch, kind: .enter, fadeFrames: fade(fadeFrames)))
        controls.publish(epoch: epoch)
    }

    /// Crossfades from what plays to a new set of sounds, all on the same frame: the `kept` slots (playing, or
    /// brought back if leaving) move to their new volume over `fadeFrames`, every other playing slot fades out,
    /// and the `added` sounds fade in, over the same `fadeFrames` (the equal-power pair of `VoiceFade`). Returns
    /// the slots of the added sounds, in order. All or nothing: throws, changing nothing, when there are not
    /// enough free slots.
    @discardableResult
    public func replace(keeping kept: [Kept], adding added: [Added], fadeFrames: Int) throws(Problem) -> [Int] {
        for k in kept where state(of: k.slot) == .free { throw .notPlaying(slot: k.slot) }
        let keep = Set(kept.map(\.slot))
        let targets = try freeSlots(added.count, sparing: keep)
        let frames = fade(fadeFrames)
        let epoch = nextEpoch()
        for slot in table.indices where table[slot].state == .playing && !keep.contains(slot) {
            leave(slot: slot, epoch: epoch, fadeFrames: frames)
        }
        for k in kept {
            controls.setVolume(k.volume, muted: k.muted, track: k.slot, rampFrames: frames)
            if table[k.slot].state == .leaving {
                table[k.slot].state = .playing
                controls.command(slot: k.slot, .init(epoch: epoch, kind: .enter, fadeFrames: frames))
            }
        }
        for (slot, sound) in zip(targets, added) { enter(sound, slot: slot, epoch: epoch, fadeFrames: frames) }
        controls.publish(epoch: epoch)
        return targets
    }

    /// Frees the sounds the audio thread has let go of (their slots become free). Returns how many.
    @discardableResult
    public func reclaim() -> Int { reclaim(sparing: []) }

    @discardableResult
    private func reclaim(sparing: Set<Int>) -> Int {
        var freed = 0
        for i in table.indices where table[i].state == .leaving && !sparing.contains(i) {
            if controls.releasedEpoch(slot: i) == table[i].leaveEpoch {
                table[i] = Slot()
                freed += 1
            }
        }
        return freed
    }
}

extension TrackSlots.Problem: UserFacingError {
    public var message: String {
        switch self {
        case .noFreeSlot(let slots):
            return "all \(slots) sound slots are taken by sounds still fading out; try again in a second"
        case .notPlaying(let slot):
            return "sound slot \(slot) plays nothing; ask for the mix again with 'hum status'"
        }
    }
}
