import HumCore

/// How the runtime ends a request or a run it cannot carry out: one line for people, with its kind. The frontend
/// prints it and exits by its kind (usage 2, failure 1, refused 3); the control socket sends the kind with the
/// message, so `hum ctl` exits the same.
public enum PlayerError: UserFacingError, Equatable, Sendable {
    /// The request cannot be read or does not fit the player's state ("no focus rounds are running").
    case usage(String)
    /// The work could not be carried out (a device, a file, a process).
    case failure(String)
    /// The ledger's rules refused it; nothing was changed.
    case refused(String)

    public var kind: FailureKind {
        switch self {
        case .usage: .usage
        case .failure: .failure
        case .refused: .refused
        }
    }

    public var message: String {
        switch self {
        case .usage(let m), .failure(let m), .refused(let m): m
        }
    }
}
