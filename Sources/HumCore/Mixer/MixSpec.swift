/// One `SOUND[=VOLUME]` word of a mix on the command line.
public struct MixToken: Equatable, Sendable, Codable {
    public var name: String
    public var volume: Double

    public init(name: String, volume: Double) {
        self.name = name
        self.volume = volume
    }
}

/// Parses mix words: `rain=40`, `brown` (volume 75, `Volume.default`), `./my=file.wav=30` (the last `=` splits name and
/// volume).
public enum MixSpec {
    public enum ParseError: Error, Equatable, Sendable {
        case emptyName(String)
        case badVolume(String)
        case volumeOutOfRange(String)
        /// `NAME~N` with an N that is not a rate of events (see `MixSpec.eventMark`).
        case badEventRate(String)

        /// A line for people, naming the bad word and what to try.
        public var message: String {
            switch self {
            case .emptyName(let w): return "\(w.quoted) names no sound; write SOUND=VOLUME, for example rain=40"
            case .badVolume(let w):
                return
                    "\(w.quoted) has no valid volume after '='; write SOUND=VOLUME with VOLUME from 0 to 100, for "
                    + "example rain=40"
            case .volumeOutOfRange(let w): return "the volume in \(w.quoted) is outside 0–100; for example rain=40"
            case .badEventRate(let w):
                return
                    "\(w.quoted) has no valid number of events an hour after '~'; write SOUND~N with N above 0 and "
                    + "at most \(formatVolume(MixSpec.maximumEventsPerHour)), for example thunder~20"
            }
        }
    }

    public static func parse(_ word: String) throws(ParseError) -> MixToken {
        guard let eq = word.lastIndex(of: "=") else {
            guard !word.isEmpty else { throw .emptyName(word) }
            try checkEventMark(word, in: word)
            return MixToken(name: word, volume: Volume.default)
        }
        let name = String(word[..<eq])
        try checkEventMark(name, in: word)
        var text = String(word[word.index(after: eq)...])
        if text.hasSuffix("%") { text.removeLast() }
        guard !name.isEmpty else { throw .emptyName(word) }
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }),
            let volume = Double(text), volume.isFinite
        else { throw .badVolume(word) }
        guard let checked = Volume.checked(volume) else { throw .volumeOutOfRange(word) }
        return MixToken(name: name, volume: checked)
    }

    /// The words for a mix, as a person would type them again (`rain=40 brown=25`).
    public static func format(_ mix: [MixToken]) -> String {
        mix.map { "\($0.name)=\(formatVolume($0.volume))" }.joined(separator: " ")
    }

    /// `40`, `12.5`; never `-0`.
    public static func formatVolume(_ v: Double) -> String {
        v == 0 ? "0" : v == v.rounded() && abs(v) < 1e18 ? String(Int(v)) : String(v)
    }
}
