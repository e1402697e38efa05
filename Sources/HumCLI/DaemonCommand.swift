import HumControl
import HumCore
import HumPlayer
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `hum daemon`: a player in the foreground with no terminal, for a service manager (contrib/hum.service) and
/// for `hum play --detach`. It plays like `hum play` (the last mix without sounds), tells systemd when it plays
/// (`READY=1` on $NOTIFY_SOCKET, for Type=notify), and stops with a fade on SIGTERM.
struct DaemonCommand: HumCommand {
    static let name = "daemon"
    static let abstract = "run a player with no terminal, for a service manager (see contrib/hum.service)"
    static let discussion = """
        The player is steered with 'hum ctl', watched with 'hum status', and reached by the desktop's media keys. Like
        every player, it guards the shields (docs/shields.md); --no-sound runs it for that alone.
        Its messages go to stderr (the journal under systemd). It refuses to start when another player runs.
        """
    static let examples = [
        "hum daemon",
        "hum daemon @night --volume 60",
        "systemctl --user enable --now hum   # with contrib/hum.service installed",
    ]
    static let arguments: [any Declared] = [
        PlayCommand.sounds, PlayCommand.duration, PlayCommand.master, PlayCommand.fade, PlayCommand.device,
        PlayCommand.raw,
        PlayCommand.verbose, noSound,
    ]
    static let noSound = Flag(
        "no-sound", help: "play nothing: the control socket and the shields' guard alone (what 'hum shield add' starts)"
    )

    let play: PlayCommand
    let silent: Bool

    init(_ arguments: ParsedArguments) throws {
        play = try PlayCommand(arguments)
        silent = arguments.flag(Self.noSound)
        if silent, !play.words.isEmpty { throw HumError.usage("--no-sound plays nothing; leave out the sounds") }
    }

    func run(context: CommandContext) throws -> Int32 {
        let ready = context.environment[Detached.readyVariable].flatMap { Int32($0) }
        var told = false
        do {
            // The claim first, before the audio opens: of hums started together, one plays.
            guard try PlayerLink.connect(context) == nil, let claim = try Self.claim(context) else {
                // `hum play --detach` sends its request to that player instead.
                if let ready { Self.say(Detached.anotherPlayerAnswer, on: ready) }
                told = true
                throw HumError.failure("another hum player is running; stop it first ('hum ctl stop')")
            }
            let loop = EventLoop()
            let player = try play.makePlayer(context: context, claim: claim, loop: loop, silent: silent)
            player.onReady = {
                if let ready, !told { Self.say("ready\n", on: ready) }
                told = true  // the descriptor is closed: an error after this goes to the log alone
                ServiceManager.notify("READY=1", environment: context.environment)
            }
            return player.run { loop.run() }
        } catch let error as any UserFacingError {
            if let ready, !told { Self.say("hum: \(error.message)\n", on: ready) }
            throw error
        }
    }

    /// The claim to be the player; nil when another process holds it.
    static func claim(_ context: CommandContext) throws -> PlayerClaim? {
        do {
            return try PlayerClaim(PlayerLink.socketPath(context))
        } catch .alreadyRunning {
            return nil
        }
    }

    /// Writes a line for the parent waiting on the pipe, then closes it: it waits no more.
    static func say(_ text: String, on fd: Int32) {
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }
}

/// systemd's readiness protocol (sd_notify(3)), spoken directly: one datagram on $NOTIFY_SOCKET.
enum ServiceManager {
    static func notify(_ state: String, environment: [String: String]) {
        guard var path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return }
        if path.hasPrefix("@") { path = "\0" + path.dropFirst() }  // an abstract socket
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        _ = state.withCString { text in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, text, strlen(text), Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
    }
}
