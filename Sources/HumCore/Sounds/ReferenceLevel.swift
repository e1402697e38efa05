/// The level hum's sounds are matched to: every built-in file, every user file (unless played raw) and the focus
/// chime sit at `loudnessLUFS` as heard at volume 100, so any two sound equally loud at the same volume. See
/// docs/sounds.md, "Level", for why these numbers.
public enum ReferenceLevel {
    /// Integrated loudness (EBU R128) of every built-in file, and the target of loudness matching.
    public static let loudnessLUFS = -23.0
    /// The highest true peak of a built-in file, dBTP.
    public static let builtinTruePeakDBTP = -1.0
}
