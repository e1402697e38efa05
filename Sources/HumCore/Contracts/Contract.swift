/// Where a focus contract stands. A contract is written before its first round; when its rounds end it moves into
/// proof review instead of paying; it pays (once) on approval or on a manual override.
public enum ContractStatus: String, Sendable, Codable, CaseIterable {
    /// Its rounds are under way.
    case running
    /// Its rounds ran to the end: in proof review, waiting for the proof (or for a resubmission).
    case completed
    /// The review approved the proof: the reward was granted.
    case approved
    /// Two reviews did not approve it: it may be overridden, with a written reason, or abandoned.
    case rejected
    /// Granted by a manual override after the review said no, with the reason kept.
    case overridden
    /// Given up in review (or after it): it earns nothing.
    case abandoned
    /// Its rounds were stopped before the end (or their process died): it earns nothing.
    case interrupted

    /// Whether proof may still be edited and submitted.
    public var inReview: Bool { self == .completed }
    /// Whether the contract was rewarded.
    public var granted: Bool { self == .approved || self == .overridden }
}

/// A contract as `hum focus` asks for it: the goal, the criteria that say it is done, the first step, what to watch
/// for evidence and whether it is strict. It travels with the focus request to the player, which writes it before
/// the first round starts.
public struct ContractStart: Sendable, Equatable, Codable {
    /// Chosen by the command that asks for it, so it can name the contract before the player has written it.
    public var id: String
    public var goal: String
    public var doneWhen: [String]
    public var firstStep: String?
    /// Absolute paths (resolved by the command, in its working directory).
    public var watch: [String]
    public var strict: Bool

    public init(id: String, goal: String, doneWhen: [String], firstStep: String?, watch: [String], strict: Bool) {
        self.id = id
        self.goal = goal
        self.doneWhen = doneWhen
        self.firstStep = firstStep
        self.watch = watch
        self.strict = strict
    }

    enum CodingKeys: String, CodingKey {
        case id, goal, watch, strict
        case doneWhen = "done_when"
        case firstStep = "first_step"
    }

    /// What is wrong with it, or nil: a request may come from any client, so it is checked where it enters.
    public func validationProblem() -> String? {
        guard !id.isEmpty, id.utf8.count <= LedgerBounds.idBytes else {
            return "a contract has an empty or overlong id"
        }
        guard ContractBounds.text(goal, required: true) else {
            return "a contract's goal must be 1 to \(ContractBounds.textBytes) bytes"
        }
        guard !doneWhen.isEmpty, doneWhen.count <= ContractBounds.listCount,
            doneWhen.allSatisfy({ ContractBounds.text($0, required: true) })
        else {
            return
                "a contract needs 1 to \(ContractBounds.listCount) criteria of 1 to \(ContractBounds.textBytes) bytes"
        }
        if let firstStep, !ContractBounds.text(firstStep, required: true) {
            return "a contract's first step must be 1 to \(ContractBounds.textBytes) bytes"
        }
        guard watch.count <= ContractBounds.listCount, watch.allSatisfy({ $0.hasPrefix("/") && $0.utf8.count <= 4096 })
        else { return "a contract watches at most \(ContractBounds.listCount) absolute paths" }
        return nil
    }
}

/// The sizes a contract's texts and lists may have, wherever they come from (the command line, a client, an import).
public enum ContractBounds {
    /// A goal, a criterion, a step, a reason, a proof's text: in bytes.
    public static let textBytes = 4000
    /// Criteria, watched paths, proof items, reviews, events.
    public static let listCount = 64

    public static func text(_ s: String, required: Bool) -> Bool {
        (required ? !s.isEmpty : true) && s.utf8.count <= textBytes
    }
}

/// What a contract can earn, shown before it starts: its focus rounds at the ratio in force (fixed for the
/// contract), within the daily cap of the day it is paid.
public struct ContractTerms: Sendable, Equatable {
    public var rounds: Int
    public var focusSeconds: Int64
    public var ratioMilli: Int64
    public var dailyCapSeconds: Int64
    /// What today's cap still allows.
    public var capLeftToday: Int64

    public init(rounds: Int, focusSeconds: Int64, ratioMilli: Int64, dailyCapSeconds: Int64, capLeftToday: Int64) {
        self.rounds = rounds
        self.focusSeconds = focusSeconds
        self.ratioMilli = ratioMilli
        self.dailyCapSeconds = dailyCapSeconds
        self.capLeftToday = capLeftToday
    }

    /// The most it can earn: every focus round completed, before the cap.
    public var mostSeconds: Int64 {
        ContractReward.earned(
            activeSeconds: Int64(max(0, rounds)).multipliedReportingOverflow(by: max(0, focusSeconds)).partialValue,
            ratioMilli: ratioMilli)
    }
}

/// How a contract's reward is counted: the active time of its completed focus rounds, all together, at the ratio the
/// contract was made with (the same arithmetic as a round's grant: floor(active / ratio), active within a year).
public enum ContractReward {
    public static func earned(activeSeconds: Int64, ratioMilli: Int64) -> Int64 {
        var config = LedgerConfig()
        config.earnRatioMilli = ratioMilli
        return config.earned(activeSeconds: activeSeconds)
    }
}
