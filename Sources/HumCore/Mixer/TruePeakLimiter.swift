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
/// block only passes through the delay: the output is the input, delayed, bit for bit.
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

    /// Look-ahead frames (2 ms): the length of the moving average, so of every gain ramp.
    public let lookahead: Int
    /// Frames from a sample entering to leaving: the look-ahead, the margin and the interpolator's lead.
    public let delay: Int
    /// The gain applied to the last frame out (1 at rest).
    public private(set) var gain: Float = 1
    /// Whether quiet blocks skip the frame-by-frame work (off only in tests that compare the two).
    var skipsWork = true

    private let maximumBlock: Int
    private let holdLength: Int
    private let release: Float
    /// Stereo frames: [0, delay) waiting to go out, then the block coming in.
    private let line: UnsafeMutablePointer<Float>
    /// The peak measured for each frame of a block.
    private let peaks: UnsafeMutablePointer<Float>
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
    /// In runs of 64 frames: a run whose samples under the interpolator's taps are all too small to reach the
    /// threshold between them (|x| · 2.35 under it) is not interpolated (its peaks are set to 0: nothing needed).
    private func measure(frames n: Int) -> Float {
        // Frame u = measured + i lies at line frame delay + i − lead; its taps start lag frames before it.
        let first = delay - TruePeakLimiter.interpolatorLead - TruePeakLimiter.interpolatorLag
        let quiet = TruePeakLimiter.threshold / TruePeakLimiter.interpolationBound
        let c = coefficients
        let width = TruePeakLimiter.tapsPerPhase
        var largest: Float = 0
        var start = 0
        while start < n {
            let end = min(n, start + 64)
            if TruePeakLimiter.allWithin(line + 2 * (first + start), count: 2 * (end - start + width - 1), limit: quiet)
            {
                (peaks + start).update(repeating: 0, count: end - start)
                start = end
                continue
            }
            for i in start..<end {
                let x = line + 2 * (first + i)
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
                peaks[i] = peak
                largest = largest.isNaN || peak.isNaN ? .nan : max(largest, peak)
            }
            start = end
        }
        return largest.isNaN ? .infinity : largest
    }

    /// True when every |sample| is at most `limit` (false for a NaN). Kept out of line so it stays a vector loop.
    @inline(never)
    static func allWithin(_ buffer: UnsafeMutablePointer<Float>, count: Int, limit: Float) -> Bool {
        var over: UInt8 = 0
        for i in 0..<count { over |= abs(buffer[i]) <= limit ? 0 : 1 }
        return over == 0
    }
}
