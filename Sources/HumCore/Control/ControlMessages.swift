/// The control protocol's messages (docs/control.md): one JSON object per line, each with the protocol version
/// `v`. Pure values; the socket adapter encodes and decodes them.
public enum ControlProtocol {
    public static let version = 1
    /// The longest line either side accepts, newline included.
    public static let maximumMessageBytes = 64 * 1024
}

/// A client's request: `{"v":1,"id":7,"cmd":"volume","sound":"rain","volume":40}`.
public struct ControlRequest: Equatable, Sendable {
    public var id: Int64?
    public var command: PlayerCommand

    public init(id: Int64?, command: PlayerCommand) {
        self.id = id
        self.command = command
    }
}

extension ControlRequest: Codable {
    enum Keys: String, CodingKey {
        case v, id, cmd, sound, volume, by, muted, seconds, mix, focus, shield, forfeit, reason
        case strictNote = "strict_note"
    }

    /// Why a request line was refused: the reply's message, and the request's id when it could be read.
    public struct Refusal: Error, Equatable, Sendable {
        public var message: String
        public var id: Int64?

        public init(message: String, id: Int64? = nil) {
            self.message = message
            self.id = id
        }
    }

    /// Every field is checked here, where the request enters: a number out of its range (docs/control.md gives
    /// each one) is refused with what is wanted and what came, never clamped into something else.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        do {
            id = try c.integerIfPresent(.id, in: Int64.min...Int64.max, "an integer")
        } catch {
            throw Refusal(message: ControlRequest.describe(error))
        }
        do {
            command = try ControlRequest.command(c)
        } catch let refusal as Refusal {
            throw Refusal(message: refusal.message, id: id)
        } catch {
            throw Refusal(message: ControlRequest.describe(error), id: id)
        }
    }

    private static func command(_ c: KeyedDecodingContainer<Keys>) throws -> PlayerCommand {
        let version = try c.integerIfPresent(.v, in: Int.min...Int.max, "an integer") ?? ControlProtocol.version
        guard version == ControlProtocol.version else {
            throw Refusal(
                message: "protocol version \(version) is not spoken here; this player speaks \(ControlProtocol.version)"
            )
        }
        let name = try c.decode(String.self, forKey: .cmd)
        func sound() throws -> String { try c.decode(String.self, forKey: .sound) }
        func volume() throws -> Double { try c.number(.volume, in: Volume.range) }
        /// A relative step (`by`), when the request has one instead of a `volume`.
        func step() throws -> Double? {
            guard c.contains(.by) else { return nil }
            guard !c.contains(.volume) else {
                throw Refusal(message: "give either \"volume\" (where to) or \"by\" (a step), not both")
            }
            return try c.number(.by, in: PlayerCommand.volumeStep)
        }
        switch name {
        case "status": return .status
        case "subscribe": return .subscribe
        case "pause": return .pause
        case "resume": return .resume
        case "toggle": return .toggle
        case "skip": return .skip
        case "restart": return .restart
        case "stop": return .stop
        case "end-focus": return .endFocus
        case "extend":
            return .extend(
                seconds: try c.integerIfPresent(
                    .seconds, in: PlayerCommand.extendSeconds, "a whole number of seconds from 1 to 86400 (24 h)"))
        case "volume":
            if let step = try step() { return .volumeBy(sound: try sound(), step: step) }
            return .volume(sound: try sound(), volume: try volume())
        case "add":
            return .add(sound: try sound(), volume: try c.numberIfPresent(.volume, in: Volume.range) ?? Volume.default)
        case "remove": return .remove(sound: try sound())
        case "mute": return .mute(sound: try sound(), muted: try c.decodeIfPresent(Bool.self, forKey: .muted))
        case "master":
            if let step = try step() { return .masterBy(step: step) }
            return .master(volume: try volume())
        case "play": return .play(try c.decode(Mix.self, forKey: .mix))
        case "focus": return .focus(try c.decode(FocusRequest.self, forKey: .focus))
        case "shields": return .shields
        case "lift":
            let shield = try c.decode(String.self, forKey: .shield)
            guard (try? Shield.checkedName(shield)) != nil else {
                throw Refusal(message: "\"shield\" must be a shield's name; got \(shield.quoted)")
            }
            return .lift(
                ShieldLiftRequest(
                    shield: shield,
                    seconds: try c.integer(
                        .seconds, in: ShieldLiftRequest.secondsRange, "a whole number of seconds from 1 to 86400 (24 h)"
                    ),
                    forfeit: try c.decodeIfPresent(Bool.self, forKey: .forfeit) ?? false,
                    emergency: try c.decodeIfPresent(String.self, forKey: .reason),
                    strictNote: try c.decodeIfPresent(String.self, forKey: .strictNote)))
        case "end-lift":
            let shield = try c.decodeIfPresent(String.self, forKey: .shield)
            if let shield, (try? Shield.checkedName(shield)) == nil {
                throw Refusal(message: "\"shield\" must be a shield's name; got \(shield.quoted)")
            }
            return .endLift(shield: shield)
        default: throw Refusal(message: "unknown command \(name.quoted)")
        }
    }

    /// What is wrong with a request that could not be read, for the reply: the field (by its path, like
    /// `"mix.tracks[2].volume"`) and what it must be.
    public static func describe(_ error: any Error) -> String {
        switch error {
        case let refusal as Refusal: return refusal.message
        case DecodingError.keyNotFound(let key, let c):
            return "not a request: missing \"\(path(c.codingPath + [key]))\""
        case DecodingError.typeMismatch(_, let c) where c.codingPath.isEmpty:
            return "not a request: a request is a JSON object, like {\"v\":1,\"id\":1,\"cmd\":\"status\"}"
        case DecodingError.typeMismatch(let type, let c), DecodingError.valueNotFound(let type, let c):
            let field = "\"\(path(c.codingPath))\""
            guard let wanted = wantedType(type) else { return "not a request: \(field) has the wrong type" }
            return "not a request: \(field) must be \(wanted)"
        case DecodingError.dataCorrupted(let c) where !c.codingPath.isEmpty:
            return "\"\(path(c.codingPath))\" \(c.debugDescription)"
        default: return "not a request: invalid JSON"
        }
    }

    /// `mix.tracks[2].volume`.
    static func path(_ keys: [any CodingKey]) -> String {
        var out = ""
        for key in keys {
            if let index = key.intValue, key.stringValue.hasPrefix("Index") {
                out += "[\(index)]"
            } else {
                out += (out.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return out
    }

    private static func wantedType(_ type: Any.Type) -> String? {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type, is Int64.Type, is Int32.Type: return "an integer"
        case is [String].Type: return "a list of strings"
        default: return nil
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(ControlProtocol.version, forKey: .v)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(command.name, forKey: .cmd)
        switch command {
        case .status, .subscribe, .pause, .resume, .toggle, .skip, .restart, .stop, .endFocus, .shields: break
        case .extend(let seconds): try c.encodeIfPresent(seconds, forKey: .seconds)
        case .volume(let sound, let volume), .add(let sound, let volume):
            try c.encode(sound, forKey: .sound)
            try c.encode(volume, forKey: .volume)
        case .remove(let sound): try c.encode(sound, forKey: .sound)
        case .mute(let sound, let muted):
            try c.encode(sound, forKey: .sound)
            try c.encodeIfPresent(muted, forKey: .muted)
        case .master(let volume): try c.encode(volume, forKey: .volume)
        case .volumeBy(let sound, let step):
            try c.encode(sound, forKey: .sound)
            try c.encode(step, forKey: .by)
        case .masterBy(let step): try c.encode(step, forKey: .by)
        case .play(let mix): try c.encode(mix, forKey: .mix)
        case .focus(let request): try c.encode(request, forKey: .focus)
        case .lift(let request):
            try c.encode(request.shield, forKey: .shield)
            try c.encode(request.seconds, forKey: .seconds)
            try c.encode(request.forfeit, forKey: .forfeit)
            try c.encodeIfPresent(request.emergency, forKey: .reason)
            try c.encodeIfPresent(request.strictNote, forKey: .strictNote)
        case .endLift(let shield): try c.encodeIfPresent(shield, forKey: .shield)
        }
    }
}

/// What the player sends: a reply to a request (`id`, `ok`, the status or an error), or an event to subscribers
/// (`event`, what changed, the status).
public struct ControlReply: Equatable, Sendable, Codable {
    public var v = ControlProtocol.version
    public var id: Int64?
    public var ok: Bool
    public var status: PlayerStatus?
    /// The error's message, for people.
    public var error: String?
    /// `usage` (the request was wrong), `failure` (it could not be done) or `refused` (the ledger's rules said
    /// no): the kind of error, so a client exits as the command line would (2, 1, 3).
    public var kind: String?

    public init(id: Int64?, status: PlayerStatus) {
        self.id = id
        ok = true
        self.status = status
    }

    public init(id: Int64?, error: String, kind: FailureKind) {
        self.id = id
        ok = false
        self.error = error
        self.kind = kind.wireName
    }
}

/// An event to subscribers: `{"v":1,"event":"changed","what":["mix"],"status":{…}}`.
public struct ControlEvent: Equatable, Sendable, Codable {
    /// What changed, like mpd's idle subsystems.
    public enum Subsystem: String, Equatable, Sendable, Codable, CaseIterable {
        /// Playing, paused, stopping.
        case state
        /// Sounds, volumes, mutes, the master.
        case mix
        /// Phase, round, pause of the focus rounds; a deadline that moved.
        case focus
        /// The note (device lost and back).
        case note
        /// The shields' states (up, lifted, off): the guard read them again or one changed.
        case shields
    }

    public var v = ControlProtocol.version
    public var event = "changed"
    public var what: [Subsystem]
    public var status: PlayerStatus

    public init(what: [Subsystem], status: PlayerStatus) {
        self.what = what
        self.status = status
    }
}

/// Numbers read from outside (a client's request, a stored mix): each is checked against its range where it enters,
/// and refused with a message that names what is wanted and what came (`must be a number from 0 to 100; got 300`).
/// −0 is read as 0.
extension KeyedDecodingContainer {
    /// A number within `range`; nil when absent or null.
    func numberIfPresent(_ key: Key, in range: ClosedRange<Double>, _ wanted: String? = nil) throws -> Double? {
        guard let value = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard value.isFinite, range.contains(value) else {
            throw refusal(key, wanted ?? "a number from \(show(range.lowerBound)) to \(show(range.upperBound))", value)
        }
        return value == 0 ? 0 : value
    }

    func number(_ key: Key, in range: ClosedRange<Double>, _ wanted: String? = nil) throws -> Double {
        if let value = try numberIfPresent(key, in: range, wanted) { return value }
        return try decode(Double.self, forKey: key)  // throws: the key is missing or null
    }

    /// A whole number within `range`; nil when absent or null. A number with a fraction, or one too large for the
    /// type, is refused like one out of range.
    func integerIfPresent<I: FixedWidthInteger & Decodable>(
        _ key: Key, in range: ClosedRange<I>, _ wanted: String? = nil
    ) throws -> I? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        let wanted = wanted ?? "a whole number from \(range.lowerBound) to \(range.upperBound)"
        let exact: I
        do {
            exact = try decode(I.self, forKey: key)
        } catch {
            // Not a whole number of this type: say what came if it is a number; otherwise the type is wrong.
            guard let number = try? decode(Double.self, forKey: key) else { throw error }
            throw refusal(key, wanted, number)
        }
        guard range.contains(exact) else { throw refusal(key, wanted, Double(exact), exactly: "\(exact)") }
        return exact
    }

    func integer<I: FixedWidthInteger & Decodable>(_ key: Key, in range: ClosedRange<I>, _ wanted: String? = nil)
        throws -> I
    {
        if let value = try integerIfPresent(key, in: range, wanted) { return value }
        return try decode(I.self, forKey: key)  // throws: the key is missing or null
    }

    private func refusal(_ key: Key, _ wanted: String, _ value: Double, exactly: String? = nil) -> DecodingError {
        DecodingError.dataCorruptedError(
            forKey: key, in: self, debugDescription: "must be \(wanted); got \(exactly ?? show(value))")
    }

    private func show(_ value: Double) -> String {
        value == 0 ? "0" : value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
