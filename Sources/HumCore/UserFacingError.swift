/// How a command that could not do what was asked ends. The frontend maps each kind to an exit code: usage 2,
/// failure 1, refused 3.
public enum FailureKind: Sendable, Equatable {
    /// Bad input: the message names the bad word and what to write instead.
    case usage
    /// The work could not be carried out: the message says why and what to try.
    case failure
    /// The ledger's rules refused the request; nothing was changed.
    case refused
}

extension FailureKind {
    /// The kind as the control protocol writes it (`kind` of an error reply).
    public var wireName: String {
        switch self {
        case .usage: "usage"
        case .failure: "failure"
        case .refused: "refused"
        }
    }

    /// The kind a reply names; an unknown word (a newer player) is a failure.
    public init(wireName: String?) {
        switch wireName {
        case "usage": self = .usage
        case "refused": self = .refused
        default: self = .failure
        }
    }
}

/// The process exit codes hum uses.
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    public static let usage: Int32 = 2
    public static let refused: Int32 = 3

    public static func of(_ kind: FailureKind) -> Int32 {
        switch kind {
        case .usage: return usage
        case .failure: return failure
        case .refused: return refused
        }
    }
}

/// An error written for the person at the terminal: one line, lower-case, that says what went wrong and what to
/// try. Every error that can reach the frontend conforms, and the frontend prints `hum: ` and the message, then
/// exits by its kind. This is the one mechanism for messages: no error is described by its Swift spelling.
public protocol UserFacingError: Error {
    var message: String { get }
    var kind: FailureKind { get }
}

extension UserFacingError {
    public var kind: FailureKind { .failure }
}

extension LedgerRefusal: UserFacingError {
    public var kind: FailureKind { .refused }
}

extension LedgerConfig.ConfigError: UserFacingError {
    public var kind: FailureKind { .usage }
}

extension MixSpec.ParseError: UserFacingError {
    public var kind: FailureKind { .usage }
}

extension LedgerMerge.Conflict: UserFacingError {}

extension FocusPlan.Problem: UserFacingError {
    public var message: String { description }
    public var kind: FailureKind { .usage }
}

extension Mix.Problem: UserFacingError {
    public var kind: FailureKind { .usage }
}
