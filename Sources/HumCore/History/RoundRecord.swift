/// What a round of the timer was for.
public enum RoundKind: String, Sendable, Codable, CaseIterable {
    case focus
    case shortBreak = "short-break"
    case longBreak = "long-break"
}

/// How a round ended (or that it is still running).
public enum RoundStatus: String, Sendable, Codable, CaseIterable {
    case running, completed, interrupted, skipped
}

/// One sound of the mix that played during a round.
///
/// Held (and stored in the database) as a fraction, but written and read in JSON on hum's 0–100 scale, as every
/// other output shows a volume (`hum status --json`, `hum mix list --json`, the control protocol). Files of
/// `hum.export/1` and `/2` wrote the fraction: `ImportReader` reads them with `MixVolumeUnit.fraction` in the
/// decoder's `userInfo`.
public struct MixItem: Sendable, Equatable, Codable {
    public var sound: String
    /// The volume as a fraction: hum's 0–100 volume scale divided by 100 (0 when muted).
    public var volume: Double
    public init(sound: String, volume: Double) {
        self.sound = sound
        self.volume = volume
    }

    /// The volume on hum's 0–100 scale, as outputs show it: the shortest decimal that divided by 100 gives the
    /// fraction back exactly (60, not 60.00000000000001, for 0.6), so an export imported again stores the same
    /// fraction and exports the same number. A fraction that no number divided by 100 gives (not one hum makes
    /// itself: those are a 0–100 volume divided by 100) is shown as the nearest that one does, so it moves by at most
    /// one unit in the last place on its first trip, and then exports the same. Not finite stays not finite (JSON
    /// refuses it).
    public var percent: Double { Self.percent(ofFraction: volume) }

    public static func percent(ofFraction fraction: Double) -> Double {
        guard fraction.isFinite else { return fraction }
        if let exact = exactPercent(fraction) { return exact }
        let raw = fraction * 100
        return exactPercent(raw / 100) ?? raw
    }

    /// The shortest decimal `p` with `p / 100 == fraction`, or nil when there is none near `fraction * 100`.
    static func exactPercent(_ fraction: Double) -> Double? {
        let raw = fraction * 100
        guard raw.isFinite else { return nil }
        var scale = 1.0
        for _ in 0...17 {
            let candidate = (raw * scale).rounded() / scale
            if candidate.isFinite, candidate / 100 == fraction { return candidate == 0 ? 0 : candidate }
            scale *= 10
        }
        var up = raw
        var down = raw
        for _ in 0..<4 {
            if up / 100 == fraction { return up }
            if down / 100 == fraction { return down }
            up = up.nextUp
            down = down.nextDown
        }
        return nil
    }

    enum CodingKeys: String, CodingKey { case sound, volume }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sound = try c.decode(String.self, forKey: .sound)
        let written = try c.decode(Double.self, forKey: .volume)
        switch MixVolumeUnit.of(decoder) {
        case .percent: volume = written / 100
        case .fraction: volume = written
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sound, forKey: .sound)
        try c.encode(percent, forKey: .volume)
    }
}

/// How a JSON input writes a mix's volumes: 0–100 (`hum.export/3` and every output of hum now), or a fraction 0–1
/// (`hum.export/1` and `/2`, and session lines without a header, as hum read them before). Given to a decoder in its
/// `userInfo` under `MixVolumeUnit.key`; without it, 0–100.
public enum MixVolumeUnit: Sendable, Equatable {
    case percent, fraction

    public static let key = CodingUserInfoKey(rawValue: "hum.mix-volume-unit")!

    static func of(_ decoder: any Decoder) -> MixVolumeUnit {
        decoder.userInfo[key] as? MixVolumeUnit ?? .percent
    }

    /// The range a volume of this unit is written in, for messages.
    public var rangeText: String { self == .percent ? "0 to 100" : "0 to 1" }
}

/// One round (a session) of the history: focus or break, as it was recorded.
public struct RoundRecord: Sendable, Equatable, Codable {
    public var id: String
    public var kind: RoundKind
    public var status: RoundStatus
    public var start: Timestamp
    /// When it ended; nil while running.
    public var end: Timestamp?
    public var plannedSeconds: Int64
    public var activeSeconds: Int64
    public var pausedSeconds: Int64
    public var mix: [MixItem]
    public var goal: String?
    public var tags: [String]
    /// Seconds granted to the bank (after the daily cap); 0 for a contract's round (its contract is paid).
    public var earnedSeconds: Int64
    /// The contract this round worked toward, if any.
    public var contractID: String? = nil
    /// Recorded by hand (`hum history record`), not timed by hum.
    public var recordedByHand = false

    public init(
        id: String, kind: RoundKind, status: RoundStatus, start: Timestamp, end: Timestamp?,
        plannedSeconds: Int64, activeSeconds: Int64, pausedSeconds: Int64, mix: [MixItem] = [],
        goal: String? = nil, tags: [String] = [], earnedSeconds: Int64 = 0, contractID: String? = nil,
        recordedByHand: Bool = false
    ) {
        self.id = id
        self.kind = kind
        self.status = status
        self.start = start
        self.end = end
        self.plannedSeconds = plannedSeconds
        self.activeSeconds = activeSeconds
        self.pausedSeconds = pausedSeconds
        self.mix = mix
        self.goal = goal
        self.tags = tags
        self.earnedSeconds = earnedSeconds
        self.contractID = contractID
        self.recordedByHand = recordedByHand
    }

    /// Checks every number against `LedgerBounds` (times within a year, instants within 1970 to 9999, volumes
    /// within 0 to 1 as a fraction) and the sizes of the lists. Used on import and by `hum ledger check`; a volume's
    /// range is named in `unit`, the unit the file (or the outputs, for the check) writes. The first problem, or nil.
    public func validationProblem(unit: MixVolumeUnit = .percent) -> String? {
        guard !id.isEmpty, id.utf8.count <= LedgerBounds.idBytes else { return "a session has an empty or overlong id" }
        let seconds: [(String, Int64)] = [
            ("planned", plannedSeconds), ("active", activeSeconds), ("paused", pausedSeconds),
            ("earned", earnedSeconds),
        ]
        for (name, value) in seconds where !LedgerBounds.roundSeconds.contains(value) {
            return "session \(id): \(name) time \(value)s is out of range (0 to 366 days)"
        }
        if let problem = LedgerBounds.problem(start, "session \(id): its start") { return problem }
        if let end, let problem = LedgerBounds.problem(end, "session \(id): its end") { return problem }
        guard mix.count <= LedgerBounds.listCount, tags.count <= LedgerBounds.listCount else {
            return "session \(id): more than \(LedgerBounds.listCount) sounds or tags"
        }
        for item in mix where !(item.volume.isFinite && LedgerBounds.volume.contains(item.volume)) {
            return "session \(id): the volume of \(item.sound) is out of range (\(unit.rangeText))"
        }
        if let contractID, contractID.isEmpty || contractID.utf8.count > LedgerBounds.idBytes {
            return "session \(id): an empty or overlong contract id"
        }
        return nil
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, status, start, end
        case plannedSeconds = "planned_seconds"
        case activeSeconds = "active_seconds"
        case pausedSeconds = "paused_seconds"
        case mix, goal, tags
        case earnedSeconds = "earned_seconds"
        case contractID = "contract_id"
        case recordedByHand = "recorded_by_hand"
    }

    /// Exports written before contracts (`hum.export/1`) have no contract and no hand mark: read as none and false.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        kind = try c.decode(RoundKind.self, forKey: .kind)
        status = try c.decode(RoundStatus.self, forKey: .status)
        start = try c.decode(Timestamp.self, forKey: .start)
        end = try c.decodeIfPresent(Timestamp.self, forKey: .end)
        plannedSeconds = try c.decode(Int64.self, forKey: .plannedSeconds)
        activeSeconds = try c.decode(Int64.self, forKey: .activeSeconds)
        pausedSeconds = try c.decode(Int64.self, forKey: .pausedSeconds)
        mix = try c.decode([MixItem].self, forKey: .mix)
        goal = try c.decodeIfPresent(String.self, forKey: .goal)
        tags = try c.decode([String].self, forKey: .tags)
        earnedSeconds = try c.decode(Int64.self, forKey: .earnedSeconds)
        contractID = try c.decodeIfPresent(String.self, forKey: .contractID)
        recordedByHand = try c.decodeIfPresent(Bool.self, forKey: .recordedByHand) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encode(status, forKey: .status)
        try c.encode(start, forKey: .start)
        try c.encode(end, forKey: .end)  // null while running, so the key is always there
        try c.encode(plannedSeconds, forKey: .plannedSeconds)
        try c.encode(activeSeconds, forKey: .activeSeconds)
        try c.encode(pausedSeconds, forKey: .pausedSeconds)
        try c.encode(mix, forKey: .mix)
        try c.encode(goal, forKey: .goal)
        try c.encode(tags, forKey: .tags)
        try c.encode(earnedSeconds, forKey: .earnedSeconds)
        try c.encode(contractID, forKey: .contractID)
        try c.encode(recordedByHand, forKey: .recordedByHand)
    }
}

/// Totals over a period (a local day or an ISO week).
public struct PeriodSummary: Sendable, Equatable, Codable {
    /// `2025-03-30` for a day, `2025-W13` for a week.
    public var period: String
    /// Active seconds of focus rounds (any status).
    public var focusedSeconds: Int64 = 0
    public var completed: Int = 0
    public var interrupted: Int = 0
    public var skipped: Int = 0
    /// What the period's rounds earned (after the daily cap).
    public var earnedSeconds: Int64 = 0
    /// Spends and the used part of settled passes.
    public var spentSeconds: Int64 = 0
    public var emergencySeconds: Int64 = 0
    /// False when the rounds were filtered (by tag or goal): the ledger's figures (spent, emergency) belong to no
    /// round, so they are left out rather than shown beside rounds they do not match.
    public var includesLedger = true

    public init(period: String) { self.period = period }

    enum CodingKeys: String, CodingKey {
        case period
        case focusedSeconds = "focused_seconds"
        case completed, interrupted, skipped
        case earnedSeconds = "earned_seconds"
        case spentSeconds = "spent_seconds"
        case emergencySeconds = "emergency_seconds"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        period = try c.decode(String.self, forKey: .period)
        focusedSeconds = try c.decode(Int64.self, forKey: .focusedSeconds)
        completed = try c.decode(Int.self, forKey: .completed)
        interrupted = try c.decode(Int.self, forKey: .interrupted)
        skipped = try c.decode(Int.self, forKey: .skipped)
        earnedSeconds = try c.decode(Int64.self, forKey: .earnedSeconds)
        let spent = try c.decodeIfPresent(Int64.self, forKey: .spentSeconds)
        includesLedger = spent != nil
        spentSeconds = spent ?? 0
        emergencySeconds = try c.decodeIfPresent(Int64.self, forKey: .emergencySeconds) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(period, forKey: .period)
        try c.encode(focusedSeconds, forKey: .focusedSeconds)
        try c.encode(completed, forKey: .completed)
        try c.encode(interrupted, forKey: .interrupted)
        try c.encode(skipped, forKey: .skipped)
        try c.encode(earnedSeconds, forKey: .earnedSeconds)
        if includesLedger {
            try c.encode(spentSeconds, forKey: .spentSeconds)
            try c.encode(emergencySeconds, forKey: .emergencySeconds)
        }
    }
}

/// Summaries per local day and per ISO week, of the rounds given (what a listing shows) and, unless `entries` is
/// nil, of the ledger's spending and emergency draws. Rounds count on the local day they started, with what they
/// earned; entries on the local day they were written (both with the offset in force at the time).
public enum HistorySummary {
    public static func days(rounds: [RoundRecord], entries: [LedgerEntry]?) -> [PeriodSummary] {
        summarise(rounds: rounds, entries: entries) { $0.description }
    }

    public static func weeks(rounds: [RoundRecord], entries: [LedgerEntry]?) -> [PeriodSummary] {
        summarise(rounds: rounds, entries: entries) { $0.isoWeek.description }
    }

    static func summarise(rounds: [RoundRecord], entries: [LedgerEntry]?, period: (CivilDate) -> String)
        -> [PeriodSummary]
    {
        var table: [String: PeriodSummary] = [:]
        func summary(_ p: String) -> PeriodSummary {
            var s = table[p] ?? PeriodSummary(period: p)
            s.includesLedger = entries != nil
            return s
        }
        for r in rounds {
            let p = period(r.start.localDate)
            var s = summary(p)
            s.earnedSeconds = s.earnedSeconds.adding(saturating: r.earnedSeconds)
            if r.kind == .focus {
                s.focusedSeconds = s.focusedSeconds.adding(saturating: r.activeSeconds)
                switch r.status {
                case .completed: s.completed += 1
                case .interrupted: s.interrupted += 1
                case .skipped: s.skipped += 1
                case .running: break
                }
            }
            table[p] = s
        }
        for e in entries ?? [] {
            let p = period(e.localDay)
            switch e.kind {
            case .spend, .settle, .emergency: break
            case .grant, .hold, .adjustment: continue
            }
            var s = summary(p)
            switch e.kind {
            case .spend: s.spentSeconds = s.spentSeconds.subtracting(saturating: e.amount)
            case .settle: s.spentSeconds = s.spentSeconds.adding(saturating: e.used ?? 0)
            case .emergency: s.emergencySeconds = s.emergencySeconds.adding(saturating: e.reserve ?? 0)
            case .grant, .hold, .adjustment: break
            }
            table[p] = s
        }
        return table.values.sorted { $0.period < $1.period }
    }
}

/// `hum export --format json`: one document, described by docs/export.schema.json.
/// Version 2 added contracts (with their evidence, reviews, overrides and events), each session's `contract_id` and
/// `recorded_by_hand`, and the `contract_id` of a contract's grant. Version 3 writes a session's mix volumes 0–100,
/// as every other output does (versions 1 and 2 wrote fractions 0–1). Files of versions 1 and 2 are still read.
public struct ExportDocument: Sendable, Equatable, Codable {
    public static let schemaName = "hum.export/3"
    /// The schemas `hum ledger import` reads.
    public static let readable = ["hum.export/1", "hum.export/2", "hum.export/3"]

    /// How a file of `schema` writes mix volumes: fractions before version 3.
    public static func volumeUnit(schema: String) -> MixVolumeUnit {
        schema == "hum.export/1" || schema == "hum.export/2" ? .fraction : .percent
    }
    public var schema: String = ExportDocument.schemaName
    public var exportedAt: Timestamp
    public var sessions: [RoundRecord]
    public var ledger: [LedgerEntry]
    public var contracts: [ContractRecord]

    public init(exportedAt: Timestamp, sessions: [RoundRecord], ledger: [LedgerEntry], contracts: [ContractRecord] = [])
    {
        self.exportedAt = exportedAt
        self.sessions = sessions
        self.ledger = ledger
        self.contracts = contracts
    }

    enum CodingKeys: String, CodingKey {
        case schema
        case exportedAt = "exported_at"
        case sessions, ledger, contracts
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schema = try c.decode(String.self, forKey: .schema)
        // Its volumes are read in the unit the decoder was given: one that is not the schema's would misread them.
        guard Self.volumeUnit(schema: schema) == MixVolumeUnit.of(decoder) else {
            throw DecodingError.dataCorruptedError(
                forKey: .schema, in: c,
                debugDescription: "\(schema) writes volumes \(Self.volumeUnit(schema: schema).rangeText), "
                    + "but the decoder reads them \(MixVolumeUnit.of(decoder).rangeText)")
        }
        exportedAt = try c.decode(Timestamp.self, forKey: .exportedAt)
        sessions = try c.decode([RoundRecord].self, forKey: .sessions)
        ledger = try c.decode([LedgerEntry].self, forKey: .ledger)
        contracts = try c.decodeIfPresent([ContractRecord].self, forKey: .contracts) ?? []
    }
}

/// Who runs a round or a pass, so a later process can tell whether it died.
public struct ProcessOwner: Sendable, Equatable {
    public var pid: Int32
    /// The process's start time (clock ticks since boot), which tells a reused pid apart.
    public var startTicks: Int64
    /// The kernel's boot id: pids mean nothing across a reboot.
    public var bootID: String
    public init(pid: Int32, startTicks: Int64, bootID: String) {
        self.pid = pid
        self.startTicks = startTicks
        self.bootID = bootID
    }
}

/// Asks whether a process is still alive. The real one reads /proc (HumStore); tests use `ScriptedProcessProbe`.
///
/// Contract: `isAlive` is false only when the owner is certainly gone (another boot, no such pid, or the pid now
/// belongs to a process started at another time).
public protocol ProcessProbe: Sendable {
    func current() -> ProcessOwner
    func isAlive(_ owner: ProcessOwner) -> Bool
}
