import HumCore
import HumPlayer
import Synchronization

/// Where a command writes text. The frontend gives the real stdout and stderr; tests give a buffer. The runtime
/// writes to the same outputs, as `TextSink`s.
public protocol TextOutput: TextSink {
    /// The first write that failed, if one did (later writes are dropped). Nil for outputs that cannot fail.
    var failure: OutputFailure? { get }
}

extension TextOutput {
    public var failure: OutputFailure? { nil }
}

/// What a command may use of the outside world, handed in instead of reached for through globals.
public struct CommandContext: Sendable {
    public var environment: [String: String]
    public var stdout: any TextOutput
    public var stderr: any TextOutput
    /// True when stdout is a terminal: live status lines and colour are allowed.
    public var stdoutIsTerminal: Bool
    /// True when stdin is a terminal: keys can be read.
    public var stdinIsTerminal: Bool
    public var paths: HumPaths
    /// The standard descriptors that were closed when hum started (`>&-`): they hold /dev/null now, and writing
    /// "to" them (`-o /dev/stdout`) fails as it would have.
    public var closedDescriptors: Set<Int32>
    /// Descriptor 2 may be pointed at /dev/null while decoder libraries open files (they print notes of their
    /// own): true only in hum's own process (the frontend sets it), never where hum runs inside another program,
    /// whose stderr is not hum's to move.
    public var silencesLibraryNoise = false
    /// The lasting change the command made, once it is made (`made(_:see:)`): the frontend reads it when stdout
    /// failed. Shared by every copy of the context.
    public let changes = ChangeMark()

    public init(
        environment: [String: String], stdout: any TextOutput, stderr: any TextOutput,
        stdoutIsTerminal: Bool, stdinIsTerminal: Bool, accountHome: String? = nil, closedDescriptors: Set<Int32> = []
    ) {
        self.closedDescriptors = closedDescriptors
        self.environment = environment
        self.stdout = stdout
        self.stderr = stderr
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stdinIsTerminal = stdinIsTerminal
        self.paths = HumPaths(environment: environment, accountHome: accountHome)
    }

    /// Colour is used only on a terminal and never when NO_COLOR is set to anything non-empty.
    public var useColor: Bool {
        stdoutIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// Throws the failure of an earlier write to stdout, so that a long output stops at once instead of writing
    /// on into nothing. (The frontend reports a failure no command asked about before exiting.)
    public func checkOutput() throws(OutputFailure) {
        if let failure = stdout.failure { throw failure }
    }

    /// Marks a change that outlasts the command as made (an entry in the ledger, a setting, a request the player
    /// carried out), right after it is committed. When the command then succeeds but what it prints cannot be
    /// written (a full disk, a reader that went away), hum still exits 0 and says on stderr that the change was
    /// made and how to see it: the exit code tells a script whether to run the command again, and running a spend
    /// again would spend twice. `done` says what was made ("the spend was recorded"), `see` how to see it.
    public func made(_ done: String, see: String) {
        changes.mark(LastingChange(done: done, see: see))
    }

    /// What the runtime (HumPlayer) is given of this context: the one place it is built.
    public var runtime: PlayerEnvironment {
        let changes = changes
        return PlayerEnvironment(
            variables: environment, paths: paths, stdout: stdout, stderr: stderr, stdoutIsTerminal: stdoutIsTerminal,
            stdinIsTerminal: stdinIsTerminal, useColor: useColor, silencesLibraryNoise: silencesLibraryNoise,
            made: { done, see in changes.mark(LastingChange(done: done, see: see)) })
    }

    /// Prints a warning line, `hum: warning: …`, on stderr. What it quotes of people's input is shown with its
    /// control characters escaped, so the warning stays one line.
    public func warn(_ message: String) {
        stderr.write("hum: warning: \(message.visible)\n")
    }
}

/// A change a command made that outlasts it (see `CommandContext.made`).
public struct LastingChange: Sendable, Equatable {
    /// What was made: "the spend was recorded".
    public var done: String
    /// How to see it: a command line, "hum ledger --since today".
    public var see: String
}

/// The lasting change a command made, if any (the last one marked).
public final class ChangeMark: Sendable {
    private let state = Mutex<LastingChange?>(nil)
    public init() {}
    public var change: LastingChange? { state.withLock { $0 } }
    func mark(_ change: LastingChange) { state.withLock { $0 = change } }
}
