/// An hour logged by hand without a shield (`hum log 1h --productive`, a nudge's button), as a journal line carries
/// it (`hours.log`): its id (chosen by the device that logged it, so a merge adds each once), the day it counts for
/// (by `day.starts-at` where it was logged), the verdict, its length, where it came from and when it was logged.
public struct HourLogRecord: Sendable, Equatable, Codable {
    public var id: String
    public var day: CivilDate
    public var verdict: HourVerdict
    public var seconds: Int64
    /// `nudge` or `command`.
    public var source: String
    public var at: Timestamp

    public init(id: String, day: CivilDate, verdict: HourVerdict, seconds: Int64, source: String, at: Timestamp) {
        self.id = id
        self.day = day
        self.verdict = verdict
        self.seconds = seconds
        self.source = source
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case id, day, verdict, seconds, source, at
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let day = try c.decode(String.self, forKey: .day)
        guard let date = CivilDate(text: day), date.description == day else {
            throw DecodingError.dataCorruptedError(forKey: .day, in: c, debugDescription: "not a day: \(day)")
        }
        self.init(
            id: try c.decode(String.self, forKey: .id), day: date,
            verdict: try c.decode(HourVerdict.self, forKey: .verdict),
            seconds: try c.decode(Int64.self, forKey: .seconds),
            source: try c.decode(String.self, forKey: .source), at: try c.decode(Timestamp.self, forKey: .at))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(day.description, forKey: .day)
        try c.encode(verdict, forKey: .verdict)
        try c.encode(seconds, forKey: .seconds)
        try c.encode(source, forKey: .source)
        try c.encode(at, forKey: .at)
    }

    /// The sources a log can come from.
    public static let sources: Set<String> = ["nudge", "command"]

    /// What the store's table holds each log to: an id, a length of a second to a day, a known source, a time
    /// within the ledger's bounds. Nil when it holds.
    public func validationProblem() -> String? {
        guard !id.isEmpty, id.utf8.count <= LedgerBounds.idBytes else { return "a logged hour has an empty or long id" }
        guard (1...86_400).contains(seconds) else { return "logged hour \(id): \(seconds)s is not a second to a day" }
        guard Self.sources.contains(source) else { return "logged hour \(id): unknown source \(source)" }
        return LedgerBounds.problem(at, "logged hour \(id): its time")
    }
}
