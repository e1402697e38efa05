/// How smoothly a loop's end flows into its start, compared with how it moves anywhere else.
public struct LoopContinuity: Sendable, Equatable {
    /// The largest jump, over all channels, from the last frame to the first.
    public var seamStep: Float
    /// The largest jump, over all channels, between neighbouring frames inside the loop.
    public var largestStep: Float

    /// True when the seam is no bigger a step than the loop already takes somewhere: it cannot be heard as a click.
    public var isSeamless: Bool { seamStep <= largestStep }

    /// Measures interleaved frames.
    public init(interleaved samples: [Float], channels: Int) {
        let frames = channels > 0 ? samples.count / channels : 0
        var seam: Float = 0, largest: Float = 0
        if frames >= 2 {
            for c in 0..<channels {
                var previous = samples[c]
                for f in 1..<frames {
                    let x = samples[f * channels + c]
                    largest = max(largest, abs(x - previous))
                    previous = x
                }
                seam = max(seam, abs(samples[c] - previous))
            }
        }
        seamStep = seam
        largestStep = largest
    }
}
