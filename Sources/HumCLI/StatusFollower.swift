import HumControl
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `hum status --follow`: one subscription to the player, a line (or object) per change, and across player
/// restarts. It sleeps in one `poll` over the player's connection, an inotify watch on the socket's directory (to
/// see the next player's socket appear), one timer for the countdown it shows, the signals and its stdout (to
/// leave when the bar that reads it goes away). It wakes only when one of them has something to say.
final class StatusFollower {
    let command: StatusCommand
    let context: CommandContext
    private let loop = EventLoop()
    private let socketPath: ControlSocketPath
    private let bank: BankReader
    private let fields: Set<StatusField>
    private var client: ControlClient?
    private var clientToken: EventLoop.Token?
    private var appearance: AppearanceWatch?
    private var tick: EventLoop.Timer?
    private var retry: EventLoop.Timer?
    private var retryDelay = 0.0
    /// The last report received, and when (the monotonic clock, as the player's countdown runs).
    private var report = StatusReport(player: nil, bankSeconds: nil)
    private var receivedAt = monotonicSeconds()
    private var lastPrinted: String?
    private var failure: (any Error)?

    init(command: StatusCommand, context: CommandContext) {
        self.command = command
        self.context = context
        socketPath = PlayerLink.socketPath(context)
        bank = BankReader(context: context)
        fields = command.movingFields
    }

    func run() throws -> Int32 {
        try loop.signals([SIGINT, SIGTERM, SIGHUP]) { [unowned self] _ in self.loop.stop() }
        if context.stdout is DescriptorOutput {
            // A pipe whose reader closed reports POLLERR to the writer: the bar went away, so does this.
            loop.watch(STDOUT_FILENO, events: 0) { [unowned self] _ in self.loop.stop() }
        }
        tick = try loop.timer { [unowned self] in self.emit() }
        retry = try loop.timer { [unowned self] in self.lookForPlayer(soon: true) }
        do {
            // Watching starts before the first look, so a player that starts in between is not missed.
            appearance = try AppearanceWatch(loop: loop, path: socketPath.socket) { [unowned self] in
                self.retryDelay = 0
                self.lookForPlayer(soon: true)
            }
        } catch {
            throw HumError.failure(
                "cannot wait for a player at \(socketPath.socket): \(error.description); check XDG_RUNTIME_DIR")
        }
        lookForPlayer(soon: false)
        if client == nil, failure == nil { playerGone() }
        if failure == nil { loop.run() }
        if let failure { throw failure }
        return ExitCode.success
    }

    // MARK: The player

    /// Connects and subscribes when a player answers. `soon`: the socket has just appeared, and its player may
    /// not listen yet (bind comes before listen): then look again shortly, a few times, backing off.
    private func lookForPlayer(soon: Bool) {
        guard client == nil else { return }
        do {
            guard let found = try ControlClient.connect(to: socketPath) else {
                if soon { retryLater() }
                return
            }
            let status = try PlayerLink.send(.subscribe, to: found)
            retry?.disarm()
            retryDelay = 0
            client = found
            clientToken = loop.watch(found.fd) { [unowned self] _ in self.readPlayer() }
            received(status, bankChanged: true)
            take(try found.readAvailable())
        } catch ControlClient.Problem.closed {
            detach()
        } catch {
            fail(error)
        }
    }

    private func retryLater() {
        retryDelay = retryDelay == 0 ? 0.01 : retryDelay * 2
        guard retryDelay <= 1.3 else {
            retryDelay = 0
            return  // the next appearance will tell
        }
        retry?.arm(after: retryDelay)
    }

    private func readPlayer() {
        guard let client else { return }
        do {
            take(try client.readAvailable())
        } catch ControlClient.Problem.closed {
            detach()
            playerGone()
            lookForPlayer(soon: false)  // the next one may be up already
        } catch {
            fail(error)
        }
    }

    private func take(_ messages: [ServerMessage]) {
        for message in messages {
            guard case .event(let event) = message else { continue }
            received(event.status, bankChanged: event.what.contains(.focus) || event.what.contains(.state))
        }
    }

    private func detach() {
        if let clientToken { loop.remove(clientToken) }
        clientToken = nil
        client = nil
    }

    private func playerGone() {
        report = StatusReport(player: nil, bankSeconds: bank.read())
        receivedAt = monotonicSeconds()
        emit()
    }

    /// A new status: the bank is read again when rounds may have earned (a phase or the state changed).
    private func received(_ status: PlayerStatus, bankChanged: Bool) {
        let bankSeconds = bankChanged || report.player == nil ? bank.read() : report.bankSeconds
        report = StatusReport(player: status, bankSeconds: bankSeconds)
        receivedAt = monotonicSeconds()
        emit()
    }

    // MARK: Output

    /// Prints the report as of now when it reads differently from the last print, and sets the timer for the next
    /// moment the clock alone changes it.
    private func emit() {
        let elapsed = max(0, monotonicSeconds() - receivedAt)
        let shown = Int64(elapsed)
        let now = report.advanced(by: shown)
        do {
            let text = try command.render(now)
            if text != lastPrinted {
                lastPrinted = text
                try write(text + "\n")
            }
        } catch {
            fail(error)
            return
        }
        if let next = now.secondsUntilChange(of: fields) {
            tick?.arm(after: Double(shown + next) - elapsed)
        } else {
            tick?.disarm()
        }
    }

    private func write(_ text: String) throws {
        guard let out = context.stdout as? DescriptorOutput else {
            context.stdout.write(text)
            return
        }
        guard let failure = out.writeChecked(text) else { return }
        if failure.code == EPIPE {
            loop.stop()  // the reader went away: nothing is wrong, nobody is left to tell
        } else {
            throw HumError.failure("cannot write the status: \(String(cString: strerror(failure.code)))")
        }
    }

    private func fail(_ error: any Error) {
        failure = failure ?? error
        loop.stop()
    }
}
