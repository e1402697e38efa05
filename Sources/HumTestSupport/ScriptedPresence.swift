import HumCore

/// A session presence a test drives (the double of logind): `set` says the session locked, went idle or came back,
/// synchronously, as the bus would from the loop; `fail` says it cannot be watched.
public final class ScriptedPresence: SessionPresence {
    public var onChange: ((SessionHints) -> Void)?
    public var onProblem: ((String) -> Void)?
    public var onWatching: ((String) -> Void)?
    public private(set) var hints = SessionHints()
    public private(set) var closed = false
    public private(set) var started = false

    public init() {}

    /// The session's hints are now `hints`: told when away changed, as logind's watcher does.
    public func set(_ hints: SessionHints) {
        guard !closed else { return }
        let before = self.hints
        self.hints = hints
        if before.away != hints.away { onChange?(hints) }
    }

    public func start() { started = true }

    public func fail(_ problem: String) { onProblem?(problem) }

    public func close() { closed = true }
}
