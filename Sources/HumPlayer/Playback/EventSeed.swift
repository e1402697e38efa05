import HumCore

/// The seed a session's one-shot events are drawn from: `HUM_SEED` when set (a whole number, so that a play can
/// be made again, or matched by `hum render --seed`), else a new random one for every session.
public enum EventSeed {
    public static let variable = "HUM_SEED"

    /// `HUM_SEED`'s value, nil when it is unset or empty; a usage error when it is not a seed.
    public static func given(_ variables: [String: String]) throws(PlayerError) -> UInt64? {
        guard let text = variables[variable], !text.isEmpty else { return nil }
        guard let seed = parse(text) else {
            throw .usage(
                "\(variable) \(text.quoted) is not a whole number from 0 to \(UInt64.max); set it to one, or unset it"
                    + " for a new seed each session")
        }
        return seed
    }

    /// The session's seed: `HUM_SEED`, else a random one.
    public static func session(_ variables: [String: String]) throws(PlayerError) -> UInt64 {
        try given(variables) ?? UInt64.random(in: .min ... .max)
    }

    /// A seed written in decimal.
    public static func parse(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(text)
    }
}
