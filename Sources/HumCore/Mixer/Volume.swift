/// The 0–100 volume scale people see, and the linear gain the mixer applies.
///
/// The curve is cubic (gain = (v/100)³), the same perceptual scale PulseAudio's volume uses: 100 is unity,
/// 50 is −18 dB, 25 is −36 dB, 0 is silence. Equal steps on the scale sound like roughly equal steps in loudness.
public enum Volume {
    public static let range: ClosedRange<Double> = 0...100
    /// A sound named without a volume plays at 75 (−7.5 dB): on the library's −23 LUFS reference that is about
    /// −30.5 LUFS, the level of the default mix, so `hum rain` is as loud as a first `hum`.
    public static let `default`: Double = 75

    /// A volume read from outside (a command line, a request, the database), as hum keeps it: nil when it is not a
    /// number within 0–100, and −0 made 0 (a `-0` typed or sent is 0, and is shown as 0, never `-0`).
    public static func checked(_ volume: Double) -> Double? {
        guard volume.isFinite, range.contains(volume) else { return nil }
        return volume == 0 ? 0 : volume
    }

    @inline(__always)
    public static func gain(_ volume: Float) -> Float {
        let v = min(max(volume, 0), 100) / 100
        return v * v * v
    }
}
