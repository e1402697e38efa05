import HumBus
import HumCore

/// The person's presence during focus rounds: the player watches the session (logind, through `SessionPresence`)
/// while rounds run, and hands what it hears to the rounds on its loop.
extension Player {
    /// The presence of the machine's session on the system bus: logind's.
    static func logindPresence(_ environment: PlayerEnvironment, _ loop: any EventLoopProtocol)
        -> any SessionPresence
    {
        LogindPresence(environment: environment.variables, loop: loop)
    }

    /// Starts watching the session for the rounds that begin, or for the nudges (once per player; the watch stays
    /// while it runs).
    func watchPresence() {
        guard presence == nil else { return }
        let presence = options.openPresence(environment, loop)
        presence.onChange = { [unowned self] hints in
            self.focus?.sessionChanged(hints)
            self.nudges?.session(away: hints.away)
        }
        presence.onProblem = { [unowned self] problem in
            self.presenceProblem = problem
            self.sayPresenceProblem()
        }
        presence.onWatching = { [unowned self] what in
            self.presenceWatching = what
            self.sayPresenceProblem()
        }
        self.presence = presence
        presence.start()
    }

    /// `--verbose`: says once why the session cannot be watched (rounds then run as if you were always there).
    func sayPresenceProblem() {
        if verbosePresence, let watching = presenceWatching {
            presenceWatching = nil
            environment.stderr.write("hum: away: watching \(watching)\n")
        }
        guard verbosePresence, !presenceProblemSaid, let problem = presenceProblem else { return }
        presenceProblemSaid = true
        environment.stderr.write(
            "hum: away: not watching the session (\(problem)); rounds do not pause when you are away\n")
    }
}
