import HumCore

/// What a reconciliation did: passes and rounds whose process had died.
public struct ReconcileReport: Sendable, Equatable {
    public struct SettledPass: Sendable, Equatable {
        public var id: String
        public var label: String?
        public var used: Int64
        public var returned: Int64
    }
    public var settledPasses: [SettledPass] = []
    public var interruptedRounds: [String] = []
    /// Contracts whose rounds' process died: interrupted (they earn nothing), by id and goal.
    public var interruptedContracts: [(id: String, goal: String)] = []
    /// Commands of dead passes that are still running: the caller stops them.
    public var orphans: [ProcessOwner] = []
    /// The command of an emergency draw whose hum died: recorded as ended; the caller stops what is left of it.
    public struct EndedEmergency: Sendable, Equatable {
        /// The draw's entry id (the command's processes carry `HUM_EMERGENCY_ID=<id>`).
        public var entryID: String
        /// The leader of the command's process group, when it still runs as recorded (same boot, same start time).
        public var leader: ProcessOwner?
    }
    public var endedEmergencies: [EndedEmergency] = []
    public var isEmpty: Bool {
        settledPasses.isEmpty && interruptedRounds.isEmpty && orphans.isEmpty && interruptedContracts.isEmpty
            && endedEmergencies.isEmpty
    }

    public static func == (a: ReconcileReport, b: ReconcileReport) -> Bool {
        a.settledPasses == b.settledPasses && a.interruptedRounds == b.interruptedRounds && a.orphans == b.orphans
            && a.interruptedContracts.map(\.id) == b.interruptedContracts.map(\.id)
            && a.endedEmergencies == b.endedEmergencies
    }
}

/// A round as the timer starts it.
public struct RoundStart: Sendable, Equatable {
    public var id: String
    public var kind: RoundKind
    public var start: Timestamp
    public var plannedSeconds: Int64
    /// The instant it is due to end (start + planned), persisted so a dead process leaves a record.
    public var deadline: Timestamp?
    public var mix: [MixItem]
    public var goal: String?
    public var tags: [String]
    /// The contract the round works toward: it earns nothing itself, its contract is paid on approval.
    public var contractID: String?

    public init(
        id: String, kind: RoundKind, start: Timestamp, plannedSeconds: Int64, deadline: Timestamp? = nil,
        mix: [MixItem] = [], goal: String? = nil, tags: [String] = [], contractID: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.start = start
        self.plannedSeconds = plannedSeconds
        self.deadline = deadline
        self.mix = mix
        self.goal = goal
        self.tags = tags
        self.contractID = contractID
    }
}

extension RoundStart {
    /// The round as its row begins: running, with nothing active, paused or earned yet.
    var running: RoundRecord {
        RoundRecord(
            id: id, kind: kind, status: .running, start: start, end: nil, plannedSeconds: plannedSeconds,
            activeSeconds: 0, pausedSeconds: 0, mix: mix, goal: goal, tags: tags, earnedSeconds: 0,
            contractID: contractID)
    }
}

/// How a round finished, and what it earned.
public struct RoundOutcome: Sendable, Equatable {
    public var round: RoundRecord
    /// The grant of a completed focus round (`.exists` on a replay); nil for other rounds.
    public var grant: LedgerDecision?
}
