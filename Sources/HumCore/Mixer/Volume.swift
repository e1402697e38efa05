/// The 0–100 volume scale people see, and the linear gain the mixer applies.
///
/// The curve is cubic (gain = (v/100)³), the same perceptual scale PulseAudio's volume uses: 100 is unity,
/// 50 is −18 dB, 25 is −36 dB, 0 is silence. Equal steps on the scale sound like roughly equal steps in loudness.
public enum Volume {
    public static let range: ClosedRange<Double> = 0...100
    public static let `default`: Double = 50

    @inline(__always)
    public static func gain(_ volume: Float) -> Float {
        let v = min(max(volume, 0), 100) / 100
        return v * v * v
    }
}
