import HumAudio
import HumControl
import HumCore
import HumPlayer
import HumSystem
import HumTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// Collects what would be printed while the full screen holds the terminal (warnings), to show it on the message
/// line instead of scribbling over the screen.
final class HeldOutput: TextOutput, @unchecked Sendable {
    // @unchecked: written and read on the screen's one thread.
    private var lines: [String] = []
    func write(_ text: String) { lines += text.split(separator: "\n").map(String.init) }
    /// The last line held, without the `hum: ` prefix, and forgets them all.
    func take() -> String? {
        defer { lines.removeAll() }
        guard var last = lines.last else { return nil }
        for prefix in ["hum: warning: ", "hum: "] where last.hasPrefix(prefix) { last.removeFirst(prefix.count) }
        return last
    }
}

/// The full screen (`hum ui`, bare `hum` on a terminal): one more view of the player, attached through the control
/// socket like a second `hum play`. It draws `DeskLayout`'s frames through ncurses, turns keys into the player's
/// requests through `DeskKeys`, and wakes only for a key, an event of the player, a signal, or a timer: the clock
/// (at each turn of the second during a running countdown or with ui.blink on, else of the minute), the controls'
/// idle hide, the
/// earned flash's end.
final class DeskScreen {
    /// Seconds without a key before only the clock and a summary remain.
    static let idleSeconds = 6.0
    /// How long an earned round shows in the accent colour.
    static let flashSeconds = 10.0

    let client: ControlClient
    /// The context the screen's own work (settings, mixes, the bank) runs in: warnings are held for the screen.
    let context: CommandContext
    let held = HeldOutput()
    /// The player was started for this screen: `q` stops it unless another client watches it.
    let startedHere: Bool
    private let loop = EventLoop()
    private let remote: RemotePlayer
    private var curses: CursesScreen?
    private var state: DeskState
    private var frame: DeskFrame?
    private var lastStatusAt = monotonicSeconds()
    private var shown: PlayerStatus?
    private var tick: EventLoop.Timer?
    private var idle: EventLoop.Timer?
    private var flash: EventLoop.Timer?
    private let bank: BankReader
    private var bankReadAt = -1e9
    private var ended = false
    private var stopOnLeave = false
    /// What leaving says on the shell's screen (focus rounds that run on).
    private var leavingNote: String?

    init(client: ControlClient, context: CommandContext, startedHere: Bool) {
        self.client = client
        var quiet = context
        quiet.stderr = held
        self.context = quiet
        self.startedHere = startedHere
        remote = RemotePlayer(client: client)
        bank = BankReader(context: quiet)
        state = DeskState(color: context.useColor)
    }

    /// Runs until `q`, `Q`, a signal or the player's end; the terminal is given back in every case.
    func run() throws -> Int32 {
        try loop.signals([SIGINT, SIGTERM, SIGHUP, SIGWINCH]) { [unowned self] signal in
            if signal == SIGWINCH {
                self.curses?.resize()
                self.redraw()
            } else {
                self.leave()
            }
        }
        state.sounds = Self.sounds(MixSetup.catalog(context.runtime))
        state.blink = (try? SettingsReader.read(context.runtime))?.isOn(SettingCatalog.uiBlink) ?? false
        do {
            curses = try CursesScreen(color: state.color)
        } catch {
            throw HumError.failure(error.message)
        }
        defer { curses?.close() }
        remote.onEvents = { [unowned self] in self.take($0) }
        apply(try remote.send(.subscribe))
        state.clock = Self.clockText()
        readBank(force: true)
        loop.watch(client.fd) { [unowned self] _ in
            do {
                self.take(try self.client.readAvailable())
            } catch {
                self.ended = true  // the player ended
                self.loop.stop()
            }
        }
        var input: EventLoop.Token?
        input = loop.watch(STDIN_FILENO) { [unowned self] events in
            let keys = self.curses?.keys() ?? []
            if keys.isEmpty, events & Int16(POLLHUP | POLLERR) != 0 {
                // The terminal went away: no key will come again.
                if let input { self.loop.remove(input) }
                self.leave()
                return
            }
            for key in keys { self.press(key) }
        }
        tick = try loop.timer(clock: CLOCK_REALTIME) { [unowned self] in self.redraw() }
        idle = try loop.timer { [unowned self] in
            // A panel being used (adding, saving, loading, the keys) stays until it is closed.
            guard self.state.panel == .main else { return }
            self.state.controlsShown = false
            self.redraw()
        }
        flash = try loop.timer { [unowned self] in
            self.state.earned = nil
            self.redraw()
        }
        idle?.arm(after: Self.idleSeconds)
        redraw()
        loop.run()
        if stopOnLeave, !ended { _ = try? PlayerLink.send(.stop, to: client) }
        curses?.close()
        curses = nil
        if ended { context.stdout.write("the player has stopped\n") }
        if let leavingNote, !stopOnLeave { context.stdout.write(leavingNote + "\n") }
        return ExitCode.success
    }

    // MARK: The player's side

    private func take(_ messages: [ServerMessage]) {
        for message in messages {
            if case .event(let event) = message {
                if event.what.contains(.focus) { readBank(force: true) }
                apply(event.status)
            }
        }
    }

    private func apply(_ status: PlayerStatus) {
        shown = status
        lastStatusAt = monotonicSeconds()
        redraw()
    }

    /// The bank again, at most every few seconds (a phase change always reads it): a round that earned shows.
    private func readBank(force: Bool = false) {
        let now = monotonicSeconds()
        guard force || now - bankReadAt > 5 else { return }
        bankReadAt = now
        guard access(context.paths.databasePath, F_OK) == 0 else {
            // Nothing banked yet, and no database is made to say so.
            let config = LedgerConfig()
            _ = state.receive(
                bank: DeskBank(
                    balanceSeconds: 0, earnedTodaySeconds: 0, dailyCapSeconds: config.dailyCapSeconds,
                    emergencyLeftSeconds: config.emergencyWeeklySeconds,
                    emergencyWeeklySeconds: config.emergencyWeeklySeconds))
            return
        }
        guard let status = bank.status() else {
            _ = state.receive(bank: nil)
            return
        }
        let bank = DeskBank(
            balanceSeconds: status.balance, earnedTodaySeconds: status.earnedToday, dailyCapSeconds: status.dailyCap,
            emergencyLeftSeconds: status.emergencyLeft, emergencyWeeklySeconds: status.emergencyWeekly,
            pass: status.openPass.map { DeskBank.Pass(label: $0.label, deadlineEpoch: $0.deadline.epochSeconds) })
        if state.receive(bank: bank) { flash?.arm(after: Self.flashSeconds) }
    }

    // MARK: Drawing

    /// Draws the state as it is now (the status moved on by the time since it came), and arms the clock for the
    /// next change it can show: the next second while a countdown runs, else the next minute.
    private func redraw() {
        guard let curses else { return }
        state.status = shown.map { $0.advanced(by: Int64(monotonicSeconds() - lastStatusAt)) }
        state.nowEpoch = SystemClock().nowEpochSeconds()
        let clock = Self.clockText()
        // A new minute: the bank again (a pass opened or a grant written by another hum), on a wake-up the clock
        // makes anyway.
        if clock != state.clock, state.bank != nil { readBank(force: true) }
        state.clock = clock
        if let message = held.take() { state.message = message }
        let next = DeskLayout.frame(state, columns: curses.columns, rows: curses.rows)
        curses.draw(next)
        frame = next
        let counting = state.status?.focus.map { !$0.paused && !$0.waiting } ?? false
        tick?.armAtNextMultiple(of: counting || state.blink ? 1 : 60)
    }

    static func clockText() -> String {
        let s = Int(LocalCalendar.system.now().localSecondOfDay)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(s / 3600)):\(two(s % 3600 / 60))"
    }

    // MARK: Keys

    private func press(_ key: Key) {
        idle?.arm(after: Self.idleSeconds)
        readBank()
        state.status = shown.map { $0.advanced(by: Int64(monotonicSeconds() - lastStatusAt)) }
        let action = DeskKeys.handle(key, state: &state, bars: frame?.bars ?? [])
        do {
            switch action {
            case .none: break
            case .command(let command): send(command)
            case .toggleFocus:
                if state.status?.focus != nil {
                    send(.endFocus)
                } else {
                    send(.focus(try focusRequest()))
                }
            case .saveMix(let name):
                guard let mix = shown?.mix else { break }
                try LedgerCLI.open(context).saveMix(mix, as: name)
                state.message = "saved @\(name): \(mix.summary)"
            case .openLoad:
                state.mixes = try LedgerCLI.open(context).savedMixes().map {
                    DeskMix(name: $0.name, summary: $0.mix.summary)
                }
                state.cursor = 0
                state.panel = .load
            case .loadMix(let name):
                guard var mix = try LedgerCLI.open(context).mix(named: name) else {
                    state.message = "there is no saved mix \(name.quoted)"
                    break
                }
                mix.name = name
                send(.play(mix))
                state.selected = 0
            case .quit:
                leave()
                return
            case .stopPlayer:
                stopOnLeave = true
                loop.stop()
                return
            }
        } catch let error as any UserFacingError {
            state.message = error.message
        } catch {
            state.message = "\(error)"
        }
        redraw()
    }

    private func send(_ command: PlayerCommand) {
        do {
            apply(try remote.send(command))
        } catch let error as any UserFacingError {
            state.message = error.message
        } catch {
            state.message = "\(error)"
        }
    }

    /// The focus rounds `f` starts: the plan of the settings, as a bare `hum focus` would run it.
    private func focusRequest() throws -> FocusRequest {
        let settings = try SettingsReader.read(context.runtime, required: true)
        return try FocusOptions().resolve(settings: settings).request
    }

    /// `q`, Ctrl-C, SIGTERM, SIGHUP: leave, as DeskLeave decides: focus rounds run on; otherwise a player
    /// started for this screen stops (with its fade) unless another client watches it; one started apart plays on.
    private func leave() {
        if !ended {
            let decision = DeskLeave.decide(startedHere: startedHere, status: try? PlayerLink.send(.status, to: client))
            stopOnLeave = decision.stopPlayer
            leavingNote = decision.note
        }
        loop.stop()
    }

    /// The sounds that can be added: built-in ones with the manifest's description, then the user's.
    static func sounds(_ catalog: SoundCatalog) -> [DeskSound] {
        let descriptions = Dictionary(
            (catalog.manifest?.sounds ?? []).map { ($0.id, $0.description) }, uniquingKeysWith: { a, _ in a })
        return catalog.builtins.map { DeskSound(name: $0.name, description: descriptions[$0.name] ?? $0.title) }
            + catalog.userSounds.map { DeskSound(name: $0.name, description: "your sound (\($0.path))") }
    }
}
