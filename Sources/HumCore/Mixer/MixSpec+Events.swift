/// `NAME~N`: a sound played as one-shot events alone, about N an hour, with no bed (`hum play rain thunder~20`,
/// `thunder~20=60` with a volume). The mark stays part of the sound's name everywhere a mix is kept or shown, so
/// a mix prints back as it was typed.
extension MixSpec {
    /// The most events an hour a mark may ask for: one a second.
    public static let maximumEventsPerHour: Double = 3600

    /// The sound and rate of a name marked `NAME~N`, nil for a name without a mark. A `~` followed by a `/` is
    /// part of a path (`~/sounds/rain.wav`), not a mark.
    public static func eventMark(_ name: String) -> (sound: String, perHour: Double)? {
        guard let tilde = name.lastIndex(of: "~") else { return nil }
        let sound = String(name[..<tilde])
        let text = name[name.index(after: tilde)...]
        guard !sound.isEmpty, !text.contains("/") else { return nil }
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let rate = Double(text),
            rate > 0, rate <= maximumEventsPerHour
        else { return nil }
        return (sound, rate)
    }

    /// Throws when `name` has a mark whose rate is not valid (`thunder~`, `thunder~0`, `thunder~lots`).
    static func checkEventMark(_ name: String, in word: String) throws(ParseError) {
        guard let tilde = name.lastIndex(of: "~"), tilde != name.startIndex else { return }
        guard !name[name.index(after: tilde)...].contains("/") else { return }
        if eventMark(name) == nil { throw .badEventRate(word) }
    }
}
