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
        case v, id, cmd, sound, volume, muted, seconds, mix, focus
    }

    /// Why a request line was refused: the reply's message.
    public struct Refusal: Error, Equatable, Sendable {
        public var message: String
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let version = try c.decodeIfPresent(Int.self, forKey: .v) ?? ControlProtocol.version
        guard version == ControlProtocol.version else {
            throw Refusal(
                message: "protocol version \(version) is not spoken here; this player speaks \(ControlProtocol.version)"
            )
        }
        id = try c.decodeIfPresent(Int64.self, forKey: .id)
        let name = try c.decode(String.self, forKey: .cmd)
        func sound() throws -> String { try c.decode(String.self, forKey: .sound) }
        func volume() throws -> Double { try c.decode(Double.self, forKey: .volume) }
        switch name {
        case "status": command = .status
        case "subscribe": command = .subscribe
        case "pause": command = .pause
        case "resume": command = .resume
        case "toggle": command = .toggle
        case "skip": command = .skip
        case "restart": command = .restart
        case "stop": command = .stop
        case "end-focus": command = .endFocus
        case "extend": command = .extend(seconds: try c.decodeIfPresent(Int64.self, forKey: .seconds))
        case "volume": command = .volume(sound: try sound(), volume: try volume())
        case "add":
            command = .add(
                sound: try sound(), volume: try c.decodeIfPresent(Double.self, forKey: .volume) ?? Volume.default)
        case "remove": command = .remove(sound: try sound())
        case "mute": command = .mute(sound: try sound(), muted: try c.decodeIfPresent(Bool.self, forKey: .muted))
        case "master": command = .master(volume: try volume())
        case "play": command = .play(try c.decode(Mix.self, forKey: .mix))
        case "focus": command = .focus(try c.decode(FocusRequest.self, forKey: .focus))
        default: throw Refusal(message: "unknown command \(name.quoted)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(ControlProtocol.version, forKey: .v)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encode(command.name, forKey: .cmd)
        switch command {
        case .status, .subscribe, .pause, .resume, .toggle, .skip, .restart, .stop, .endFocus: break
        case .extend(let seconds): try c.encodeIfPresent(seconds, forKey: .seconds)
        case .volume(let sound, let volume), .add(let sound, let volume):
            try c.encode(sound, forKey: .sound)
            try c.encode(volume, forKey: .volume)
        case .remove(let sound): try c.encode(sound, forKey: .sound)
        case .mute(let sound, let muted):
            try c.encode(sound, forKey: .sound)
            try c.encodeIfPresent(muted, forKey: .muted)
        case .master(let volume): try c.encode(volume, forKey: .volume)
        case .play(let mix): try c.encode(mix, forKey: .mix)
        case .focus(let request): try c.encode(request, forKey: .focus)
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
    /// `usage` (the request was wrong) or `failure` (it could not be done).
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
        self.kind = kind == .usage ? "usage" : "failure"
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
