import Synchronization

/// Where a slot's voice reads its loop, as the audio thread published it after its last block: for whoever keeps
/// the pages it will read soon resident (a loop mapped from a file, `LoopPager` in HumAudio), so the audio thread
/// itself never waits for a page.
///
/// The audio thread publishes two atomics per slot after each `render` (no allocation, no lock): the frame it reads
/// next and, in a crossfade between segments, the frame of the stretch coming in; and, for a bed played in
/// segments, the frame the next join will read from (drawn one join ahead, see `drawNextJump`). A voice that
/// plays nothing publishes `notReading`.
public struct LoopReading: Equatable, Sendable {
    /// The address of the loop's first sample (as described to the slot), its frames and channels.
    public var address: UInt
    public var frames: Int
    public var channels: Int
    /// Frames the voice reads forwards from, wrapping at the loop's end: where it is, and where the coming stretch
    /// of a crossfade and the next join read from (a bed in segments).
    public var starts: [Int]
    /// A bed in segments: its shortest segment in frames (a voice may go through a join every this many frames,
    /// so a window longer than it may need a place no one drew yet). Nil: the loop plays round and round.
    public var shortestSegment: Int?

    public init(address: UInt, frames: Int, channels: Int, starts: [Int], shortestSegment: Int? = nil) {
        self.address = address
        self.frames = frames
        self.channels = channels
        self.starts = starts
        self.shortestSegment = shortestSegment
    }

    /// The stretches of the loop, in frames, read over the next `ahead` frames from each start (wrapped: a stretch
    /// that runs past the loop's end goes on from its start), merged where they overlap and in order.
    ///
    /// `horizon`: the frames that may be read before the windows are asked for again. Within it a bed in segments
    /// goes through at most the one join drawn ahead when its segments are longer than it; when they are not, a
    /// place no one drew yet may be read, so the whole loop is wanted.
    public func windows(ahead: Int, horizon: Int) -> [Range<Int>] {
        if let shortest = shortestSegment, shortest <= horizon { return [0..<frames] }
        var ranges: [Range<Int>] = []
        for start in starts where start >= 0 && start < frames {
            let end = start + min(ahead, frames)
            if end <= frames {
                ranges.append(start..<end)
            } else {
                ranges.append(start..<frames)
                ranges.append(0..<(end - frames))
            }
        }
        ranges.sort { $0.lowerBound < $1.lowerBound }
        var merged: [Range<Int>] = []
        for r in ranges where !r.isEmpty {
            if let last = merged.last, r.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        return merged
    }
}

extension MixerControls {
    /// What a slot whose voice plays nothing publishes.
    static let notReading = UInt64.max
    private static let none = UInt64(UInt32.max)

    /// Where each slot's voice reads, for the slots that play (any thread; a slot described anew may briefly show
    /// the position its last voice published: read it as a hint, never as a promise).
    public func readings() -> [LoopReading] {
        var out: [LoopReading] = []
        for slot in 0..<slotCount {
            let now = reading[slot].load(ordering: .acquiring)
            guard now != MixerControls.notReading else { continue }
            let next = nextReading[slot].load(ordering: .acquiring)
            let sound = description(slot: slot)
            guard let samples = sound.samples, sound.frames > 0 else { continue }
            var starts = [Int(now & MixerControls.none)]
            if now >> 32 != MixerControls.none { starts.append(Int(now >> 32)) }
            var shortest: Int?
            if next != MixerControls.notReading {
                starts.append(Int(next & MixerControls.none))
                shortest = Int(next >> 32)
            }
            out.append(
                LoopReading(
                    address: UInt(bitPattern: samples), frames: sound.frames, channels: sound.channels,
                    starts: starts.filter { $0 < sound.frames }, shortestSegment: shortest))
        }
        return out
    }

    /// The audio thread: a slot's voice reads from `position` (and `incoming`, ≥ 0 in a crossfade); a bed in
    /// segments next joins at `nextIncoming`, its segments at least `shortestSegment` frames long (-1: none).
    @inline(__always)
    func publishReading(slot: Int, position: Int, incoming: Int, nextIncoming: Int, shortestSegment: Int) {
        let second = incoming >= 0 ? UInt64(truncatingIfNeeded: incoming) & MixerControls.none : MixerControls.none
        reading[slot].store(
            second << 32 | UInt64(truncatingIfNeeded: position) & MixerControls.none, ordering: .releasing)
        let next =
            shortestSegment >= 0
            ? UInt64(truncatingIfNeeded: min(shortestSegment, Int(UInt32.max))) << 32
                | UInt64(truncatingIfNeeded: nextIncoming) & MixerControls.none
            : MixerControls.notReading
        nextReading[slot].store(next, ordering: .releasing)
    }

    /// The audio thread: the slot's voice reads nothing any more.
    @inline(__always)
    func publishNotReading(slot: Int) {
        reading[slot].store(MixerControls.notReading, ordering: .releasing)
        nextReading[slot].store(MixerControls.notReading, ordering: .releasing)
    }
}
