/// The mix a player plays: its sounds in order, each at a volume and maybe muted, and the master volume. A player
/// has exactly one, and it is the only owner of the mix: the mixer's controls are set from it, every view (the
/// live line, the full screen, `hum status`, MPRIS) renders it, and every way of changing it (keys, `hum ctl`,
/// the bus) goes through the operations below.
public struct Mix: Equatable, Sendable, Codable {
    public struct Track: Equatable, Sendable, Codable {
        /// The sound as it is named: a built-in or user sound's name, or a path.
        public var sound: String
        /// The volume on hum's 0–100 scale, kept while muted.
        public var volume: Double
        public var muted: Bool

        public init(sound: String, volume: Double, muted: Bool = false) {
            self.sound = sound
            self.volume = volume == 0 ? 0 : volume  // never −0
            self.muted = muted
        }

        /// What people see: the name, or for a path its file name without folder and extension.
        public var displayName: String {
            guard sound.contains("/") else { return sound }
            let file = sound.split(separator: "/").last.map(String.init) ?? sound
            guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
            return String(file[..<dot])
        }

        /// What the track sounds at: 0 when muted.
        public var audibleVolume: Double { muted ? 0 : volume }

        enum CodingKeys: String, CodingKey { case sound, volume, muted }

        /// A track read from outside (a client, the database) is checked where it enters.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            sound = try c.decode(String.self, forKey: .sound)
            volume = try c.number(.volume, in: Volume.range)
            muted = try c.decodeIfPresent(Bool.self, forKey: .muted) ?? false
            guard !sound.isEmpty, sound.utf8.count <= 4096 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .sound, in: c, debugDescription: "must name a sound in 1 to 4096 bytes")
            }
        }
    }

    public var tracks: [Track]
    /// The master volume, 0–100.
    public var master: Double
    /// The saved mix it came from (`hum play @night`), until it is changed.
    public var name: String?

    public init(tracks: [Track], master: Double = 100, name: String? = nil) {
        self.tracks = tracks
        self.master = master == 0 ? 0 : master  // never −0
        self.name = name
    }

    enum CodingKeys: String, CodingKey { case tracks, master, name }

    /// A mix read from outside is checked where it enters: at most `maximumTracks` sounds, volumes within 0–100.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // The count first: a list too long is refused before its sounds are read one by one.
        let count = try c.nestedUnkeyedContainer(forKey: .tracks).count ?? 0
        guard count <= Mix.maximumTracks else {
            throw DecodingError.dataCorruptedError(
                forKey: .tracks, in: c,
                debugDescription: "has \(count) sounds; a mix has at most \(Mix.maximumTracks)")
        }
        tracks = try c.decode([Track].self, forKey: .tracks)
        master = try c.numberIfPresent(.master, in: Volume.range) ?? 100
        name = try c.decodeIfPresent(String.self, forKey: .name)
    }

    /// The most sounds one mix holds.
    public static let maximumTracks = 64

    public init(tokens: [MixToken], master: Double = 100, name: String? = nil) {
        self.init(tracks: tokens.map { Track(sound: $0.name, volume: $0.volume) }, master: master, name: name)
    }

    /// The mix as words a person would type again (`rain=40 brown=25`), mutes left out.
    public var tokens: [MixToken] { tracks.map { MixToken(name: $0.sound, volume: $0.volume) } }

    /// Why a change could not be made. Messages name the sound and what to do.
    public enum Problem: Error, Equatable, Sendable {
        case noSuchSound(String, inMix: [String])
        case volumeOutOfRange(Double)
        case alreadyThere(String)
        case empty
        case full
        case badName(String)

        public var message: String {
            switch self {
            case .noSuchSound(let sound, let names):
                let list = names.isEmpty ? "the mix is empty" : "the mix has " + names.joined(separator: ", ")
                return "\(sound.quoted) is not in the mix; \(list)"
            case .volumeOutOfRange(let v): return "volume \(v) is outside 0–100"
            case .alreadyThere(let sound): return "\(sound.quoted) is already in the mix; change its volume instead"
            case .empty: return "a mix needs at least one sound"
            case .full: return "a mix holds at most \(Mix.maximumTracks) sounds; remove one first"
            case .badName(let name):
                return
                    "\(name.quoted) cannot name a mix: use 1 to 64 letters, digits, '-', '_' or '.', like night or "
                    + "deep-work"
            }
        }
    }

    /// The track a name refers to: the exact name, else the only one that matches ignoring case, else the only
    /// one shown by that name (a file played by its path is shown, and so can be named, by its file name).
    public func index(of sound: String) -> Int? {
        if let exact = tracks.firstIndex(where: { $0.sound == sound }) { return exact }
        let matches = tracks.indices.filter { tracks[$0].sound.lowercased() == sound.lowercased() }
        if matches.count == 1 { return matches[0] }
        let shown = tracks.indices.filter { tracks[$0].displayName.lowercased() == sound.lowercased() }
        return shown.count == 1 ? shown[0] : nil
    }

    private func require(_ sound: String) throws(Problem) -> Int {
        guard let i = index(of: sound) else { throw .noSuchSound(sound, inMix: tracks.map(\.sound)) }
        return i
    }

    private static func check(_ volume: Double) throws(Problem) -> Double {
        guard let checked = Volume.checked(volume) else { throw .volumeOutOfRange(volume) }
        return checked
    }

    /// Sets a track's volume (and unmutes it: a volume asked for is a volume meant to be heard).
    public mutating func setVolume(_ volume: Double, of sound: String) throws(Problem) {
        let i = try require(sound)
        tracks[i].volume = try Mix.check(volume)
        tracks[i].muted = false
        name = nil
    }

    /// Mutes, unmutes, or with nil toggles a track. Returns whether it is muted now.
    @discardableResult
    public mutating func mute(_ sound: String, _ muted: Bool? = nil) throws(Problem) -> Bool {
        let i = try require(sound)
        tracks[i].muted = muted ?? !tracks[i].muted
        name = nil
        return tracks[i].muted
    }

    /// Adds a sound at the end. Returns its index.
    @discardableResult
    public mutating func add(_ sound: String, volume: Double) throws(Problem) -> Int {
        if index(of: sound) != nil { throw .alreadyThere(sound) }
        if tracks.count >= Mix.maximumTracks { throw .full }
        tracks.append(Track(sound: sound, volume: try Mix.check(volume)))
        name = nil
        return tracks.count - 1
    }

    /// Removes a sound. Returns the index it had.
    @discardableResult
    public mutating func remove(_ sound: String) throws(Problem) -> Int {
        let i = try require(sound)
        tracks.remove(at: i)
        name = nil
        return i
    }

    public mutating func setMaster(_ volume: Double) throws(Problem) {
        master = try Mix.check(volume)
    }

    /// Checks the name a mix is saved under (`night`, `deep-work`): it follows `@` on command lines, so it is kept
    /// to letters, digits, '-', '_' and '.', not starting with '-' or '.'.
    public static func checkName(_ name: String) throws(Problem) {
        guard (1...64).contains(name.count), let first = name.first, first != "-", first != ".",
            name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
        else { throw .badName(name) }
    }

    /// `rain 40 · brown 25 · fan muted`: the mix as a status line shows it.
    public var summary: String {
        tracks.map { "\($0.sound) \($0.muted ? "muted" : MixSpec.formatVolume($0.volume))" }.joined(separator: " · ")
    }
}
