import Synchronization

/// Where a slot's voice reads its loop, as the audio thread published it after its last block: for whoever keeps
/// the pages it will read soon resident (a loop mapped from a file, `LoopPager` in HumAudio), so the audio thread
/// itself never waits for a page.
///
/// The audio thread publishes three atomics per slot after each `render` (no allocation, no lock): the frame it reads
/// next and, in a crossfade between segments, the frame of the stretch coming in; for a bed played in segments, the
/// frame the next join will read from (drawn one join ahead, see `drawNextJump`) with the shortest segment; and how
/// long the voice reads on from where it is (to the end of the next crossfade) and how long until that join. A voice
/// that plays nothing publishes `notReading`.
public struct LoopReading: Equatable, Sendable {
    /// A stretch the voice reads forwards (wrapping at the loop's end): from frame `from`, starting `after` frames
    /// from now, for at most `atMost` frames.
    public struct Read: Equatable, Sendable {
        public var from: Int
        public var after: Int
        public var atMost: Int

        public init(from: Int, after: Int = 0, atMost: Int = .max) {
            self.from = from
            self.after = after
            self.atMost = atMost
        }
    }

    /// The address of the loop's first sample (as described to the slot), its frames and channels.
    public var address: UInt
    public var frames: Int
    public var channels: Int
    /// Where it is, the stretch coming in during a crossfade, and where the next join reads (a bed in segments).
    public var reads: [Read]
    /// A bed in segments: its shortest segment in frames (a voice may go through a join every this many frames,
    /// so a window longer than it may need a place no one drew yet). Nil: the loop plays round and round.
    public var shortestSegment: Int?

    public init(address: UInt, frames: Int, channels: Int, reads: [Read], shortestSegment: Int? = nil) {
        self.address = address
        self.frames = frames
        self.channels = channels
        self.reads = reads
        self.shortestSegment = shortestSegment
    }

    /// The stretches of the loop, in frames, read over the next `ahead` frames (wrapped: a stretch that runs past
    /// the loop's end goes on from its start), merged where they overlap and in order.
    ///
    /// `horizon`: the frames that may be read before the windows are asked for again. Within it a bed in segments
    /// goes through at most the one join drawn ahead when its segments are longer than it; when they are not, a
    /// place no one drew yet may be read, so the whole loop is wanted.
    public func windows(ahead: Int, horizon: Int) -> [Range<Int>] {
        if let shortest = shortestSegment, shortest <= horizon { return [0..<frames] }
        var ranges: [Range<Int>] = []
        for read in reads where read.from >= 0 && read.from < frames {
            let length = min(min(read.atMost, ahead - read.after), frames)
            guard length > 0 else { continue }
            let end = read.from + length
            if end <= frames {
                ranges.append(read.from..<end)
            } else {
                ranges.append(read.from..<frames)
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

/// What a slot whose voice plays nothing publishes, and the mark of no frame in a half of it. (File-level
/// constants and functions, not the class's static members: the audio thread must not touch a class's metadata.)
private let notReadingBits = UInt64.max
private let noFrame = UInt64(UInt32.max)

/// A frame count in 32 bits, below the `noFrame` mark (a loop's frames always fit: 2³² frames are a day at 48 kHz).
@inline(__always)
private func frameBits(_ value: Int) -> UInt64 {
    UInt64(truncatingIfNeeded: min(max(value, 0), Int(UInt32.max) - 1))
}

extension MixerControls {
    /// What a slot whose voice plays nothing publishes.
    static var notReading: UInt64 { notReadingBits }

    /// Where each slot's voice reads, for the slots that play (any thread; a slot described anew may briefly show
    /// the position its last voice published: read it as a hint, never as a promise).
    public func readings() -> [LoopReading] {
        var out: [LoopReading] = []
        for slot in 0..<slotCount {
            let now = reading[slot].load(ordering: .acquiring)
            guard now != MixerControls.notReading else { continue }
            let next = nextReading[slot].load(ordering: .acquiring)
            let runs = runReading[slot].load(ordering: .acquiring)
            let sound = description(slot: slot)
            guard let samples = sound.samples, sound.frames > 0 else { continue }
            let low = { (bits: UInt64) in Int(bits & noFrame) }
            let high = { (bits: UInt64) in Int(bits >> 32) }
            var reads: [LoopReading.Read] = []
            var shortest: Int?
            if next == MixerControls.notReading || runs == MixerControls.notReading {
                reads.append(.init(from: low(now)))
            } else {
                // A bed in segments: where it is until the end of the next crossfade (of the one under way, in a
                // crossfade), the stretch coming in (read on past the next join, through its crossfade), then the
                // next join.
                let untilNext = high(runs)
                reads.append(.init(from: low(now), atMost: low(runs)))
                if high(now) != Int(noFrame) { reads.append(.init(from: high(now))) }
                reads.append(.init(from: low(next), after: untilNext))
                shortest = high(next)
            }
            out.append(
                LoopReading(
                    address: UInt(bitPattern: samples), frames: sound.frames, channels: sound.channels,
                    reads: reads.filter { $0.from < sound.frames }, shortestSegment: shortest))
        }
        return out
    }

    /// The audio thread: a slot's voice reads from `position` (and `incoming`, ≥ 0 in a crossfade). A bed in
    /// segments (`shortestSegment` ≥ 0, else -1) next joins at `nextIncoming` in `untilNext` frames, and reads on
    /// from `position` for `positionRun` frames (to the end of the next crossfade, or of the one under way).
    @inline(__always)
    func publishReading(
        slot: Int, position: Int, incoming: Int, nextIncoming: Int, shortestSegment: Int, positionRun: Int,
        untilNext: Int
    ) {
        let second = incoming >= 0 ? frameBits(incoming) : noFrame
        reading[slot].store(second << 32 | frameBits(position), ordering: .releasing)
        if shortestSegment >= 0 {
            nextReading[slot].store(
                frameBits(shortestSegment) << 32 | frameBits(nextIncoming), ordering: .releasing
            )
            runReading[slot].store(
                frameBits(untilNext) << 32 | frameBits(positionRun), ordering: .releasing)
        } else {
            nextReading[slot].store(notReadingBits, ordering: .releasing)
            runReading[slot].store(notReadingBits, ordering: .releasing)
        }
    }

    /// The audio thread: the slot's voice reads nothing any more.
    @inline(__always)
    func publishNotReading(slot: Int) {
        reading[slot].store(notReadingBits, ordering: .releasing)
        nextReading[slot].store(notReadingBits, ordering: .releasing)
        runReading[slot].store(notReadingBits, ordering: .releasing)
    }
}
