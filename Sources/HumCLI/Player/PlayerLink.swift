import HumControl
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The way from a command to the running player of this user, if any.
enum PlayerLink {
    static func socketPath(_ context: CommandContext) -> ControlSocketPath {
        ControlSocketPath(environment: context.environment)
    }

    /// A connection to the running player; nil when none runs. A player that does not take the connection in
    /// time (its queue is full) is an error, not a wait.
    static func connect(
        _ context: CommandContext, timeoutMilliseconds: Int32 = ControlClient.connectTimeoutMilliseconds
    ) throws -> ControlClient? {
        try ControlClient.connect(to: socketPath(context), timeoutMilliseconds: timeoutMilliseconds)
    }

    static let noPlayer = HumError.failure("no hum player is running; start one with 'hum play'")

    /// How long a request waits for a player that is fading out to stop (its fade, plus a margin for a loaded
    /// machine).
    static let stoppingPatience = 30.0

    /// The running player, if any, that is not on its way out. A player fading out to stop would drop a request
    /// (`hum ctl stop; hum play brown`), so it is waited for, and the request goes to whatever plays next: nil when
    /// nothing does (the caller starts the player), or another hum's player that started meanwhile.
    static func connectLive(_ context: CommandContext, patience: Double = stoppingPatience) throws -> ControlClient? {
        guard let client = try connect(context) else { return nil }
        // A player that answers and is not stopping is live. One that is stopping, or that closed the connection
        // before it answered (it was ending), is waited for.
        let first = try? send(.status, to: client)
        if let first, first.state != .stopping { return client }
        let path = socketPath(context)
        let end = monotonicSeconds() + patience
        while true {
            if let next = try connect(context) {
                // The same player still answering is still stopping; a new one (another pid) is live.
                if let now = try? send(.status, to: next),
                    now.state != .stopping || (first.map { now.pid != $0.pid } ?? false)
                {
                    return next
                }
            } else if !PlayerClaim.isHeld(path) {
                return nil
            }
            if monotonicSeconds() >= end {
                let which = first.map { "the running player (pid \($0.pid))" } ?? "the running player"
                throw HumError.failure(
                    "\(which) is still stopping after \(Int(patience))s; try again, or see 'hum status'")
            }
            usleep(20_000)
        }
    }

    /// Who plays: this process (it holds the claim and is to open the audio and the socket), or the player that runs
    /// or is starting.
    enum Seat {
        case mine(PlayerClaim)
        case theirs(ControlClient)
    }

    /// The running player, else the claim to be the player, else (another hum took the claim a moment ago) that
    /// player once its socket answers.
    /// The claim may be held by a player that is ending (its socket closed a moment before it lets go): once it is
    /// let go with no player answering, this hum tries for it once more.
    static func seat(_ context: CommandContext) throws -> Seat {
        for _ in 0..<2 {
            if let client = try connectLive(context) { return .theirs(client) }
            do {
                return .mine(try PlayerClaim(socketPath(context)))
            } catch .alreadyRunning {
                if let client = try awaitStartingOrEnded(context) { return .theirs(client) }
            }
        }
        return .theirs(try awaitStarting(context))
    }

    /// How long a hum that lost the claim waits for the winner's socket (the winner opens its audio first; a long
    /// user file takes a while to load). It stops waiting as soon as the claim is let go without a player answering.
    static let startingPatience = 15.0

    /// The player another hum is starting (it holds the claim, its socket does not answer yet): its client as soon as
    /// it answers. Refused when that hum let the claim go without a player answering (it could not play, or stopped
    /// at once), or after `startingPatience` seconds.
    static func awaitStarting(_ context: CommandContext, patience: Double = startingPatience) throws -> ControlClient {
        guard let client = try awaitStartingOrEnded(context, patience: patience) else {
            throw HumError.failure(
                "another hum started a player at the same moment, and it stopped before it answered; try again")
        }
        return client
    }

    /// As `awaitStarting`, but nil when the claim is let go with no player answering: the claim was held by a
    /// player ending (it closes its socket a moment before it lets go of the claim), so the caller may start one.
    static func awaitStartingOrEnded(_ context: CommandContext, patience: Double = startingPatience) throws
        -> ControlClient?
    {
        let path = socketPath(context)
        let end = monotonicSeconds() + patience
        while true {
            if let client = try connect(context) { return client }
            // Looked at after the socket: a claim let go after the look above may have left a player answering.
            if !PlayerClaim.isHeld(path) { return try connect(context) }
            if monotonicSeconds() >= end {
                throw HumError.failure(
                    "another hum is starting a player that has not answered in \(Int(patience))s; try again, or "
                        + "see 'hum status'")
            }
            usleep(20_000)
        }
    }

    /// Sends one command to the running player and returns its status, or the player's error as this process's.
    static func send(_ command: PlayerCommand, to client: ControlClient, timeoutMilliseconds: Int32 = 5000) throws
        -> PlayerStatus
    {
        try status(of: try client.request(command, timeoutMilliseconds: timeoutMilliseconds))
    }

    /// The status a reply carries, or the player's error as this process's.
    static func status(of reply: ControlReply) throws -> PlayerStatus {
        if reply.ok, let status = reply.status { return status }
        let message = reply.error ?? "the player refused the request"
        switch FailureKind(wireName: reply.kind) {
        case .usage: throw HumError.usage(message)
        case .failure: throw HumError.failure(message)
        case .refused: throw HumError.refused(message)
        }
    }
}
