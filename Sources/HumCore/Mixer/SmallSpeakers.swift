/// What the mix plays on (the setting `play.speakers`): full-range speakers or headphones, or small ones (a
/// laptop's, a phone's) that give little below 150 Hz. The library is matched in loudness on full-range playback;
/// on small speakers the sounds whose weight is in the bass fall behind (heartbeat 13 LU, train 8, thunder 4 with
/// a 150 Hz high-pass), so `small` high-passes every loop at 150 Hz when it is loaded and lifts each by what it lost.
public enum SpeakerSize: String, CaseIterable, Sendable {
    case full, small

    /// The high-pass's cutoff for small speakers.
    public static let smallCutoffHz = 150.0
    /// The most a sound is lifted to make up for what the high-pass took (the heartbeat needs about 13 dB).
    public static let maximumLiftDB = 20.0
}

/// A second-order Butterworth high-pass (the bilinear transform of s² / (s² + s√2 + 1), prewarped), run in
/// Double, with its state: one per channel.
public struct HighPassFilter: Sendable {
    let b0: Double
    let b1: Double
    let b2: Double
    let a1: Double
    let a2: Double
    private var x1 = 0.0
    private var x2 = 0.0
    private var y1 = 0.0
    private var y2 = 0.0

    public init(cutoffHz: Double, sampleRate: Int) {
        precondition(cutoffHz > 0 && cutoffHz < Double(sampleRate) / 4, "a cutoff under a quarter of the rate")
        let w = 2 * Double.pi * cutoffHz / Double(sampleRate)
        let cosw = VoiceFade.cos(w)  // w is under π/2 for any cutoff under a quarter of the rate
        let alpha = VoiceFade.sin(w) / 2.0.squareRoot()  // sin(w) / (2Q), Q = 1/√2
        let a0 = 1 + alpha
        b0 = (1 + cosw) / 2 / a0
        b1 = -(1 + cosw) / a0
        b2 = (1 + cosw) / 2 / a0
        a1 = -2 * cosw / a0
        a2 = (1 - alpha) / a0
    }

    /// The next output for input `x`.
    public mutating func step(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x
        y2 = y1
        y1 = y
        return y
    }
}

extension LoopBuffer {
    /// The loop's samples, interleaved (16-bit, full scale 32768), for measuring.
    public func withSamples<R>(_ body: (UnsafeBufferPointer<Int16>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: samples, count: frames * channels))
    }

    /// High-passes the loop in place, as a loop: the filter runs over the loop's end first (at least half a
    /// second, round again for a shorter loop), so it meets the start with the state the wrap gives it and the
    /// wrap stays as smooth as the rest. Only while the loop is being made, before a mixer holds it (the loop is
    /// otherwise immutable), and never on the audio thread.
    public func highPass(_ filter: HighPassFilter, primingFrames: Int) {
        for c in 0..<channels {
            var state = filter
            func step(_ x: Double) -> Double { state.step(x) }
            // Priming: the last `primingFrames` frames before the start, as the loop plays them.
            var from = frames - primingFrames % frames
            for _ in 0..<(primingFrames / frames) {
                for f in 0..<frames { _ = step(Double(samples[f * channels + c])) }
            }
            while from < frames {
                _ = step(Double(samples[from * channels + c]))
                from += 1
            }
            for f in 0..<frames {
                let i = f * channels + c
                samples[i] = LoopBuffer.quantize(Float(step(Double(samples[i])) / 32768))
            }
        }
    }
}
