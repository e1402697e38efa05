/// A sound entering or leaving a playing mix: an equal-power fade, gain = sin(π/2 · p) for p from 0 (silent) to 1
/// (full), p moving at an even pace.
///
/// Equal power because the sounds hum mixes are uncorrelated ambience: when one mix crossfades into another, the
/// sound leaving follows cos and the sound entering sin over the same frames, so their powers add up to the same
/// total all along (a linear crossfade dips by 3 dB in the middle). A sound added alone is heard within a tenth of
/// the fade (−16 dB) and swells gently to its volume; a sound removed alone holds its level at first and then
/// falls away. The curve starts and ends on exact values (0 and 1), so a finished fade leaves no residue.
///
/// A fade is counted in whole frames along a swing of `length` frames: reversing midway (a sound removed while it
/// was still coming in) continues from the same gain, and a fade of another length keeps the gain too.
public struct VoiceFade: Sendable, Equatable {
    /// Frames along the swing: 0 silent, `length` full.
    public private(set) var position: Int
    /// Frames of a whole swing from silence to full.
    public private(set) var length: Int
    /// +1 entering, −1 leaving, 0 at rest.
    public private(set) var direction: Int

    /// At full gain, at rest.
    public static let full = VoiceFade(position: 1, length: 1, direction: 0)

    /// Silent, about to enter over `frames`.
    public static func entering(frames: Int) -> VoiceFade {
        var fade = VoiceFade(position: 0, length: 1, direction: 0)
        fade.enter(frames: frames)
        return fade
    }

    public var isMoving: Bool { direction != 0 }
    /// Silent and at rest: a sound that has left.
    public var isGone: Bool { position == 0 && direction == 0 }
    /// The gain now.
    public var gain: Float { Float(VoiceFade.sinQuarter(position, of: length)) }

    /// Moves toward full, a whole swing taking `frames` (at least one).
    public mutating func enter(frames: Int) { move(to: 1, frames: frames) }
    /// Moves toward silence, a whole swing taking `frames` (at least one).
    public mutating func leave(frames: Int) { move(to: -1, frames: frames) }

    private mutating func move(to newDirection: Int, frames: Int) {
        let frames = max(1, frames)
        if frames != length {
            // The same point of the swing on the new scale: the gain does not jump.
            // Rounded to the nearest frame in integers (both are at most 2³⁰: the product fits).
            position = (position * frames + length / 2) / length
            length = frames
        }
        direction = newDirection
        if (direction > 0 && position >= length) || (direction < 0 && position <= 0) { direction = 0 }
    }

    /// sin(π/2 · position/length).
    static func sinQuarter(_ position: Int, of length: Int) -> Double {
        if position <= 0 { return 0 }
        if position >= length { return 1 }
        return sin(Double.pi / 2 * Double(position) / Double(length))
    }

    /// sin(x) for |x| ≤ π/2 by its Taylor series to x¹⁹ (within 1e-16 there). Written out for the audio thread:
    /// no rounding call and nothing generic, so it needs no runtime metadata.
    @inline(__always)
    static func sin(_ x: Double) -> Double {
        let x2 = x * x
        var term = x
        var sum = x
        var k = 1
        while k <= 9 {
            term *= -x2 / Double((2 * k) * (2 * k + 1))
            sum += term
            k += 1
        }
        return sum
    }

    /// cos(x) for |x| ≤ π/2.
    @inline(__always)
    static func cos(_ x: Double) -> Double { sin(Double.pi / 2 - abs(x)) }

    /// Multiplies `gains[0..<frames]` by the fade's gain at each of the next frames, and advances.
    ///
    /// The sine is turned one frame at a time by a fixed rotation (two multiplies and adds per frame, in Double,
    /// from an exact start each block); the frames after the end of the swing get the exact end value.
    @inline(__always)
    public mutating func apply(to gains: UnsafeMutablePointer<Float>, frames: Int) {
        guard direction != 0 else {
            if position == 0 {
                gains.update(repeating: 0, count: frames)
            }
            return
        }
        let moving = direction > 0 ? min(frames, length - position) : min(frames, position)
        let step = Double(direction) * Double.pi / 2 / Double(length)
        let stepSin = VoiceFade.sin(step)
        let stepCos = VoiceFade.cos(step)
        let start = Double.pi / 2 * Double(position) / Double(length)
        var s = VoiceFade.sin(start)
        var c = VoiceFade.cos(start)
        for i in 0..<moving {
            (s, c) = (s * stepCos + c * stepSin, c * stepCos - s * stepSin)
            gains[i] *= Float(min(1, max(0, s)))
        }
        position += direction * moving
        if position <= 0 || position >= length {
            // The end of the swing: exactly silent from its last frame on (full needs nothing more).
            direction = 0
            if position <= 0 {
                if moving > 0 { gains[moving - 1] = 0 }
                (gains + moving).update(repeating: 0, count: frames - moving)
            }
        }
    }

    /// Advances by `frames` without computing gains (for a sound that is silent anyway).
    @inline(__always)
    public mutating func advance(_ frames: Int) {
        guard direction != 0 else { return }
        position = min(length, max(0, position + direction * frames))
        if position <= 0 || position >= length { direction = 0 }
    }
}
