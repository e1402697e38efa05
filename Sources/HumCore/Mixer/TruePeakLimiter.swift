/// Keeps the mix's true peak (the peak of the waveform between samples, as a DAC or a resampler rebuilds it) at or
/// below −1 dBTP, with a look-ahead so the gain is already down when a peak arrives, and nothing done at all when
/// nothing nears full scale.
///
/// The mix goes through a delay line of `delay` frames (127, 2.6 ms at 48 kHz). Each frame entering it is
/// measured: its sample and the three points between it and the next that 4× oversampling would add (a 128-tap
/// windowed-sinc interpolator, 32 taps per phase; 12 per phase read full-scale noise 1 dB low against the
/// standard meter). Where that peak is above the target the frame needs gain target/peak. The
/// gain actually applied is
/// 1. the smallest needed gain over a window (the look-ahead plus a margin either side, so every sample under the
///    interpolator's taps is covered),
/// 2. followed down at once and released toward it with a 100 ms time constant,
/// 3. averaged over the look-ahead (a moving average), which turns every change into a straight ramp: the gain
///    moves by at most 1/lookahead per sample (0.0104 at 48 kHz), and reaches what a peak needs before the peak
///    leaves the delay line.
/// A final clamp to ±1 stays as the last guard.
///
/// When the gain rests at 1 and a block's samples are too small for any interpolated point to reach the target
/// (|x| · 2.35, the interpolator's largest gain, at most the target), or the measured points stay below it, the
/// block only passes through the delay: the output is the input, delayed, bit for bit. Points that a bound shows
/// under the target (their eight central taps computed, the others bounded) are not computed at all (`measure`).
///
/// All memory is allocated at init; `process` allocates nothing, takes no lock and touches no reference count.
/// The owner calls `deallocate()` once.
public struct TruePeakLimiter {
    /// The target: −1.4 dBFS true peak, 0.4 dB under the −1 dBTP promised, for what a meter's interpolator reads
    /// differently (ffmpeg's `ebur128=peak=true` rebuilds the top octave of full-scale noise more fully than this
    /// one) and for the gain moving under the interpolator's taps.
    public static let threshold: Float = 0.851_138
    /// The interpolator's largest sum of |taps| over its phases: no point between samples exceeds the largest
    /// nearby |sample| times this.
    static let interpolationBound: Float = 2.353
    /// Taps per phase of the interpolator.
    static let tapsPerPhase = 32
    /// Taps of the three in-between phases (¼, ½, ¾ of a sample after x[u]), over x[u−15] … x[u+16]: a sinc under
    /// a Kaiser window (β 9, 16 samples either side), each phase normalized to unity gain at DC. Made by
    /// `scripts/limiter-taps.py`.
    static let taps: [[Float]] = [
        [
            -0.000052802, 0.000176863, -0.000440455, 0.000932654, -0.001773257, 0.003116896, -0.005158776,
            0.008145922, -0.012402251, 0.018386052, -0.026825418, 0.039060513, -0.058035311, 0.091950367,
            -0.175456007, 0.899392382, 0.297322382, -0.122236062, 0.072143999, -0.047398910, 0.032342342,
            -0.022235902, 0.015141514, -0.010090977, 0.006516196, -0.004036528, 0.002371038, -0.001300610,
            0.000651257, -0.000286325, 0.000101868, -0.000022654,
        ],
        [
            -0.000050553, 0.000191808, -0.000505016, 0.001106175, -0.002153321, 0.003852211, -0.006463514,
            0.010315985, -0.015835369, 0.023610360, -0.034546496, 0.050246324, -0.074065733, 0.114729729,
            -0.204426794, 0.633994203, 0.633994203, -0.204426794, 0.114729729, -0.074065733, 0.050246324,
            -0.034546496, 0.023610360, -0.015835369, 0.010315985, -0.006463514, 0.003852211, -0.002153321,
            0.001106175, -0.000505016, 0.000191808, -0.000050553,
        ],
        [
            -0.000022654, 0.000101868, -0.000286325, 0.000651257, -0.001300610, 0.002371038, -0.004036528,
            0.006516196, -0.010090977, 0.015141514, -0.022235902, 0.032342342, -0.047398910, 0.072143999,
            -0.122236062, 0.297322382, 0.899392382, -0.175456007, 0.091950367, -0.058035311, 0.039060513,
            -0.026825418, 0.018386052, -0.012402251, 0.008145922, -0.005158776, 0.003116896, -0.001773257,
            0.000932654, -0.000440455, 0.000176863, -0.000052802,
        ],
    ]
    /// Frames before the newest sample the interpolator needs after the point it measures (x[u+16]).
    static let interpolatorLead = 16
    /// Frames of history the interpolator reads before the point (x[u−15]).
    static let interpolatorLag = 15
    /// Frames either side of a peak whose gain must already be down (the interpolator's reach, and then some).
    static let margin = 16
    /// Frames of a run: the unit of the quiet test (`measure`).
    static let runFrames = 64
    /// The eight taps nearest the point (x[u−3] … x[u+4]), which carry 84–87 % of each phase's sum of |tap|: their
    /// sum, with a bound on the others, shows most points under the threshold without computing all 32.
    static let centralTaps = 12..<20
    /// The four nearest (x[u−1] … x[u+2]), 71–76 % of it: tried first, it decides nearly as often at half the cost.
    static let innerTaps = 14..<18
    /// What the bound on a point keeps under the threshold, for the rounding of the float sums (under 1e-5).
    static let boundMargin: Float = 1e-4

    /// Look-ahead frames (2 ms): the length of the moving average, so of every gain ramp.
    public let lookahead: Int
    /// Frames from a sample entering to leaving: the look-ahead, the margin and the interpolator's lead.
    public let delay: Int
    /// The gain applied to the last frame out (1 at rest).
    public private(set) var gain: Float = 1
    /// Whether quiet blocks and runs skip the frame-by-frame work, and points shown under the threshold by a bound
    /// are not computed (off only in tests that compare the two).
    var skipsWork = true

    private let maximumBlock: Int
    private let holdLength: Int
    private let release: Float
    /// Stereo frames: [0, delay) waiting to go out, then the block coming in.
    private let line: UnsafeMutablePointer<Float>
    /// The peak measured for each frame of a block.
    private let peaks: UnsafeMutablePointer<Float>
    /// The three phases' sums for four frames (`interpolateFour`): 24 floats.
    private let points: UnsafeMutablePointer<Float>
    /// For each phase, the sum of |tap| outside `centralTaps` (rounded up): what those taps can add to a point;
    /// then the same outside `innerTaps`.
    private let outerGains: UnsafeMutablePointer<Float>
    private let coefficients: UnsafeMutablePointer<Float>  // 3 × tapsPerPhase
    /// Monotonic queue of (frame, needed gain) for the sliding minimum: needed gains below 1 only, increasing.
    private let queueFrames: UnsafeMutablePointer<Int>
    private let queueGains: UnsafeMutablePointer<Float>
    private var queueHead = 0
    private var queueCount = 0
    /// The last `lookahead` envelope values (ring), their sum, and how many of them are not exactly 1.
    private let envelopes: UnsafeMutablePointer<Float>
    private var envelopeIndex = 0
    private var envelopeSum = 0.0
    private var notAtOne = 0
    private var envelope: Float = 1
    /// The frame whose gain is computed next (the newest input frame less the interpolator's lead).
    private var measured = 0

    public init(sampleRate: Int, maximumBlock: Int) {
        lookahead = max(1, sampleRate / 500)
        holdLength = lookahead + 2 * TruePeakLimiter.margin
        delay = lookahead + TruePeakLimiter.margin + TruePeakLimiter.interpolatorLead - 1
        self.maximumBlock = maximumBlock
        release = 1 - Float(FadeEnvelope.pow10(-1 / (0.1 * Double(sampleRate) * 2.302585092994046)))
        line = .allocate(capacity: 2 * (delay + maximumBlock))
        line.initialize(repeating: 0, count: 2 * (delay + maximumBlock))
        peaks = .allocate(capacity: maximumBlock)
        peaks.initialize(repeating: 0, count: maximumBlock)
        points = .allocate(capacity: 24)
        points.initialize(repeating: 0, count: 24)
        outerGains = .allocate(capacity: 6)
        for (set, central) in [TruePeakLimiter.centralTaps, TruePeakLimiter.innerTaps].enumerated() {
            for p in 0..<3 {
                var outer = 0.0
                for k in 0..<TruePeakLimiter.tapsPerPhase where !central.contains(k) {
                    outer += Double(abs(TruePeakLimiter.taps[p][k]))
                }
                (outerGains + 3 * set + p).initialize(to: Float(outer * (1 + 1e-6)))
            }
        }
        let width = TruePeakLimiter.tapsPerPhase
        coefficients = .allocate(capacity: 3 * width)
        for p in 0..<3 {
            for k in 0..<width { (coefficients + width * p + k).initialize(to: TruePeakLimiter.taps[p][k]) }
        }
        queueFrames = .allocate(capacity: holdLength + 1)
        queueFrames.initialize(repeating: 0, count: holdLength + 1)
        queueGains = .allocate(capacity: holdLength + 1)
        queueGains.initialize(repeating: 1, count: holdLength + 1)
        envelopes = .allocate(capacity: lookahead)
        envelopes.initialize(repeating: 1, count: lookahead)
        envelopeSum = Double(lookahead)
    }

    /// Frees the memory (once, by the owner, when it is done with the limiter).
    public func deallocate() {
        line.deallocate()
        peaks.deallocate()
        points.deallocate()
        outerGains.deallocate()
        coefficients.deallocate()
        queueFrames.deallocate()
        queueGains.deallocate()
        envelopes.deallocate()
    }

    /// Where the next block's input goes: room for `maximumBlock` stereo frames.
    public var input: UnsafeMutablePointer<Float> { line + 2 * delay }

    /// Takes in `frames` frames written at `input` and writes the `frames` oldest frames of the line, limited, to
    /// `out` (interleaved stereo).
    public mutating func process(into out: UnsafeMutablePointer<Float>, frames n: Int) {
        guard n > 0 else { return }
        let t = TruePeakLimiter.threshold
        let atRest = queueCount == 0 && notAtOne == 0 && envelope == 1
        if atRest, skipsWork {
            // The samples the block's measured points reach: from the interpolator's history before the block.
            let from = 2 * (delay - TruePeakLimiter.interpolatorLag - TruePeakLimiter.interpolatorLead)
            if TruePeakLimiter.allWithin(
                line + from, count: 2 * (n + delay) - from, limit: t / TruePeakLimiter.interpolationBound)
                || measure(frames: n) <= t
            {
                UnsafeMutableRawPointer(out).copyMemory(from: line, byteCount: 2 * n * MemoryLayout<Float>.size)
                measured += n
                gain = 1
                shift(n)
                return
            }
        } else {
            _ = measure(frames: n)
        }
        var g = gain
        for i in 0..<n {
            let needed = peaks[i] > t ? t / peaks[i] : 1
            let u = measured + i
            // The sliding minimum over the hold window.
            while queueCount > 0, queueFrames[queueHead] <= u - holdLength {
                queueHead = queueHead + 1 == holdLength + 1 ? 0 : queueHead + 1
                queueCount -= 1
            }
            if needed < 1 {
                while queueCount > 0 {
                    let last = (queueHead + queueCount - 1) % (holdLength + 1)
                    if queueGains[last] >= needed { queueCount -= 1 } else { break }
                }
                let slot = (queueHead + queueCount) % (holdLength + 1)
                queueFrames[slot] = u
                queueGains[slot] = needed
                queueCount += 1
            }
            let hold = queueCount > 0 ? queueGains[queueHead] : 1
            // Down at once, released toward the hold; snapped to 1 at the end of the release.
            var e = envelope
            if hold < e {
                e = hold
            } else {
                e += (hold - e) * release
                if hold == 1, e > 0.999_999 { e = 1 }
            }
            envelope = e
            // The moving average of the envelope over the look-ahead.
            let old = envelopes[envelopeIndex]
            if old != 1 { notAtOne -= 1 }
            if e != 1 { notAtOne += 1 }
            envelopeSum += Double(e) - Double(old)
            envelopes[envelopeIndex] = e
            envelopeIndex = envelopeIndex + 1 == lookahead ? 0 : envelopeIndex + 1
            if notAtOne == 0 {
                envelopeSum = Double(lookahead)
                g = 1
            } else {
                g = Float(envelopeSum / Double(lookahead))
            }
            let l = line[2 * i]
            let r = line[2 * i + 1]
            out[2 * i] = g == 1 ? l : max(-1, min(1, l * g))
            out[2 * i + 1] = g == 1 ? r : max(-1, min(1, r * g))
        }
        gain = g
        measured += n
        shift(n)
    }

    /// Moves the frames not yet out to the front of the line (a memmove: the two may overlap).
    @inline(__always)
    private func shift(_ n: Int) {
        UnsafeMutableRawPointer(line).copyMemory(from: line + 2 * n, byteCount: 2 * delay * MemoryLayout<Float>.size)
    }

    /// Measures the peak of each point the block's input makes measurable (frame `measured + i` for each i: its
    /// sample and the three in-between points after it), into `peaks`; returns the largest (NaN counts as over).
    ///
    /// A point at or under the threshold needs nothing, so its peak may be written as 0 instead: what the limiter
    /// does is the same. In runs of 64 frames, with M the largest |sample| under the run's taps:
    /// - M · 2.35 (the interpolator's largest gain) at most the threshold: no point can reach it, the run's peaks
    ///   are 0;
    /// - else, M under the threshold: four frames at a time, the points' sums over their four nearest taps only
    ///   (`innerTaps`), then if need be their eight (`centralTaps`); the other taps add at most `outerGain[p]` · M
    ///   to a point of phase p, so where every such sum is at most threshold − outerGain · M − `boundMargin`, no
    ///   point reaches the threshold (the margin covers the float sums' rounding: under 1e-5), and the four peaks
    ///   are 0;
    /// - else, and for those four frames that fail the bound, every point is computed over all 32 taps, as
    ///   `measureOne` does (the same floats, bit for bit).
    private func measure(frames n: Int) -> Float {
        // Frame u = measured + i lies at line frame delay + i − lead; its taps start lag frames before it.
        let first = delay - TruePeakLimiter.interpolatorLead - TruePeakLimiter.interpolatorLag
        let t = TruePeakLimiter.threshold
        let quiet = t / TruePeakLimiter.interpolationBound
        let c = coefficients
        let width = TruePeakLimiter.tapsPerPhase
        let scratch = UnsafeMutableRawPointer(points)
        var largest: Float = 0
        var start = 0
        while start < n {
            let end = min(n, start + TruePeakLimiter.runFrames)
            // NaN when skipping is off: every comparison with it fails, so every point is computed.
            let m =
                skipsWork
                ? TruePeakLimiter.largestMagnitude(line + 2 * (first + start), count: 2 * (end - start + width - 1))
                : .nan
            if m <= quiet {
                (peaks + start).update(repeating: 0, count: end - start)
                start = end
                continue
            }
            let bounded = m <= t - TruePeakLimiter.boundMargin
            let ceiling = t - TruePeakLimiter.boundMargin
            // Each phase's limits as the bit patterns of positive floats (M ≤ ceiling and outerGain < 0.7 keep
            // them over 0.25): positive floats order as their bit patterns do.
            let limits = SIMD3<Int32>(
                Int32(bitPattern: (ceiling - outerGains[0] * m).bitPattern),
                Int32(bitPattern: (ceiling - outerGains[1] * m).bitPattern),
                Int32(bitPattern: (ceiling - outerGains[2] * m).bitPattern))
            let innerLimits = SIMD3<Int32>(
                Int32(bitPattern: (ceiling - outerGains[3] * m).bitPattern),
                Int32(bitPattern: (ceiling - outerGains[4] * m).bitPattern),
                Int32(bitPattern: (ceiling - outerGains[5] * m).bitPattern))
            var i = start
            while i + 4 <= end {
                let x = line + 2 * (first + i)
                if bounded,
                    TruePeakLimiter.sumsWithin(x, coefficients: c, taps: TruePeakLimiter.innerTaps, limits: innerLimits)
                        || TruePeakLimiter.sumsWithin(
                            x, coefficients: c, taps: TruePeakLimiter.centralTaps, limits: limits)
                {
                    (peaks + i).update(repeating: 0, count: 4)
                    i += 4
                    continue
                }
                TruePeakLimiter.interpolateFour(x, coefficients: c, into: scratch)
                TruePeakLimiter.peaksOfFour(x, points: points, into: peaks + i)
                i += 4
            }
            while i < end {
                peaks[i] = TruePeakLimiter.measureOne(line + 2 * (first + i), coefficients: c)
                i += 1
            }
            for i in start..<end {
                let peak = peaks[i]
                largest = largest.isNaN || peak.isNaN ? .nan : max(largest, peak)
            }
            start = end
        }
        return largest.isNaN ? .infinity : largest
    }

    /// The peak of one frame's point (its sample and the three in-between points after it, both channels) from the
    /// interpolator's window starting at `x` (frame u − lag, interleaved stereo).
    @inline(__always)
    static func measureOne(_ x: UnsafeMutablePointer<Float>, coefficients c: UnsafeMutablePointer<Float>) -> Float {
        let width = TruePeakLimiter.tapsPerPhase
        var peak: Float = 0
        for ch in 0..<2 {
            var p1: Float = 0
            var p2: Float = 0
            var p3: Float = 0
            for k in 0..<width {
                let v = x[2 * k + ch]
                p1 += c[k] * v
                p2 += c[width + k] * v
                p3 += c[2 * width + k] * v
            }
            let sample = abs(x[2 * TruePeakLimiter.interpolatorLag + ch])
            peak = max(max(peak, sample), max(abs(p1), max(abs(p2), abs(p3))))
        }
        return peak
    }

    /// The three in-between points of four frames at once (their windows starting at `x`), into `points`: eight
    /// floats per phase, the four frames' left and right as they lie in the line. Each lane adds the same products
    /// in the same order as `measureOne` does: the same floats, bit for bit.
    @inline(__always)
    static func interpolateFour(
        _ x: UnsafeMutablePointer<Float>, coefficients c: UnsafeMutablePointer<Float>,
        into points: UnsafeMutableRawPointer
    ) {
        let width = TruePeakLimiter.tapsPerPhase
        let raw = UnsafeRawPointer(x)
        var p1 = SIMD8<Float>()
        var p2 = SIMD8<Float>()
        var p3 = SIMD8<Float>()
        for k in 0..<width {
            let v = raw.loadUnaligned(fromByteOffset: 8 * k, as: SIMD8<Float>.self)
            p1 = p1 + c[k] * v
            p2 = p2 + c[width + k] * v
            p3 = p3 + c[2 * width + k] * v
        }
        points.storeBytes(of: p1, toByteOffset: 0, as: SIMD8<Float>.self)
        points.storeBytes(of: p2, toByteOffset: 32, as: SIMD8<Float>.self)
        points.storeBytes(of: p3, toByteOffset: 64, as: SIMD8<Float>.self)
    }

    /// The peaks of four frames from their points (`interpolateFour` over all taps) and samples, as `measureOne`
    /// takes them, NaN and all.
    @inline(__always)
    static func peaksOfFour(
        _ x: UnsafeMutablePointer<Float>, points: UnsafeMutablePointer<Float>, into peaks: UnsafeMutablePointer<Float>
    ) {
        let samples = x + 2 * TruePeakLimiter.interpolatorLag
        for j in 0..<4 {
            var peak: Float = 0
            for ch in 0..<2 {
                let l = 2 * j + ch
                peak = max(
                    max(peak, abs(samples[l])), max(abs(points[l]), max(abs(points[8 + l]), abs(points[16 + l]))))
            }
            peaks[j] = peak
        }
    }

    /// Whether the sums over `taps` of the three phases, for four frames at once (their windows starting at `x`),
    /// are all at most their phase's limit in magnitude (false for a NaN). The test is done on bit patterns:
    /// a magnitude's pattern (sign cleared) is at most the limit's exactly when the limit's minus it is not
    /// negative (both are under 2³¹, so the difference cannot overflow), and a NaN's pattern is above every
    /// number's, so the eight lanes of the three phases are tested with integer subtractions and one OR.
    @inline(__always)
    static func sumsWithin(
        _ x: UnsafeMutablePointer<Float>, coefficients c: UnsafeMutablePointer<Float>, taps: Range<Int>,
        limits: SIMD3<Int32>
    ) -> Bool {
        let width = TruePeakLimiter.tapsPerPhase
        let raw = UnsafeRawPointer(x)
        var p1 = SIMD8<Float>()
        var p2 = SIMD8<Float>()
        var p3 = SIMD8<Float>()
        for k in taps {
            let v = raw.loadUnaligned(fromByteOffset: 8 * k, as: SIMD8<Float>.self)
            p1 = p1 + c[k] * v
            p2 = p2 + c[width + k] * v
            p3 = p3 + c[2 * width + k] * v
        }
        let magnitude = SIMD8<Int32>(repeating: 0x7fff_ffff)
        let over =
            (SIMD8(repeating: limits[0]) &- (unsafeBitCast(p1, to: SIMD8<Int32>.self) & magnitude))
            | (SIMD8(repeating: limits[1]) &- (unsafeBitCast(p2, to: SIMD8<Int32>.self) & magnitude))
            | (SIMD8(repeating: limits[2]) &- (unsafeBitCast(p3, to: SIMD8<Int32>.self) & magnitude))
        let half = over.lowHalf | over.highHalf
        let quarter = half.lowHalf | half.highHalf
        return (quarter[0] | quarter[1]) >= 0
    }

    /// The largest |sample| of `buffer` (NaN if one is NaN): the magnitudes' bit patterns, which order as the
    /// magnitudes do (a NaN's above infinity's), so the loop is an integer maximum that vectorizes.
    @inline(never)
    static func largestMagnitude(_ buffer: UnsafeMutablePointer<Float>, count: Int) -> Float {
        var m: Int32 = 0
        for i in 0..<count { m = max(m, Int32(bitPattern: buffer[i].bitPattern & 0x7fff_ffff)) }
        return Float(bitPattern: UInt32(bitPattern: m))
    }

    /// True when every |sample| is at most `limit` (false for a NaN). Kept out of line so it stays a vector loop.
    @inline(never)
    static func allWithin(_ buffer: UnsafeMutablePointer<Float>, count: Int, limit: Float) -> Bool {
        var over: UInt8 = 0
        for i in 0..<count { over |= abs(buffer[i]) <= limit ? 0 : 1 }
        return over == 0
    }
}
