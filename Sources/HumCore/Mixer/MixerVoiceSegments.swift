/// The kernel of a bed played in segments (`BedSegments`): a voice reads its loop from where it is until the
/// segment's end, then crossfades (equal power) into a stretch starting at a random place, and so on. The
/// lengths and places come from the voice's own SplitMix64, seeded when the sound enters the mix, so a render
/// with the same seed is the same to the sample. Allocation-free and lock-free, like the rest of the kernel.
extension Mixer.Voice {
    /// How a loop of `frames` frames is cut: the steps it holds (a whole number: each `frames / steps` long, the
    /// grid's beat a little stretched), the least jump in steps, and how many jumps there are to draw from.
    @inline(__always)
    static func segmentJumps(_ table: UnsafePointer<BedSegments.Table>, frames: Int)
        -> (steps: Int, least: Int, choices: Int)?
    {
        let t = table.pointee
        // (Rounded by hand: `rounded()` reaches for its rounding rule's metadata, which the audio thread may not.)
        var steps = max(1, Int(Double(frames) / t.step + 0.5))
        if let beats = t.beats {
            // The beats are the steps: all in the loop, with room round the wrap for a crossfade after the last.
            let last = beats[t.beatCount - 1]
            guard last < frames, frames - last + beats[0] > t.phase + t.jitterFrames + t.crossfadeFrames else {
                return nil
            }
            steps = t.beatCount
        }
        let step = Double(frames) / Double(steps)
        let ratio = Double(t.marginFrames) / step
        let least = max(1, Double(Int(ratio)) < ratio ? Int(ratio) + 1 : Int(ratio))
        let choices = steps - 2 * least + 1
        return choices >= 1 ? (steps, least, choices) : nil
    }

    /// The frame (from the loop's start, not wrapped) where grid step `index` begins: with beats, the beat
    /// `index` counts to, round the loop as often as it takes.
    @inline(__always)
    func gridFrame(_ index: Int) -> Int {
        if let beats = segments?.pointee.beats { return beats[index % gridSteps] + index / gridSteps * frames }
        return Int(Double(index) * Double(frames) / Double(gridSteps) + 0.5)
    }

    /// The generator of a sound's bed entering the mix: a stream of its own beside its events' (same seed and
    /// name, stirred with a different constant), so segments never move an event.
    @inline(__always)
    static func segmentGenerator(seed: UInt64, nameHash: UInt64) -> SplitMix64 {
        MixerEvents.generator(seed: seed, nameHash: nameHash ^ 0x6265_6473_6567_6D74)  // "bedsegmt"
    }

    /// A sound entering the mix: plays in segments when it has them and its loop is long enough for them.
    @inline(__always)
    mutating func startSegments(_ table: UnsafePointer<BedSegments.Table>?, seed: UInt64) {
        segments = nil
        crossfaded = -1
        guard let table, let jumps = Mixer.Voice.segmentJumps(table, frames: frames) else { return }
        segments = table
        gridSteps = jumps.steps
        jumpLeast = jumps.least
        jumpChoices = jumps.choices
        random = Mixer.Voice.segmentGenerator(seed: seed, nameHash: table.pointee.nameHash)
        // The first segment starts at the loop's start, with no crossfade.
        joinStep = segmentSteps(table)
        untilJoin = table.pointee.phase + gridFrame(joinStep)
        drawNextJump(table, afterSteps: 0)
    }

    /// Draws the jump of the next join now, one join ahead of it, and says where that join will read from
    /// (`nextIncoming`), so the pages there can be made resident before the crossfade reaches them (`LoopReadAhead`).
    /// The draws are the same, in the same order, as drawing each at its join: nothing else draws from the voice's
    /// generator between a segment's length and the jump after it. `afterSteps`: the steps still to add to
    /// `joinStep` before that join (the length of the segment being crossfaded into).
    @inline(__always)
    mutating func drawNextJump(_ table: UnsafePointer<BedSegments.Table>, afterSteps: Int) {
        // With jitter, the join lands up to `jitterFrames` off its place, drawn from the high half of the same
        // number (so the draws stay one a join).
        let draw = random.next()
        nextJump = jumpLeast + Int(draw % UInt64(jumpChoices))
        let jitter = table.pointee.jitterFrames
        nextOffset = jitter > 0 ? Int((draw >> 32) % UInt64(2 * jitter + 1)) - jitter : 0
        nextIncoming =
            (gridFrame((joinStep + afterSteps + nextJump) % gridSteps) + table.pointee.phase + nextOffset + frames)
            % frames
    }

    /// A segment's length in grid steps (frames, without a grid).
    @inline(__always)
    mutating func segmentSteps(_ table: UnsafePointer<BedSegments.Table>) -> Int {
        table.pointee.shortestSteps + Int(random.next() % UInt64(table.pointee.stepChoices))
    }

    /// Adds the voice's next `n` frames into `out`, segment by segment, under its volume ramp and its fade (which
    /// it advances, as `mixFading` does); silent, it only keeps time (the same draws, so what follows is the same).
    @inline(__always)
    static func mixSegmented(
        _ voice: inout Mixer.Voice, into out: UnsafeMutablePointer<Float>, frames n: Int,
        gains: UnsafeMutablePointer<Float>
    ) {
        guard let table = voice.segments else { return }
        let crossfade = table.pointee.crossfadeFrames
        let weights = table.pointee.weights
        let phase = table.pointee.phase
        let scale: Float = 1 / 32768
        let silent = voice.ramp.current == 0 && !voice.ramp.isRamping
        let steady = !voice.ramp.isRamping && !voice.fade.isMoving
        if silent {
            if voice.fade.isMoving { voice.fade.advance(n) }
        } else if steady {
            gains.update(repeating: voice.ramp.current * scale, count: n)
        } else {
            let ramping = voice.ramp.rampingFrames(within: n)
            var g = voice.ramp.current * scale
            let increment = voice.ramp.increment * scale
            for i in 0..<ramping {
                g += increment
                gains[i] = g
            }
            voice.ramp.advance(ramping)
            (gains + ramping).update(repeating: voice.ramp.current * scale, count: n - ramping)
            voice.fade.apply(to: gains, frames: n)
        }
        let constant = voice.ramp.current * scale
        let stereo = voice.channels == 2
        var done = 0
        while done < n {
            let dst = out + 2 * done
            if voice.crossfaded < 0 {
                // (Two-argument `min`s: the variadic one builds an array.)
                let count = min(min(n - done, voice.untilJoin), voice.frames - voice.position)
                let src = voice.samples + voice.position * voice.channels
                if silent {
                    // Nothing to add: keep time.
                } else if steady {
                    if stereo {
                        for i in 0..<(2 * count) { dst[i] += Float(src[i]) * constant }
                    } else {
                        for i in 0..<count {
                            let s = Float(src[i]) * constant
                            dst[2 * i] += s
                            dst[2 * i + 1] += s
                        }
                    }
                } else {
                    let g = gains + done
                    if stereo {
                        for i in 0..<count {
                            dst[2 * i] += Float(src[2 * i]) * g[i]
                            dst[2 * i + 1] += Float(src[2 * i + 1]) * g[i]
                        }
                    } else {
                        for i in 0..<count {
                            let s = Float(src[i]) * g[i]
                            dst[2 * i] += s
                            dst[2 * i + 1] += s
                        }
                    }
                }
                voice.position += count
                if voice.position == voice.frames { voice.position = 0 }
                voice.untilJoin -= count
                done += count
                if voice.untilJoin == 0 {
                    // A join: the next segment starts somewhere else along the loop, at least the margin away, on
                    // the grid (`joinStep` now says where it starts).
                    // The jump (and, with jitter, how far off its place it lands) was drawn one join ahead; the
                    // next segment's length and the jump after it are drawn now, in the order a draw at each join
                    // took them.
                    voice.joinStep = (voice.joinStep + voice.nextJump) % voice.gridSteps
                    voice.incoming =
                        (voice.gridFrame(voice.joinStep) + phase + voice.nextOffset + voice.frames) % voice.frames
                    voice.crossfaded = 0
                    voice.comingSteps = voice.segmentSteps(table)
                    voice.drawNextJump(table, afterSteps: voice.comingSteps)
                }
            } else {
                let count = min(
                    min(n - done, crossfade - voice.crossfaded),
                    min(voice.frames - voice.position, voice.frames - voice.incoming))
                if !silent {
                    let leaving = voice.samples + voice.position * voice.channels
                    let coming = voice.samples + voice.incoming * voice.channels
                    let rise = weights + voice.crossfaded
                    let fall = weights + crossfade + voice.crossfaded
                    let g = gains + done
                    if stereo {
                        for i in 0..<count {
                            dst[2 * i] += (Float(leaving[2 * i]) * fall[i] + Float(coming[2 * i]) * rise[i]) * g[i]
                            dst[2 * i + 1] +=
                                (Float(leaving[2 * i + 1]) * fall[i] + Float(coming[2 * i + 1]) * rise[i]) * g[i]
                        }
                    } else {
                        for i in 0..<count {
                            let s = (Float(leaving[i]) * fall[i] + Float(coming[i]) * rise[i]) * g[i]
                            dst[2 * i] += s
                            dst[2 * i + 1] += s
                        }
                    }
                }
                voice.position += count
                if voice.position == voice.frames { voice.position = 0 }
                voice.incoming += count
                if voice.incoming == voice.frames { voice.incoming = 0 }
                voice.crossfaded += count
                done += count
                if voice.crossfaded == crossfade {
                    // The crossfade is over: the new segment plays alone until its end.
                    voice.position = voice.incoming
                    voice.crossfaded = -1
                    let start = voice.joinStep
                    voice.joinStep = start + voice.comingSteps
                    voice.untilJoin = voice.gridFrame(voice.joinStep) - voice.gridFrame(start) - crossfade
                }
            }
        }
    }
}
