/// The mixing kernel: loops, per-track and master gain ramps, the mix-wide fade and the limiter, on plain buffers.
///
/// Pull model: the caller (the ALSA engine thread, or `render` writing a file) asks for N frames of interleaved
/// stereo float and gets them. Playback and offline rendering run this same code, so a render is the playback,
/// sample for sample. `render` takes no lock, allocates nothing and does no I/O; it reads its controls through
/// atomics once per block and reaches its loops through raw pointers.
///
/// Tracks live in a fixed number of slots (`controls.slotCount`). The tracks given at init fill the first slots
/// and play from the first frame; while the mix plays, the owner adds, removes and replaces sounds through
/// `slots` (`TrackSlots`): a new sound fades in from silence, a removed one fades out and is then let go of, and
/// the owner frees its memory only once the audio thread has said it let go (see `TrackSlots`).
public final class Mixer: @unchecked Sendable {
    // @unchecked: the mutable state is touched only by the one thread that calls `render`; other threads go
    // through `controls`, and the owner through `slots` (which `render` never touches).

    /// One track to mix: a loop and a fixed gain that normalizes its loudness (1 for the built-in sounds), and
    /// the one-shot events scattered over it, if any (a sound of events alone has a silent loop, normalization 0).
    public struct Track: Sendable {
        public var loop: LoopBuffer
        public var normalization: Float
        public var events: SoundEvents?
        /// How the loop is played in segments taken at random, so it never comes round the same way (nil: round
        /// and round).
        public var segments: BedSegments?
        public init(
            loop: LoopBuffer, normalization: Float = 1, events: SoundEvents? = nil, segments: BedSegments? = nil
        ) {
            self.loop = loop
            self.normalization = normalization
            self.events = events
            self.segments = segments
        }
    }

    struct Voice {
        var samples: UnsafePointer<Int16>
        var frames: Int
        var channels: Int
        var position: Int
        var normalization: Float
        var ramp: GainRamp
        /// Whether the slot has a sound; an inactive voice is skipped and holds no pointer worth reading.
        var active = true
        /// Entering or leaving the mix (at rest at full for a sound that is simply playing).
        var fade = VoiceFade.full
        /// The epoch of the last slot command applied, and of the `leave` under way.
        var command: UInt32 = 0
        var leaving: UInt32 = 0
        /// Played in segments (`BedSegments`; nil: round and round): the draws, the frames of this segment left
        /// before its crossfade, and in a crossfade (`crossfaded` ≥ 0 frames into it) where the next one reads.
        var segments: UnsafePointer<BedSegments.Table>? = nil
        var random = SplitMix64(seed: 0)
        var untilJoin = 0
        var crossfaded = -1
        var incoming = 0
        var jumpLeast = 0
        var jumpChoices = 1
        /// The loop's grid steps (its frames, without a grid), and the step the next crossfade starts on.
        var gridSteps = 1
        var joinStep = 0
        /// Drawn one join ahead: the jump of the next join, the frame that join will read from, and (from a join
        /// until its crossfade ends) the length in steps of the segment being crossfaded into.
        var nextJump = 0
        /// How far off its grid place the next join lands (jitter), drawn with `nextJump`.
        var nextOffset = 0
        var nextIncoming = 0
        var comingSteps = 0
    }

    /// The largest block processed at once; bigger requests are split.
    public static let maximumBlock = 2048
    /// Every volume change (track, master, mute) ramps over this long.
    public static let rampSeconds = 0.03

    public let sampleRate: Int
    public let controls: MixerControls
    /// The owner's side of the track slots: adds, removes and replaces sounds, and keeps their samples alive until
    /// the audio thread has let go of them. For the owner's thread only; `render` never touches it.
    public let slots: TrackSlots
    /// The same object, reached from `render` without retaining and releasing it (`controls` keeps it alive).
    private let live: Unmanaged<MixerControls>
    private let voices: UnsafeMutablePointer<Voice>
    private let slotCount: Int
    /// One past the last active slot: the voices `render` walks.
    private var voiceCount: Int
    /// The last slot epoch taken up.
    private var seenEpoch: UInt32 = 0
    /// The gain of each frame of a block for a voice that is entering or leaving.
    private let voiceGains: UnsafeMutablePointer<Float>
    /// What an empty slot's voice points at (never read: an inactive voice is skipped).
    private let nothing: UnsafeMutablePointer<Int16>
    private let rampFrames: Int
    private let fadeGains: UnsafeMutablePointer<Float>
    private var master: GainRamp
    private var fade: FadeEnvelope
    private var limiter: TruePeakLimiter
    /// Frames mixed so far (the limiter's look-ahead ahead of what went out).
    private var frame: Int64 = 0
    /// Frames handed out so far.
    private var output: Int64 = 0
    /// Whether the limiter's delay line has been filled with the mix's first frames.
    private var primed = false
    /// Mixed frames in the limiter's delay line not yet handed out.
    private var pending = 0
    /// The mix itself has ended (its last frames may still be in the limiter's delay line).
    private var mixFinished = false
    private var lastFadeSequence: UInt16 = 0
    private var finishWhenSilent = false
    private var endFadeStarted = false
    public private(set) var finished = false
    /// A one-shot sound (the timer's chime), mono or stereo at the output rate, and where it is (nil: not playing).
    private let chime: LoopBuffer?  // keeps the chime's samples alive; the audio thread uses `chimeVoice`
    private let chimeVoice: Voice?
    private var chimePosition: Int?
    private var lastChime: UInt32 = 0
    /// The one-shot events of the sounds that have some (see `MixerEvents`).
    private let events: MixerEvents

    /// - Parameters:
    ///   - fadeInFrames: the mix starts silent and fades in over this many frames (0: starts at full volume).
    ///   - chime: a one-shot sound played on `controls.ringChime()`, outside the fade.
    ///   - startSilent: the mix starts silent and stays so until a fade request (the focus timer drives it).
    ///   - eventSeed: the session's seed, from which every sound's events are drawn (same seed, same mix).
    public init(
        sampleRate: Int, tracks: [Track], controls: MixerControls, fadeInFrames: Int = 0, startSilent: Bool = false,
        chime: LoopBuffer? = nil, eventSeed: UInt64 = 0
    ) {
        self.chime = chime
        chimeVoice = chime.map {
            Voice(
                samples: UnsafePointer($0.samples), frames: $0.frames, channels: $0.channels, position: 0,
                normalization: 1, ramp: GainRamp(gain: 1, rampFrames: 1))
        }
        precondition(tracks.count <= controls.slotCount, "a slot for every track")
        self.sampleRate = sampleRate
        self.controls = controls
        live = Unmanaged.passUnretained(controls)
        slotCount = controls.slotCount
        voiceCount = tracks.count
        voices = .allocate(capacity: slotCount)
        nothing = .allocate(capacity: 1)
        nothing.initialize(to: 0)
        let rampFrames = Int(Double(sampleRate) * Mixer.rampSeconds)
        self.rampFrames = rampFrames
        events = MixerEvents(slotCount: slotCount, seed: eventSeed, rampFrames: rampFrames)
        for (i, track) in tracks.enumerated() {
            // Start at the target gain: the mix-wide fade-in (or the first block's ramp) takes care of onset.
            let gain = controls.targetGain(track: i).gain * track.normalization
            (voices + i).initialize(
                to: Voice(
                    samples: UnsafePointer(track.loop.samples), frames: track.loop.frames,
                    channels: track.loop.channels, position: 0,
                    normalization: track.normalization,
                    ramp: GainRamp(gain: gain, rampFrames: rampFrames)))
            voices[i].startSegments(track.segments.map { UnsafePointer($0.table) }, seed: eventSeed)
            events.enter(
                slot: i, table: track.events.map { UnsafePointer($0.table) },
                gain: controls.targetGain(track: i).gain)
        }
        for i in tracks.count..<slotCount {
            (voices + i).initialize(
                to: Voice(
                    samples: UnsafePointer(nothing), frames: 1, channels: 1, position: 0, normalization: 1,
                    ramp: GainRamp(gain: 0, rampFrames: rampFrames), active: false, fade: .full))
        }
        slots = TrackSlots(controls: controls, tracks: tracks, rampFrames: rampFrames)
        voiceGains = .allocate(capacity: Mixer.maximumBlock)
        fadeGains = .allocate(capacity: Mixer.maximumBlock)
        master = GainRamp(gain: controls.targetMasterGain().gain, rampFrames: rampFrames)
        fade = FadeEnvelope(silent: fadeInFrames > 0 || startSilent)
        if fadeInFrames > 0 { fade.start(toSilence: false, frames: fadeInFrames) }
        limiter = TruePeakLimiter(sampleRate: sampleRate, maximumBlock: Mixer.maximumBlock)
        precondition(2 * limiter.delay <= Mixer.maximumBlock, "the limiter's first output fits the scratch block")
        lastFadeSequence = controls.latestFade().sequence
        lastChime = controls.chimeCount()
    }

    deinit {
        voices.deinitialize(count: slotCount)
        voices.deallocate()
        nothing.deallocate()
        voiceGains.deallocate()
        fadeGains.deallocate()
        limiter.deallocate()
        events.deallocate()
    }

    /// Frames rendered (handed out) so far.
    public var framesRendered: Int64 { output }

    /// How long a sample takes from being mixed to being handed out: the limiter's look-ahead (2.6 ms at 48 kHz).
    /// The first `render` mixes this much ahead, so frame k handed out is still frame k of the mix: a render's
    /// timing is unchanged, but a control change is heard this much later.
    public var latencyFrames: Int { limiter.delay }

    /// `controls.releases`, read without retaining the controls (for the audio thread, after `render`).
    @inline(__always)
    public var releases: UInt32 { live._withUnsafeGuaranteedRef { $0.releases } }

    /// Fills `out` with up to `frames` frames of interleaved stereo. Returns how many were written: fewer only
    /// when the mix finished (a stop faded out, or a scheduled end was reached), 0 from then on.
    ///
    /// Nothing here, or in what it calls, may allocate, lock or touch a reference count: bench/kernel.sh builds
    /// it with `@_noAllocation`, and the compiler refuses anything that could.
    public func render(into out: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        if !primed {
            // Fill the delay line with the mix's first frames; what comes out meanwhile (silence) is dropped.
            primed = true
            let delay = limiter.delay
            let got = mix(into: limiter.input, frames: delay)
            (limiter.input + 2 * got).update(repeating: 0, count: 2 * (delay - got))
            limiter.process(into: fadeGains, frames: delay)  // fadeGains is scratch here: 2·delay ≤ maximumBlock
            pending = got
        }
        var done = 0
        while done < frames, !finished {
            let n = min(frames - done, Mixer.maximumBlock)
            let got = mixFinished ? 0 : mix(into: limiter.input, frames: n)
            // Once the mix has ended, the line plays out with silence coming in behind it.
            if got < n { (limiter.input + 2 * got).update(repeating: 0, count: 2 * (n - got)) }
            limiter.process(into: out + 2 * done, frames: n)
            let real = min(n, pending + got)
            pending = pending + got - real
            done += real
            if real < n { finished = true }
        }
        output += Int64(done)
        let (rendered, gain, isFinished) = (output, fade.gain, finished)
        live._withUnsafeGuaranteedRef { $0.report(frames: rendered, fade: gain, finished: isFinished) }
        publishReadings()
        return done
    }

    /// The mix itself, before the limiter, for an offline render that limits on another thread (`LimiterStage`):
    /// mixed in the blocks `render` mixes it in (the limiter's delay first, then `maximumBlock` frames at a time),
    /// so that limited there it is what `render` gives, to the bit. Whole blocks only: returns how many frames were
    /// written (at most `frames`, which must hold `maximumBlock`), fewer where the mix ended, 0 from then on.
    /// Not for a mixer that has rendered through `render`.
    public func mixUnlimited(into out: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        precondition(frames >= Mixer.maximumBlock, "room for a whole block")
        var done = 0
        while !mixFinished {
            let n = primed ? Mixer.maximumBlock : limiter.delay
            guard done + n <= frames else { break }
            primed = true
            let got = mix(into: out + 2 * done, frames: n)
            done += got
            if got < n { break }  // the mix ended
        }
        output += Int64(done)
        if mixFinished { finished = true }
        let (rendered, gain, isFinished) = (output, fade.gain, finished)
        live._withUnsafeGuaranteedRef { $0.report(frames: rendered, fade: gain, finished: isFinished) }
        return done
    }

    /// Says where each playing voice reads next (`LoopReading`), for whoever keeps those pages resident.
    @inline(__always)
    private func publishReadings() {
        for t in 0..<voiceCount where voices[t].active {
            let v = voices[t]
            var next = -1
            var shortest = -1
            var run = 0
            var untilNext = 0
            if let table = v.segments {
                let crossfade = table.pointee.crossfadeFrames
                next = v.nextIncoming
                shortest = max(1, v.gridFrame(table.pointee.shortestSteps) - 1)
                if v.crossfaded >= 0 {
                    // In a crossfade: the leaving side ends with it; the next join comes after the segment coming in.
                    run = crossfade - v.crossfaded
                    untilNext = v.gridFrame(v.joinStep + v.comingSteps) - v.gridFrame(v.joinStep) - v.crossfaded
                } else {
                    run = v.untilJoin + crossfade
                    untilNext = v.untilJoin
                }
            }
            live._withUnsafeGuaranteedRef {
                $0.publishReading(
                    slot: t, position: v.position, incoming: v.crossfaded >= 0 ? v.incoming : -1,
                    nextIncoming: next, shortestSegment: shortest, positionRun: run, untilNext: untilNext)
            }
        }
    }

    /// Mixes up to `frames` frames (at most `maximumBlock`) into `out`, before the limiter; fewer when the mix
    /// ends (a stop faded out, or a scheduled end was reached).
    private func mix(into out: UnsafeMutablePointer<Float>, frames: Int) -> Int {
        var done = 0
        while done < frames, !mixFinished {
            var n = min(frames - done, Mixer.maximumBlock)
            applyControls()
            let end = live._withUnsafeGuaranteedRef { $0.scheduledEnd() }
            if end.frame >= 0 {
                let fadeStart = end.frame - end.fade
                if !endFadeStarted {
                    if frame >= fadeStart {
                        // The mix ends at end.frame (checked below), whatever the fade's level: a fade-in still
                        // under way turns around from where it is.
                        endFadeStarted = true
                        finishWhenSilent = false
                        fade.start(toSilence: true, frames: Int(max(0, end.frame - frame)))
                    } else {
                        n = min(n, Int(fadeStart - frame))
                    }
                }
                n = min(n, Int(max(0, end.frame - frame)))
                if n == 0 {
                    mixFinished = true
                    break
                }
            }
            renderBlock(out + 2 * done, frames: n)
            frame += Int64(n)
            done += n
            if finishWhenSilent, fade.isSilent, chimePosition == nil { mixFinished = true }
        }
        return done
    }

    @inline(__always)
    private func applyControls() {
        let request = live._withUnsafeGuaranteedRef { $0.latestFade() }
        if request.sequence != lastFadeSequence {
            lastFadeSequence = request.sequence
            fade.start(toPosition: request.position, frames: request.frames)
            if !endFadeStarted { finishWhenSilent = request.finishWhenSilent }
        }
        let chimes = live._withUnsafeGuaranteedRef { $0.chimeCount() }
        if chimes != lastChime {
            lastChime = chimes
            if chimeVoice != nil { chimePosition = 0 }
        }
        let epoch = live._withUnsafeGuaranteedRef { $0.latestEpoch() }
        if epoch != seenEpoch {
            seenEpoch = epoch
            applySlotCommands(upTo: epoch)
        }
        let masterTarget = live._withUnsafeGuaranteedRef { $0.targetMasterGain() }
        if masterTarget.rampFrames == 0 {
            master.setTarget(masterTarget.gain)
        } else {
            master.setTarget(masterTarget.gain, frames: masterTarget.rampFrames)
        }
        for t in 0..<voiceCount where voices[t].active {
            let target = live._withUnsafeGuaranteedRef { $0.targetGain(track: t) }
            if target.rampFrames == 0 {
                voices[t].ramp.setTarget(target.gain * voices[t].normalization)
            } else {
                voices[t].ramp.setTarget(target.gain * voices[t].normalization, frames: target.rampFrames)
            }
            events.setTarget(slot: t, gain: target.gain, rampFrames: target.rampFrames)
        }
    }

    /// Takes up the slot commands of every epoch up to `epoch` (a later one may already be half written: it waits
    /// for its own epoch). Runs only when the owner published something, so a block normally reads one atomic.
    private func applySlotCommands(upTo epoch: UInt32) {
        for s in 0..<slotCount {
            let command = live._withUnsafeGuaranteedRef { $0.pendingCommand(slot: s) }
            guard command.epoch != voices[s].command, Int32(bitPattern: command.epoch &- epoch) <= 0 else { continue }
            voices[s].command = command.epoch
            switch command.kind {
            case .enter:
                if voices[s].active {
                    voices[s].fade.enter(frames: command.fadeFrames)  // it was leaving: it turns around
                    continue
                }
                let sound = live._withUnsafeGuaranteedRef { $0.description(slot: s) }
                guard let samples = sound.samples, sound.frames > 0, sound.channels == 1 || sound.channels == 2
                else { continue }
                let volume = live._withUnsafeGuaranteedRef { $0.targetGain(track: s) }.gain
                let gain = volume * sound.normalization
                events.enter(slot: s, table: live._withUnsafeGuaranteedRef { $0.eventTable(slot: s) }, gain: volume)
                voices[s] = Voice(
                    samples: samples, frames: sound.frames, channels: sound.channels, position: 0,
                    normalization: sound.normalization, ramp: GainRamp(gain: gain, rampFrames: rampFrames),
                    active: true, fade: .entering(frames: command.fadeFrames), command: command.epoch)
                voices[s].startSegments(
                    live._withUnsafeGuaranteedRef { $0.segmentTable(slot: s) }, seed: events.seed)
                voiceCount = max(voiceCount, s + 1)
            case .leave:
                if voices[s].active {
                    voices[s].leaving = command.epoch
                    voices[s].fade.leave(frames: command.fadeFrames)
                    if voices[s].fade.isGone { letGo(slot: s) }
                } else {
                    live._withUnsafeGuaranteedRef { $0.release(slot: s, epoch: command.epoch) }
                }
            case .none:
                break
            }
        }
    }

    /// A voice has faded out: it is no longer read, and the owner may free its sound.
    private func letGo(slot s: Int) {
        voices[s].active = false
        voices[s].samples = UnsafePointer(nothing)
        voices[s].frames = 1
        voices[s].position = 0
        voices[s].segments = nil
        events.letGo(slot: s)
        live._withUnsafeGuaranteedRef { $0.publishNotReading(slot: s) }
        let epoch = voices[s].leaving  // read outside the closure, which then captures nothing of self
        live._withUnsafeGuaranteedRef { $0.release(slot: s, epoch: epoch) }
        while voiceCount > 0, !voices[voiceCount - 1].active { voiceCount -= 1 }
    }

    @inline(__always)
    private func renderBlock(_ out: UnsafeMutablePointer<Float>, frames n: Int) {
        out.update(repeating: 0, count: 2 * n)
        // The events first: they read their sound's fade before its bed advances it.
        // (No `&&`: its right side is an autoclosure, which would retain self.)
        for t in 0..<voiceCount where voices[t].active {
            if events.hasEvents(slot: t) { events.mix(slot: t, fade: voices[t].fade, into: out, frames: n) }
        }
        // Voices in order. Runs of steady voices with the same channel count go through the output together, four
        // or two at a time: each output sample still gets their contributions added one after the other, in the
        // voices' order, so the sum is the same to the bit as voice by voice, with fewer passes over the block.
        var t = 0
        while t < voiceCount {
            guard voices[t].active else {
                t += 1
                continue
            }
            if voices[t].segments != nil {
                Voice.mixSegmented(&voices[t], into: out, frames: n, gains: voiceGains)
                if voices[t].fade.isGone { letGo(slot: t) }
                t += 1
                continue
            }
            if voices[t].fade.isMoving {
                Voice.mixFading(&voices[t], into: out, frames: n, gains: voiceGains)
                if voices[t].fade.isGone { letGo(slot: t) }
                t += 1
                continue
            }
            guard voices[t].isSteady(frames: n) else {
                voices[t].mix(into: out, frames: n)
                t += 1
                continue
            }
            let channels = voices[t].channels
            var run = (t, t, t, t)
            var count = 1
            var next = t + 1
            // Silent voices add nothing: they keep time and do not break a run.
            while count < 4, next < voiceCount {
                let v = voices[next]
                if !v.active {
                    // An empty slot: nothing to add, nothing to keep time for.
                } else if v.segments == nil, v.ramp.current == 0, !v.ramp.isRamping, !v.fade.isMoving {
                    voices[next].mix(into: out, frames: n)
                } else if v.channels == channels, v.isSteady(frames: n) {
                    switch count {
                    case 1: run.1 = next
                    case 2: run.2 = next
                    default: run.3 = next
                    }
                    count += 1
                } else {
                    break
                }
                next += 1
            }
            switch count {
            case 4:
                Voice.mixSteady(&voices[run.0], &voices[run.1], &voices[run.2], &voices[run.3], into: out, frames: n)
            case 3:
                Voice.mixSteady(&voices[run.0], &voices[run.1], into: out, frames: n)
                voices[run.2].mix(into: out, frames: n)
            case 2:
                Voice.mixSteady(&voices[run.0], &voices[run.1], into: out, frames: n)
            default:
                voices[run.0].mix(into: out, frames: n)
            }
            t = next
        }
        // The fade, then the chime (outside the fade), then the master gain and the limiter.
        let fadeVaries = fade.fill(fadeGains, frames: n)
        if var voice = chimeVoice, let position = chimePosition {
            let constant = fadeGains[0]
            for i in 0..<n {
                let g = fadeVaries ? fadeGains[i] : constant
                out[2 * i] *= g
                out[2 * i + 1] *= g
            }
            voice.position = position
            let count = min(n, voice.frames - position)
            voice.mix(into: out, frames: count)
            chimePosition = position + count < voice.frames ? position + count : nil
            fadeGains[0] = 1
            applyMaster(out, frames: n, fadeVaries: false)
        } else {
            applyMaster(out, frames: n, fadeVaries: fadeVaries)
        }
    }

    @inline(__always)
    private func applyMaster(_ out: UnsafeMutablePointer<Float>, frames n: Int, fadeVaries: Bool) {
        let rampFrames = master.rampingFrames(within: n)
        if !fadeVaries, rampFrames == 0 {
            let g = master.current * fadeGains[0]
            if g != 1 {
                for i in 0..<(2 * n) { out[i] *= g }
            }
        } else {
            var m = master.current
            let step = master.increment
            for i in 0..<n {
                if i < rampFrames { m += step }
                let g = m * (fadeVaries ? fadeGains[i] : fadeGains[0])
                out[2 * i] *= g
                out[2 * i + 1] *= g
            }
        }
        master.advance(n)
    }
}
