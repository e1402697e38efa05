import HumCore
import HumStore

/// A contract carried by focus rounds (`hum focus --done-when …`), on the player's side: written before the first
/// round (with a first look at the watched paths), its planned end kept as rounds start, and when the rounds end,
/// moved into proof review with the evidence of the session, or interrupted when they were stopped.
final class ContractRun {
    let start: ContractStart
    let database: HumDatabase
    let searchPath: String?
    let plan: FocusPlan
    private(set) var record: ContractRecord
    /// How the rounds ended, once they did, until the contract is written (it waits for every round's end).
    private var ending: Bool?

    init(start: ContractStart, plan: FocusPlan, database: HumDatabase, searchPath: String?) throws {
        self.start = start
        self.database = database
        self.searchPath = searchPath
        self.plan = plan
        var gatherer = EvidenceGatherer(searchPath: searchPath)
        let baseline = gatherer.snapshot(start.watch)
        let now = database.calendar.clock.nowEpochSeconds()
        record = try database.createContract(
            start, rounds: plan.rounds, focusSeconds: Int64(FocusTime.seconds(plan.focus).rounded()),
            endsAt: database.calendar.stamp(now + ContractRun.remaining(plan, after: nil)), baseline: baseline)
    }

    var id: String { record.id }

    /// The planned seconds of the phases after `phase` (every phase when nil).
    static func remaining(_ plan: FocusPlan, after phase: (kind: FocusPhase, round: Int)?) -> Int64 {
        var phases: [(FocusPhase, Int, Double)] = []
        for round in 1...max(1, plan.rounds) {
            phases.append((.focus, round, FocusTime.seconds(plan.focus)))
            if round < plan.rounds {
                let long = plan.longBreakEvery > 0 && round % plan.longBreakEvery == 0
                phases.append(
                    long
                        ? (.longBreak, round, FocusTime.seconds(plan.longBreak))
                        : (.shortBreak, round, FocusTime.seconds(plan.shortBreak)))
            }
        }
        var after = phases[...]
        if let phase, let i = phases.firstIndex(where: { $0.0 == phase.kind && $0.1 == phase.round }) {
            after = phases[(i + 1)...]
        }
        return Int64(after.reduce(0) { $0 + $1.2 }.rounded())
    }

    /// A phase began, due to end at `deadline`: the contract's planned end moves with it.
    func phaseStarted(_ phase: (kind: FocusPhase, round: Int), deadline: Timestamp?) {
        guard ending == nil, let deadline else { return }
        let end = database.calendar.stamp(deadline.epochSeconds + ContractRun.remaining(plan, after: phase))
        try? database.updateContractEnd(id: id, endsAt: end)
    }

    /// The rounds ended (`completed`: they ran to the end). The contract is written by `roundsWritten`, once every
    /// round's end is written (a full disk can hold one back).
    func roundsEnded(completed: Bool) {
        ending = completed
    }

    /// Writes the contract's end, when its rounds' ends are written; returns the line that says what comes next.
    @discardableResult
    func roundsWritten() -> String? {
        guard let completed = ending else { return nil }
        var evidence: ContractEvidence? = nil
        if completed {
            var gatherer = EvidenceGatherer(searchPath: searchPath)
            let baseline = (try? database.contractBaseline(id: id)) ?? []
            evidence = gatherer.evidence(
                baseline: baseline, watch: start.watch, criteria: start.doneWhen, from: record.createdAt,
                to: database.calendar.now(), calendar: database.calendar)
        }
        guard let finished = try? database.finishContract(id: id, completed: completed, evidence: evidence) else {
            return nil
        }
        ending = nil
        record = finished
        let short = String(id.prefix(8))
        guard finished.status == .completed else {
            return finished.status == .interrupted
                ? "contract \(short) (\(start.goal.visible)) is interrupted: its rounds stopped early, so it "
                    + "earns nothing"
                : nil
        }
        let found = evidence.map(ContractLines.evidence) ?? "no evidence"
        return
            "contract \(short) (\(start.goal.visible)) is in proof review: \(found); prove it with 'hum proof "
            + "\(short) --text … --submit'"
    }
}
