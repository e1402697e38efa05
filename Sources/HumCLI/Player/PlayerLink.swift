import HumControl
import HumCore

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
        throw reply.kind == "usage" ? HumError.usage(message) : HumError.failure(message)
    }
}
