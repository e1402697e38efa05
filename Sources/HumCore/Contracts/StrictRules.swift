/// Strict mode: while a strict contract runs, what would loosen the rules is refused, with a line that says why and
/// when it opens again. Tightening stays allowed, and so does the emergency reserve (with friction, see HumCLI).
public enum StrictRules {
    /// What a strict contract refuses while it runs.
    public enum Loosening: Sendable, Equatable {
        /// A setting changed the loose way: a lower ratio, a higher cap or reserve, another reviewer, a shorter wait
        /// before an emergency draw.
        case setting(key: String, from: String, to: String)
        /// Time added by hand (`hum ledger adjust +…`).
        case addTime
        /// A focus round recorded by hand (it would earn).
        case recordRound
        /// An override, which pays a contract the review did not approve.
        case override
        /// A second contract, which would replace the running one.
        case secondContract
        /// Removing a shield (`hum shield rm NAME`).
        case removeShield(String)
        /// Taking targets out of a shield (`hum shield rm NAME --app X`).
        case removeShieldTargets(String)
        /// Turning a shield off (`hum shield off NAME --for DURATION`, `--all`).
        case shieldOff(String)
        /// Removing a schedule that locks shields (`hum schedule rm NAME`).
        case removeSchedule(String)
        /// Adding a free window (`hum schedule add NAME --free`).
        case freeWindow(String)
        /// A shield's quota that gives more lifted time than before (`hum shield set NAME --quota`).
        case quota(String)
    }

    /// Whether changing `key` from `old` to `new` loosens the rules.
    public static func loosens(_ key: String, from old: LedgerConfig, to new: LedgerConfig) -> Bool {
        switch key {
        case "earn.ratio": return new.earnRatioMilli < old.earnRatioMilli
        case "earn.daily-cap": return new.dailyCapSeconds > old.dailyCapSeconds
        case "emergency.weekly": return new.emergencyWeeklySeconds > old.emergencyWeeklySeconds
        case "review.command": return new.reviewCommand != old.reviewCommand
        case "strict.emergency-wait": return new.strictEmergencyWaitSeconds < old.strictEmergencyWaitSeconds
        default: return false
        }
    }

    /// The refusal (exit 3): which contract, what was refused, until when.
    public struct Refusal: UserFacingError, Equatable {
        public var contractID: String
        public var goal: String
        /// The contract's planned end (later when it is paused or waits).
        public var until: Timestamp?
        public var what: Loosening

        public init(contractID: String, goal: String, until: Timestamp?, what: Loosening) {
            self.contractID = contractID
            self.goal = goal
            self.until = until
            self.what = what
        }

        public var kind: FailureKind { .refused }

        public var message: String {
            let refused: String
            switch what {
            case .setting(let key, let from, let to):
                refused = "changing \(key) from \(from) to \(to) loosens the rules, so it is refused"
            case .addTime: refused = "adding time by hand is refused"
            case .recordRound: refused = "recording a focus round by hand (it would earn) is refused"
            case .override: refused = "overriding a review (it would pay) is refused"
            case .secondContract: refused = "a second contract cannot replace it"
            case .removeShield(let name): refused = "removing the shield \(name) is refused"
            case .removeShieldTargets(let name): refused = "taking targets out of the shield \(name) is refused"
            case .shieldOff(let name): refused = "turning the shield \(name) off is refused"
            case .removeSchedule(let name): refused = "removing the schedule \(name) is refused"
            case .freeWindow(let name): refused = "adding the free window \(name) is refused"
            case .quota(let name): refused = "a quota that gives the shield \(name) more time is refused"
            }
            let when =
                until.map { "after \($0.localClock) (later if its rounds are paused or wait)" } ?? "after its rounds"
            return
                "a strict contract is running (\(String(contractID.prefix(8))), \(goal.quoted)): \(refused); nothing was "
                + "changed. It opens again \(when), or when you stop its rounds (q), which ends the contract "
                + "unpaid; the emergency reserve stays available ('hum emergency')"
        }
    }
}
