import HumControl
import HumCore
import HumPlayer
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `hum daemon`: a player in the foreground with no terminal, for a service manager (contrib/hum.service) and
/// for `hum play --detach`. It plays like `hum play` (the last mix without sounds), tells systemd when it plays
/// (`READY=1` on $NOTIFY_SOCKET, for Type=notify) and what it plays (`STATUS=`, at each change), and stops with a
/// fade on SIGTERM. `--install` writes the user unit (DaemonUnit.swift).
struct DaemonCommand: HumCommand {
    static let name = "daemon"
    static let abstract = "run a player with no terminal, for a service manager (see contrib/hum.service)"
    static let discussion = """
        The player is steered with 'hum ctl', watched with 'hum status', and reached by the desktop's media keys. Like
        every player, it guards the shields (docs/shields.md); --no-sound runs it for that alone.
        Its messages go to stderr (the journal under systemd); systemd's status line ('systemctl --user status hum')
        shows what it plays. When another player runs it does not start and exits 3, which the unit does not restart
        (RestartPreventExitStatus=3): a terminal hum keeps the sound, and the daemon does not take over seconds
        after it quits. --paused starts with the mix loaded and silent, for 'hum ctl resume' or a media key.
        --install writes the systemd user unit for this binary to $XDG_CONFIG_HOME/systemd/user/hum.service and
        enables it when a user manager runs; --uninstall undoes that.
        """
    static let examples = [
        "hum daemon",
        "hum daemon @night --volume 60",
        "hum daemon --install --paused   # start silent at each login",
        "hum daemon --uninstall",
    ]
    static let arguments: [any Declared] = [
        PlayCommand.sounds, PlayCommand.duration, PlayCommand.master, PlayCommand.fade, PlayCommand.device,
        PlayCommand.raw,
        PlayCommand.verbose, noSound, paused, install, uninstall,
    ]
    static let noSound = Flag(
        "no-sound", help: "play nothing: the control socket and the shields' guard alone (what 'hum shield add' starts)"
    )
    static let paused = Flag("paused", help: "start paused: the mix ready and silent until resumed")
    static let install = Flag(
        "install", help: "write the systemd user unit for this hum (with --paused: starting paused) and enable it")
    static let uninstall = Flag("uninstall", help: "disable the user unit written by --install and remove it")

    let play: PlayCommand
    let silent: Bool
    let startPaused: Bool
    let unitAction: DaemonUnit.Action?

    init(_ arguments: ParsedArguments) throws {
        play = try PlayCommand(arguments)
        silent = arguments.flag(Self.noSound)
        startPaused = arguments.flag(Self.paused)
        if silent, !play.words.isEmpty { throw HumError.usage("--no-sound plays nothing; leave out the sounds") }
        let installing = arguments.flag(Self.install)
        let uninstalling = arguments.flag(Self.uninstall)
        if installing && uninstalling { throw HumError.usage("--install and --uninstall undo each other; pick one") }
        unitAction = installing ? .install : uninstalling ? .uninstall : nil
        if unitAction != nil, !play.words.isEmpty || silent {
            throw HumError.usage(
                "the unit plays the last mix (or the setting play.mix); leave out the sounds and --no-sound")
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        if let unitAction { return try DaemonUnit(context: context).run(unitAction, paused: startPaused) }
        let ready = context.environment[Detached.readyVariable].flatMap { Int32($0) }
        var told = false
        do {
            // The claim first, before the audio opens: of hums started together, one plays.
            guard try PlayerLink.connect(context) == nil, let claim = try Self.claim(context) else {
                // `hum play --detach` sends its request to that player instead.
                if let ready { Self.say(Detached.anotherPlayerAnswer, on: ready) }
                told = true
                // A refusal (3), which the unit does not restart: restarting every few seconds would start the
                // sound again moments after the user quits the hum that plays now.
                ServiceManager.notify("STATUS=not started: another hum player runs", environment: context.environment)
                throw HumError.refused(
                    "another hum player is running, so this one does not start (it leaves that one to play); stop "
                        + "it first ('hum ctl stop'), then start this one again")
            }
            let loop = EventLoop()
            let player = try play.makePlayer(
                context: context, claim: claim, loop: loop, silent: silent, paused: startPaused)
            var shown: String?
            player.watch { status, _ in
                let line = ServiceManager.statusLine(status)
                guard line != shown else { return }
                shown = line
                ServiceManager.notify("STATUS=" + line, environment: context.environment)
            }
            player.onReady = { [unowned player] in
                if let ready, !told { Self.say("ready\n", on: ready) }
                told = true  // the descriptor is closed: an error after this goes to the log alone
                shown = ServiceManager.statusLine(player.status)
                ServiceManager.notify("READY=1\nSTATUS=" + (shown ?? ""), environment: context.environment)
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
    /// What `systemctl status` shows: `playing · rain 40 brown 25`, `paused · rain 40 · master 80`,
    /// `focus 2/4 · rain 40`. No countdown: it is sent at changes only, and would stand still between them.
    static func statusLine(_ status: PlayerStatus) -> String {
        let report = StatusReport(player: status, bankSeconds: nil)
        var first = report.state
        if let focus = status.focus {
            first = "\(focus.phase.rawValue) \(focus.round)/\(focus.rounds)"
            if report.isPaused { first += " paused" } else if focus.waiting { first += " waiting" }
        }
        var parts = [first]
        parts.append(status.mix.tracks.isEmpty ? "no sounds" : report.mixText { VisibleText.escape($0) })
        if status.mix.master != 100 { parts.append("master \(MixSpec.formatVolume(status.mix.master))") }
        if let note = status.note { parts.append(VisibleText.escape(note)) }
        return parts.joined(separator: " · ")
    }

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
