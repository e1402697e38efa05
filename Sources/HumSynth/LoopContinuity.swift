import HumCore

/// How smoothly a loop's end flows into its start, compared with how it moves anywhere else.
public struct LoopContinuity: Sendable, Equatable {
    /// The largest jump, over all channels, from the last frame to the first.
    public var seamStep: Float
    /// The largest jump, over all channels, between neighbouring frames inside the loop.
    public var largestStep: Float
    /// The jump that 99.9% of the steps inside the loop stay under (the largest channel's): a large step that
    /// is still ordinary for this sound, unlike `largestStep`, which one odd transient can set.
    public var ordinaryLargeStep: Float

    /// True when the seam is no bigger a step than the loop already takes somewhere: it cannot be heard as a click.
    public var isSeamless: Bool { seamStep <= largestStep }

    /// Measures interleaved frames.
    public init(interleaved samples: [Float], channels: Int) {
        let frames = channels > 0 ? samples.count / channels : 0
        var seam: Float = 0
        var largest: Float = 0
        var ordinary: Float = 0
        if frames >= 2 {
            for c in 0..<channels {
                var channelLargest: Float = 0
                var previous = samples[c]
                for f in 1..<frames {
                    let x = samples[f * channels + c]
                    channelLargest = max(channelLargest, abs(x - previous))
                    previous = x
                }
                seam = max(seam, abs(samples[c] - previous))
                largest = max(largest, channelLargest)
                ordinary = max(
                    ordinary,
                    Self.percentileStep(
                        samples, channel: c, channels: channels, frames: frames,
                        largest: channelLargest, fraction: 0.999))
            }
        }
        seamStep = seam
        largestStep = largest
        ordinaryLargeStep = ordinary
    }

    /// The step size that `fraction` of one channel's steps stay under, to 1/4096 of the largest step (a histogram
    /// instead of a sort: linear time, so tests can afford it on every file).
    static func percentileStep(
        _ samples: [Float], channel c: Int, channels: Int, frames: Int, largest: Float,
        fraction: Double
    ) -> Float {
        guard largest > 0 else { return 0 }
        let bins = 4096
        var counts = [Int](repeating: 0, count: bins)
        let scale = Float(bins) / largest
        var previous = samples[c]
        for f in 1..<frames {
            let x = samples[f * channels + c]
            counts[min(bins - 1, Int(abs(x - previous) * scale))] += 1
            previous = x
        }
        let wanted = Int((Double(frames - 1) * fraction).rounded(.up))
        var seen = 0
        for b in 0..<bins {
            seen += counts[b]
            if seen >= wanted { return Float(b + 1) / scale }
        }
        return largest
    }
}
