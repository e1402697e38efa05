/// A per-sample linear ramp from the current gain to a target, so no change of volume is ever a step (no zipper
/// noise, no click). Re-targeting midway starts from wherever the ramp is: still no step.
public struct GainRamp: Sendable {
    public private(set) var current: Float
    public private(set) var target: Float
    private var step: Float = 0
    private var remaining: Int = 0
    /// Length of every ramp in frames (20–50 ms at the output rate; 30 ms by default).
    public let rampFrames: Int

    public init(gain: Float, rampFrames: Int) {
        current = gain
        target = gain
        self.rampFrames = max(1, rampFrames)
    }

    public var isRamping: Bool { remaining > 0 }

    /// Sets a new target; the ramp to it lasts `rampFrames`.
    @inline(__always)
    public mutating func setTarget(_ gain: Float) {
        guard gain != target else { return }
        target = gain
        remaining = rampFrames
        step = (target - current) / Float(rampFrames)
    }

    /// Sets a new target reached after `frames` frames (at least one): a slower move, such as a sound's volume
    /// following a crossfade from one mix to another.
    @inline(__always)
    public mutating func setTarget(_ gain: Float, frames: Int) {
        guard gain != target else { return }
        let frames = max(1, frames)
        target = gain
        remaining = frames
        step = (target - current) / Float(frames)
    }

    /// How many of the next `frames` frames are still ramping.
    @inline(__always)
    public func rampingFrames(within frames: Int) -> Int { min(remaining, frames) }

    /// Advances by `frames`, landing exactly on the target at the end of the ramp.
    @inline(__always)
    public mutating func advance(_ frames: Int) {
        guard remaining > 0 else { return }
        if frames >= remaining {
            remaining = 0
            current = target
        } else {
            remaining -= frames
            current += step * Float(frames)
        }
    }

    /// The per-frame increment while ramping.
    @inline(__always)
    public var increment: Float { remaining > 0 ? step : 0 }
}
