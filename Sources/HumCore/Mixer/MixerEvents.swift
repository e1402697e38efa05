/// The mixer's event scheduling: for every slot whose sound has a bank of one-shots (`SoundEvents`), when the
/// next event starts, which clip, how loud and where, and the up to `MixerEvents.overlap` events sounding.
///
/// Each slot's sound draws from its own SplitMix64, seeded by the session's seed and the sound's name (FNV-1a)
/// when the sound enters the mix, so a render with the same seed is the same to the sample, and adding a sound
/// never changes another's schedule. The time from one start to the next is the minimum gap plus an exponential
/// time (a Poisson process held apart by the gap) whose mean makes the rate `per_hour`; the clip is drawn among
/// all but the last one played; the gain uniformly in dB; the pan uniformly, equal power.
///
/// Events follow their sound: its volume (through a ramp of their own, set from the same target as the bed's)
/// and its fade in or out of the mix; the mix-wide fade, the master and the limiter come after, as for the beds.
/// All memory is allocated at init; `mix` allocates nothing, locks nothing and touches no reference count.
struct MixerEvents {
    struct Schedule {
        /// The slot's bank (nil: its sound has no events).
        var table: UnsafePointer<SoundEvents.Table>?
        var random: SplitMix64
        /// Frames since the sound entered the mix, and the frame the next event starts on.
        var clock: Int64
        var next: Int64
        /// The clip played last (−1: none yet).
        var last: Int
        /// The sound's volume, as for its bed but without the bed's normalization.
        var ramp: GainRamp
    }

    struct Voice {
        var samples: UnsafePointer<Int16>
        var frames: Int
        var channels: Int
        var position: Int
        /// Frames of the current block before it starts (0 once started).
        var delay: Int
        var left: Float
        var right: Float
        var active: Bool
    }

    /// The most events of one sound that sound at once (`SoundEvents.maximumOverlap`); a literal here, so the
    /// audio thread never reaches the class's metadata for it.
    @inline(__always)
    static var overlap: Int { 8 }

    let slotCount: Int
    let seed: UInt64
    let rampFrames: Int
    let schedules: UnsafeMutablePointer<Schedule>
    let voices: UnsafeMutablePointer<Voice>
    /// Per-frame gain of a block (the sound's volume ramp times its fade).
    let gains: UnsafeMutablePointer<Float>
    /// What an idle voice points at (never read).
    let nothing: UnsafeMutablePointer<Int16>

    init(slotCount: Int, seed: UInt64, rampFrames: Int) {
        self.slotCount = slotCount
        self.seed = seed
        self.rampFrames = rampFrames
        schedules = .allocate(capacity: slotCount)
        schedules.initialize(
            repeating: Schedule(
                table: nil, random: SplitMix64(seed: 0), clock: 0, next: 0, last: -1,
                ramp: GainRamp(gain: 0, rampFrames: rampFrames)), count: slotCount)
        nothing = .allocate(capacity: 1)
        nothing.initialize(to: 0)
        let overlap = MixerEvents.overlap
        voices = .allocate(capacity: slotCount * overlap)
        voices.initialize(
            repeating: Voice(
                samples: UnsafePointer(nothing), frames: 1, channels: 1, position: 0, delay: 0, left: 0, right: 0,
                active: false), count: slotCount * overlap)
        gains = .allocate(capacity: Mixer.maximumBlock)
    }

    func deallocate() {
        schedules.deinitialize(count: slotCount).deallocate()
        voices.deinitialize(count: slotCount * MixerEvents.overlap).deallocate()
        gains.deallocate()
        nothing.deallocate()
    }

    /// The generator of a sound entering the mix: the session's seed and the sound's name, stirred together.
    @inline(__always)
    static func generator(seed: UInt64, nameHash: UInt64) -> SplitMix64 {
        var stir = SplitMix64(seed: seed)
        return SplitMix64(seed: stir.next() ^ nameHash)
    }

    /// A sound entered `slot` (nil: one without events), at volume gain `gain`: its schedule starts afresh.
    @inline(__always)
    func enter(slot: Int, table: UnsafePointer<SoundEvents.Table>?, gain: Float) {
        letGo(slot: slot)
        guard let table else { return }
        var random = MixerEvents.generator(seed: seed, nameHash: table.pointee.nameHash)
        let first = MixerEvents.gap(table, &random)
        schedules[slot] = Schedule(
            table: table, random: random, clock: 0, next: first, last: -1,
            ramp: GainRamp(gain: gain, rampFrames: rampFrames))
    }

    /// The slot's sound left the mix: its events stop reading their clips.
    @inline(__always)
    func letGo(slot: Int) {
        schedules[slot].table = nil
        let base = slot * MixerEvents.overlap
        for k in 0..<MixerEvents.overlap {
            voices[base + k].active = false
            voices[base + k].samples = UnsafePointer(nothing)
        }
    }

    @inline(__always)
    func hasEvents(slot: Int) -> Bool { schedules[slot].table != nil }

    /// Follows the slot's volume target (called with the bed's, before its normalization).
    @inline(__always)
    func setTarget(slot: Int, gain: Float, rampFrames: Int) {
        guard schedules[slot].table != nil else { return }
        if rampFrames == 0 {
            schedules[slot].ramp.setTarget(gain)
        } else {
            schedules[slot].ramp.setTarget(gain, frames: rampFrames)
        }
    }

    /// The frames from one event's start to the next: the minimum gap plus an exponential time.
    @inline(__always)
    static func gap(_ table: UnsafePointer<SoundEvents.Table>, _ random: inout SplitMix64) -> Int64 {
        let u = EventMath.unit(&random)
        let extra = -table.pointee.meanExtraFrames * EventMath.log(1 - u)
        return table.pointee.minimumGapFrames + Int64(min(extra, 1e15))
    }

    /// Adds the slot's events for the next `n` frames into `out`, under the sound's `fade` (read, not advanced:
    /// the bed advances it afterwards).
    @inline(__always)
    func mix(slot: Int, fade: VoiceFade, into out: UnsafeMutablePointer<Float>, frames n: Int) {
        guard let table = schedules[slot].table else { return }
        let base = voices + slot * MixerEvents.overlap
        // The events that start within this block.
        let end = schedules[slot].clock + Int64(n)
        while schedules[slot].next < end {
            start(slot: slot, table: table, voices: base, at: Int(schedules[slot].next - schedules[slot].clock))
            schedules[slot].next += MixerEvents.gap(table, &schedules[slot].random)
        }
        schedules[slot].clock = end

        var any = false
        for k in 0..<MixerEvents.overlap where base[k].active { any = true }
        let ramp = schedules[slot].ramp
        schedules[slot].ramp.advance(n)
        guard any else { return }
        let silent = ramp.current == 0 && !ramp.isRamping
        let scale: Float = 1 / 32768
        // Steady (the usual case): one gain for the whole block, folded into each event's pan gains.
        let steady = !ramp.isRamping && !fade.isMoving
        let constant = ramp.current * scale
        if !silent, !steady {
            let ramping = ramp.rampingFrames(within: n)
            var g = ramp.current * scale
            let step = ramp.increment * scale
            for i in 0..<ramping {
                g += step
                gains[i] = g
            }
            (gains + ramping).update(repeating: ramp.target * scale, count: n - ramping)
            if fade.isMoving {
                var copy = fade
                copy.apply(to: gains, frames: n)
            }
        }
        for k in 0..<MixerEvents.overlap where base[k].active {
            let v = base[k]
            let count = min(n - v.delay, v.frames - v.position)
            let src = v.samples + v.position * v.channels
            let dst = out + 2 * v.delay
            if silent {
                // Nothing to add: keep time.
            } else if steady {
                let gl = constant * v.left
                let gr = constant * v.right
                if v.channels == 2 {
                    for i in 0..<count {
                        dst[2 * i] += Float(src[2 * i]) * gl
                        dst[2 * i + 1] += Float(src[2 * i + 1]) * gr
                    }
                } else {
                    for i in 0..<count {
                        let s = Float(src[i])
                        dst[2 * i] += s * gl
                        dst[2 * i + 1] += s * gr
                    }
                }
            } else {
                let g = gains + v.delay
                if v.channels == 2 {
                    for i in 0..<count {
                        dst[2 * i] += Float(src[2 * i]) * g[i] * v.left
                        dst[2 * i + 1] += Float(src[2 * i + 1]) * g[i] * v.right
                    }
                } else {
                    for i in 0..<count {
                        let s = Float(src[i]) * g[i]
                        dst[2 * i] += s * v.left
                        dst[2 * i + 1] += s * v.right
                    }
                }
            }
            base[k].position += count
            base[k].delay = 0
            if base[k].position >= v.frames {
                base[k].active = false
                base[k].samples = UnsafePointer(nothing)
            }
        }
    }

    /// Draws an event (clip, gain, pan) starting `offset` frames into the block, in a free voice if there is one.
    @inline(__always)
    private func start(
        slot: Int, table: UnsafePointer<SoundEvents.Table>, voices base: UnsafeMutablePointer<Voice>, at offset: Int
    ) {
        let t = table.pointee
        let count = t.clipCount
        let last = schedules[slot].last
        var index: Int
        if count >= 2, last >= 0 {
            // Among the others: never the same clip twice in a row.
            index = Int(schedules[slot].random.next() % UInt64(count - 1))
            if index >= last { index += 1 }
        } else {
            index = Int(schedules[slot].random.next() % UInt64(count))
        }
        schedules[slot].last = index
        let gainDB = t.gainDBMin + t.gainDBSpan * EventMath.unit(&schedules[slot].random)
        let pan = t.panMin + t.panSpan * EventMath.unit(&schedules[slot].random)
        let clip = t.clips[index]
        // Equal power, unity at the centre: the angle runs over a quarter turn from hard left to hard right.
        let angle = (pan + 1) * Double.pi / 4
        let level = FadeEnvelope.pow10(gainDB / 20) * 1.4142135623730951 * Double(clip.gain)  // √2
        let left = Float(level * VoiceFade.cos(angle))
        let right = Float(level * VoiceFade.sin(angle))
        for k in 0..<MixerEvents.overlap where !base[k].active {
            base[k] = Voice(
                samples: clip.samples, frames: clip.frames, channels: clip.channels, position: 0, delay: offset,
                left: left, right: right, active: true)
            return
        }
    }
}
