// Built by bench/kernel.sh together with HumCore's sources (one module, so internals are reachable).

@main struct KernelBench {
    static func main() {
        mixingKernel()
        bedsWithEvents()
        bedsInSegments()
        quantizeMatchesThePlainConversion()
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// 16 loops as in bench/render.sh after loading (8 mono, 8 stereo, 29.5 s at 48 kHz), mixed for 5 minutes at
    /// volume 50 in 16384-frame calls, as `hum render` does: the kernel alone, no loading, no file.
    static func mixingKernel() {
        var rng = SplitMix64(seed: 1)
        var tracks: [Mixer.Track] = []
        for t in 0..<16 {
            let channels = (t / 4) % 2 + 1
            let frames = 48000 * 30 - 24000 + t * 13
            let storage = SampleStorage(count: frames * channels)
            for i in 0..<(frames * channels) {
                storage.base[i] = Int16(truncatingIfNeeded: Int(rng.nextSignedUnit() * 9000))
            }
            tracks.append(.init(loop: LoopBuffer(storage: storage, startFrame: 0, frames: frames, channels: channels)))
        }
        let total = 48000 * 300
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 16384 * 2)
        defer { buffer.deallocate() }
        var best = Double.infinity
        for _ in 0..<5 {
            let controls = MixerControls(volumes: [Float](repeating: 50, count: 16))
            let mixer = Mixer(sampleRate: 48000, tracks: tracks, controls: controls)
            controls.scheduleEnd(atFrame: Int64(total), fadeFrames: 0)
            let elapsed = ContinuousClock().measure {
                while mixer.render(into: buffer, frames: 16384) > 0 {}
            }
            best = min(best, seconds(elapsed))
        }
        print("mixing kernel: 16 loops, 5 minutes at 48 kHz: \(Int(best * 1000)) ms (best of 5)")
    }

    /// Noise at about -20 dBFS, `frames` frames of `channels` channels.
    static func noiseLoop(frames: Int, channels: Int, _ rng: inout SplitMix64) -> LoopBuffer {
        let storage = SampleStorage(count: frames * channels)
        for i in 0..<(frames * channels) {
            storage.base[i] = Int16(truncatingIfNeeded: Int(rng.nextSignedUnit() * 9000))
        }
        return LoopBuffer(storage: storage, startFrame: 0, frames: frames, channels: channels)
    }

    /// Six beds (three mono, three stereo, 30 s) mixed for 5 minutes, alone and then each with a bank of events
    /// (four stereo clips of 2 to 5 s, 600 an hour, at least 1 s apart: about one start every 6 s per sound, so
    /// about three events sounding at any time over the mix), best of 5 each. The goal: under 2x.
    static func bedsWithEvents() {
        var rng = SplitMix64(seed: 2)
        let beds = (0..<6).map { t in noiseLoop(frames: 48000 * 30 - t * 7, channels: t % 2 + 1, &rng) }
        let banks = (0..<6).map { t in
            SoundEvents(
                name: "sound\(t)", clips: (0..<4).map { c in noiseLoop(frames: 48000 * (2 + c), channels: 2, &rng) },
                perHour: 600, minimumGapSeconds: 1, gainDB: -6...0, pan: -0.5...0.5, sampleRate: 48000)
        }
        func run(_ tracks: [Mixer.Track]) -> Double {
            let total = 48000 * 300
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 16384 * 2)
            defer { buffer.deallocate() }
            var best = Double.infinity
            for _ in 0..<5 {
                let controls = MixerControls(volumes: [Float](repeating: 50, count: tracks.count))
                let mixer = Mixer(sampleRate: 48000, tracks: tracks, controls: controls, eventSeed: 7)
                controls.scheduleEnd(atFrame: Int64(total), fadeFrames: 0)
                let elapsed = ContinuousClock().measure {
                    while mixer.render(into: buffer, frames: 16384) > 0 {}
                }
                best = min(best, seconds(elapsed))
            }
            return best
        }
        let alone = run(beds.map { Mixer.Track(loop: $0) })
        let withEvents = run(zip(beds, banks).map { Mixer.Track(loop: $0, events: $1) })
        let ratio = (withEvents / alone * 100).rounded() / 100
        print(
            "six beds alone: \(Int(alone * 1000)) ms; six beds with events: \(Int(withEvents * 1000)) ms, "
                + "x\(ratio) (goal: under x2) (5 minutes at 48 kHz, best of 5)")
    }

    /// Six beds (three mono, three stereo, 30 s) mixed for 5 minutes, looping round and round and then each played
    /// in segments of 3 to 7 s joined by 1 s crossfades (as white noise is), best of 5 each.
    static func bedsInSegments() {
        var rng = SplitMix64(seed: 3)
        let beds = (0..<6).map { t in noiseLoop(frames: 48000 * 30 - t * 7, channels: t % 2 + 1, &rng) }
        let plans = (0..<6).map { t in
            BedSegments(name: "sound\(t)", segmentSeconds: 3...7, crossfadeSeconds: 1, sampleRate: 48000)
        }
        func run(_ tracks: [Mixer.Track]) -> Double {
            let total = 48000 * 300
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 16384 * 2)
            defer { buffer.deallocate() }
            var best = Double.infinity
            for _ in 0..<5 {
                let controls = MixerControls(volumes: [Float](repeating: 50, count: tracks.count))
                let mixer = Mixer(sampleRate: 48000, tracks: tracks, controls: controls, eventSeed: 7)
                controls.scheduleEnd(atFrame: Int64(total), fadeFrames: 0)
                let elapsed = ContinuousClock().measure {
                    while mixer.render(into: buffer, frames: 16384) > 0 {}
                }
                best = min(best, seconds(elapsed))
            }
            return best
        }
        let looping = run(beds.map { Mixer.Track(loop: $0) })
        let segmented = run(zip(beds, plans).map { Mixer.Track(loop: $0, segments: $1) })
        let ratio = (segmented / looping * 100).rounded() / 100
        print(
            "six beds looping: \(Int(looping * 1000)) ms; six beds in random segments: \(Int(segmented * 1000)) ms, "
                + "x\(ratio) (5 minutes at 48 kHz, best of 5)")
    }

    /// The conversion LoopBuffer.quantize replaces, as it was written.
    @inline(never)
    static func plain(_ s: UnsafePointer<Float>, _ n: Int, _ d: UnsafeMutablePointer<Int16>) {
        for i in 0..<n {
            var v = s[i] * 32768
            v = v.isNaN ? 0 : min(max(v, -32768), 32767)
            d[i] = Int16(v + (v >= 0 ? 0.5 : -0.5))
        }
    }

    @inline(never)
    static func vectorized(_ s: UnsafePointer<Float>, _ n: Int, _ d: UnsafeMutablePointer<Int16>) {
        LoopBuffer.convert(UnsafeBufferPointer(start: s, count: n), into: d)
    }

    /// Every float of magnitude up to 1.02 (both signs) and the special values, through both; then timed.
    static func quantizeMatchesThePlainConversion() {
        let chunk = 1 << 24
        let x = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
        let a = UnsafeMutablePointer<Int16>.allocate(capacity: chunk)
        let b = UnsafeMutablePointer<Int16>.allocate(capacity: chunk)
        var mismatches = 0
        var checked = 0
        var plainTime = Duration.zero
        var vectorTime = Duration.zero
        let clock = ContinuousClock()
        let limit = Float(1.02).bitPattern
        var start: UInt32 = 0
        while start < limit {
            for sign: UInt32 in [0, 0x8000_0000] {
                let n = Int(min(UInt32(chunk), limit - start))
                for i in 0..<n { x[i] = Float(bitPattern: (start + UInt32(i)) | sign) }
                plainTime += clock.measure { plain(x, n, a) }
                vectorTime += clock.measure { vectorized(x, n, b) }
                for i in 0..<n where a[i] != b[i] {
                    if mismatches < 5 { print("mismatch: \(x[i]) -> \(a[i]) vs \(b[i])") }
                    mismatches += 1
                }
                checked += n
            }
            start += UInt32(chunk)
        }
        let specials: [Float] = [.nan, -.nan, .infinity, -.infinity, 1e30, -1e30, 3, -3, 0, -0.0]
        for v in specials {
            var v = v
            plain(&v, 1, a)
            vectorized(&v, 1, b)
            if a[0] != b[0] {
                print("mismatch: \(v) -> \(a[0]) vs \(b[0])")
                mismatches += 1
            }
            checked += 1
        }
        print(
            "float to 16-bit: \(checked) values, \(mismatches) mismatches; plain \(Int(seconds(plainTime) * 1000)) ms, LoopBuffer.convert \(Int(seconds(vectorTime) * 1000)) ms"
        )
    }
}
