/// The kernel: adding voices into a block. On a struct, so the audio thread never touches class metadata.
extension Mixer.Voice {
    /// A voice whose next `n` frames play at one gain, not silent, without wrapping around its loop.
    @inline(__always)
    func isSteady(frames n: Int) -> Bool {
        ramp.current != 0 && !ramp.isRamping && position + n <= frames && !fade.isMoving && segments == nil
    }

    /// Adds a voice that is entering or leaving the mix: its volume ramp times its fade, frame by frame (the
    /// gains go through `gains` first), wrapping around the loop. Rare and short, so kept simple.
    @inline(__always)
    static func mixFading(
        _ voice: inout Mixer.Voice, into out: UnsafeMutablePointer<Float>, frames n: Int,
        gains: UnsafeMutablePointer<Float>
    ) {
        if voice.ramp.current == 0, !voice.ramp.isRamping {
            voice.fade.advance(n)  // silent anyway: keep time
            voice.position = (voice.position + n) % voice.frames
            return
        }
        let scale: Float = 1 / 32768
        let ramping = voice.ramp.rampingFrames(within: n)
        var g = voice.ramp.current * scale
        let step = voice.ramp.increment * scale
        for i in 0..<ramping {
            g += step
            gains[i] = g
        }
        voice.ramp.advance(ramping)
        (gains + ramping).update(repeating: voice.ramp.current * scale, count: n - ramping)
        voice.fade.apply(to: gains, frames: n)
        var done = 0
        while done < n {
            let chunk = min(n - done, voice.frames - voice.position)
            let src = voice.samples + voice.position * voice.channels
            let dst = out + 2 * done
            let gain = gains + done
            if voice.channels == 2 {
                for i in 0..<chunk {
                    dst[2 * i] += Float(src[2 * i]) * gain[i]
                    dst[2 * i + 1] += Float(src[2 * i + 1]) * gain[i]
                }
            } else {
                for i in 0..<chunk {
                    let s = Float(src[i]) * gain[i]
                    dst[2 * i] += s
                    dst[2 * i + 1] += s
                }
            }
            voice.position += chunk
            if voice.position == voice.frames { voice.position = 0 }
            done += chunk
        }
    }

    /// Adds four steady voices with the same channel count (see `isSteady`), each as `mix` would, in order.
    @inline(__always)
    static func mixSteady(
        _ a: inout Mixer.Voice, _ b: inout Mixer.Voice, _ c: inout Mixer.Voice, _ d: inout Mixer.Voice,
        into out: UnsafeMutablePointer<Float>, frames n: Int
    ) {
        let scale: Float = 1 / 32768
        let ga = a.ramp.current * scale
        let gb = b.ramp.current * scale
        let gc = c.ramp.current * scale
        let gd = d.ramp.current * scale
        let sa = a.samples + a.position * a.channels
        let sb = b.samples + b.position * b.channels
        let sc = c.samples + c.position * c.channels
        let sd = d.samples + d.position * d.channels
        if a.channels == 2 {
            for i in 0..<(2 * n) {
                out[i] = out[i] + Float(sa[i]) * ga + Float(sb[i]) * gb + Float(sc[i]) * gc + Float(sd[i]) * gd
            }
        } else {
            for i in 0..<n {
                let xa = Float(sa[i]) * ga
                let xb = Float(sb[i]) * gb
                let xc = Float(sc[i]) * gc
                let xd = Float(sd[i]) * gd
                out[2 * i] = out[2 * i] + xa + xb + xc + xd
                out[2 * i + 1] = out[2 * i + 1] + xa + xb + xc + xd
            }
        }
        a.advanceSteady(n)
        b.advanceSteady(n)
        c.advanceSteady(n)
        d.advanceSteady(n)
    }

    /// Adds two steady voices with the same channel count, each as `mix` would, in order.
    @inline(__always)
    static func mixSteady(
        _ a: inout Mixer.Voice, _ b: inout Mixer.Voice, into out: UnsafeMutablePointer<Float>, frames n: Int
    ) {
        let scale: Float = 1 / 32768
        let ga = a.ramp.current * scale
        let gb = b.ramp.current * scale
        let sa = a.samples + a.position * a.channels
        let sb = b.samples + b.position * b.channels
        if a.channels == 2 {
            for i in 0..<(2 * n) { out[i] = out[i] + Float(sa[i]) * ga + Float(sb[i]) * gb }
        } else {
            for i in 0..<n {
                let xa = Float(sa[i]) * ga
                let xb = Float(sb[i]) * gb
                out[2 * i] = out[2 * i] + xa + xb
                out[2 * i + 1] = out[2 * i + 1] + xa + xb
            }
        }
        a.advanceSteady(n)
        b.advanceSteady(n)
    }

    @inline(__always)
    mutating func advanceSteady(_ n: Int) {
        position += n
        if position == frames { position = 0 }
    }

    /// Adds one voice's next `n` frames into `out`, wrapping around the loop.
    @inline(__always)
    mutating func mix(into out: UnsafeMutablePointer<Float>, frames n: Int) {
        Mixer.Voice.mix(&self, into: out, frames: n)
    }

    @inline(__always)
    static func mix(_ voice: inout Mixer.Voice, into out: UnsafeMutablePointer<Float>, frames n: Int) {
        if voice.ramp.current == 0, !voice.ramp.isRamping {
            voice.position = (voice.position + n) % voice.frames  // silent: keep time, skip the work
            return
        }
        let scale: Float = 1 / 32768
        var done = 0
        while done < n {
            let chunk = min(n - done, voice.frames - voice.position)
            let src = voice.samples + voice.position * voice.channels
            let dst = out + 2 * done
            let ramping = voice.ramp.rampingFrames(within: chunk)
            if ramping > 0 {
                var g = voice.ramp.current * scale
                let step = voice.ramp.increment * scale
                if voice.channels == 2 {
                    for i in 0..<ramping {
                        g += step
                        dst[2 * i] += Float(src[2 * i]) * g
                        dst[2 * i + 1] += Float(src[2 * i + 1]) * g
                    }
                } else {
                    for i in 0..<ramping {
                        g += step
                        let s = Float(src[i]) * g
                        dst[2 * i] += s
                        dst[2 * i + 1] += s
                    }
                }
                voice.ramp.advance(ramping)
            }
            let g = voice.ramp.current * scale
            let rest = chunk - ramping
            if g != 0, rest > 0 {
                let s0 = src + ramping * voice.channels
                let d0 = dst + 2 * ramping
                if voice.channels == 2 {
                    for i in 0..<(2 * rest) { d0[i] += Float(s0[i]) * g }
                } else {
                    for i in 0..<rest {
                        let s = Float(s0[i]) * g
                        d0[2 * i] += s
                        d0[2 * i + 1] += s
                    }
                }
            }
            voice.position += chunk
            if voice.position == voice.frames { voice.position = 0 }
            done += chunk
        }
    }
}
