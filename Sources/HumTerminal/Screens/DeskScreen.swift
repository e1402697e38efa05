import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The full screen (`hum ui`, bare `hum` on a terminal): one more view of the player, attached through the control
/// socket like a second `hum play`. It draws `DeskLayout`'s frames on a `DeskDisplay` (ncurses), turns keys into the
/// player's requests through `DeskKeys`, and wakes only for a key, an event of the player, a signal, or a timer: the
/// clock (at each turn of the second during a running countdown or with ui.blink on, else of the minute), the
/// controls' idle hide, the earned flash's end.
///
/// It knows the player as a `WatchedPlayer`, the loop as an `EventLoopProtocol`, and everything else through
/// `DeskServices`: the caller runs the loop between `start()` and `finish()`.
public final class DeskScreen {
    /// Seconds without a key before only the clock and a summary remain.
    public static let idleSeconds = 6.0
    /// How long an earned round shows in the accent colour.
    public static let flashSeconds = 10.0

    /// The player was started for this screen: `q` stops it unless another client watches it.
    public let startedHere: Bool
    private let services: DeskServices
    private unowned let loop: any EventLoopProtocol
    private let remote: any WatchedPlayer
    private var display: (any DeskDisplay)?
    private var state: DeskState
    private var frame: DeskFrame?
    private var lastStatusAt: Double
    private var shown: PlayerStatus?
    private var tick: (any LoopTimer)?
    private var idle: (any LoopTimer)?
    private var flash: (any LoopTimer)?
    private var tokens: [LoopToken] = []
    private var bankReadAt = -1e9
    private var ended = false
    private var stopOnLeave = false
    /// What leaving says on the shell's screen (focus rounds that run on).
    private var leavingNote: String?

    public init(
        loop: any EventLoopProtocol, player: any WatchedPlayer, startedHere: Bool, color: Bool,
        services: DeskServices
    ) {
        self.loop = loop
        self.remote = player
        self.startedHere = startedHere
        self.services = services
        lastStatusAt = loop.monotonicSeconds
        state = DeskState(color: color)
    }

    /// Takes the signals that end the screen, opens the display, subscribes to the player and draws the first
    /// frame. The display is given back if any of it fails.
    public func start() throws {
        tokens.append(
            try loop.takeSignals([SIGINT, SIGTERM, SIGHUP, SIGWINCH]) { [unowned self] signal in
                if signal == SIGWINCH {
                    self.display?.resize()
                    self.redraw()
                } else {
                    self.leave()
                }
            })
        state.sounds = services.sounds
        state.blink = services.blink
        display = try services.openDisplay(state.color)
        do {
            try begin()
        } catch {
            close()
            throw error
        }
    }

    private func begin() throws {
        remote.onEvents = { [unowned self] in self.take($0) }
        apply(try remote.send(.subscribe))
        state.clock = clockText()
        readBank(force: true)
        tokens.append(
            loop.watch(remote.eventsFD) { [unowned self] _ in
                do {
                    self.take(try self.remote.readEvents())
                } catch {
                    self.ended = true  // the player ended
                    self.loop.stop()
                }
            })
        if let display {
            var input: LoopToken?
            input = loop.watch(display.input) { [unowned self] events in
                let keys = self.display?.keys() ?? []
                if keys.isEmpty, events & Int16(POLLHUP | POLLERR) != 0 {
                    // The terminal went away: no key will come again.
                    if let input { self.loop.remove(input) }
                    self.leave()
                    return
                }
                for key in keys { self.press(key) }
            }
            if let input { tokens.append(input) }
        }
        tick = try loop.makeTimer(clock: .wall) { [unowned self] in self.redraw() }
        idle = try loop.makeTimer { [unowned self] in
            // A panel being used (adding, saving, loading, the keys) stays until it is closed.
            guard self.state.panel == .main else { return }
            self.state.controlsShown = false
            self.redraw()
        }
        flash = try loop.makeTimer { [unowned self] in
            self.state.earned = nil
            self.redraw()
        }
        idle?.arm(after: Self.idleSeconds)
        redraw()
    }

    /// After the loop ran: stops the player when leaving asked it, gives the terminal back, and says what goes on.
    public func finish() {
        if stopOnLeave, !ended { _ = try? remote.send(.stop) }
        close()
        if ended { services.say("the player has stopped") }
        if let leavingNote, !stopOnLeave { services.say(leavingNote) }
    }

    private func close() {
        for token in tokens { loop.remove(token) }
        tokens = []
        tick = nil
        idle = nil
        flash = nil
        display?.close()
        display = nil
    }

    // MARK: The player's side

    private func take(_ events: [ControlEvent]) {
        for event in events {
            if event.what.contains(.focus) { readBank(force: true) }
            apply(event.status)
        }
    }

    private func apply(_ status: PlayerStatus) {
        shown = status
        lastStatusAt = loop.monotonicSeconds
        redraw()
    }

    /// The bank again, at most every few seconds (a phase change always reads it): a round that earned shows.
    private func readBank(force: Bool = false) {
        let now = loop.monotonicSeconds
        guard force || now - bankReadAt > 5 else { return }
        bankReadAt = now
        if state.receive(bank: services.readBank()) { flash?.arm(after: Self.flashSeconds) }
    }

    // MARK: Drawing

    /// Draws the state as it is now (the status moved on by the time since it came), and arms the clock for the
    /// next change it can show: the next second while a countdown runs, else the next minute.
    private func redraw() {
        guard let display else { return }
        state.status = shown.map { $0.advanced(by: Int64(loop.monotonicSeconds - lastStatusAt)) }
        state.nowEpoch = services.calendar.clock.nowEpochSeconds()
        let clock = clockText()
        // A new minute: the bank again (a pass opened or a grant written by another hum), on a wake-up the clock
        // makes anyway.
        if clock != state.clock, state.bank != nil { readBank(force: true) }
        state.clock = clock
        if let message = services.heldMessage() { state.message = message }
        let next = DeskLayout.frame(state, columns: display.columns, rows: display.rows)
        display.draw(next)
        frame = next
        let counting = state.status?.focus.map { !$0.paused && !$0.waiting } ?? false
        tick?.armAtNextMultiple(of: counting || state.blink ? 1 : 60)
    }

    private func clockText() -> String {
        let s = Int(services.calendar.now().localSecondOfDay)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(s / 3600)):\(two(s % 3600 / 60))"
    }

    // MARK: Keys

    private func press(_ key: Key) {
        idle?.arm(after: Self.idleSeconds)
        readBank()
        state.status = shown.map { $0.advanced(by: Int64(loop.monotonicSeconds - lastStatusAt)) }
        let action = DeskKeys.handle(key, state: &state, bars: frame?.bars ?? [])
        do {
            switch action {
            case .none: break
            case .command(let command): send(command)
            case .toggleFocus:
                if state.status?.focus != nil {
                    send(.endFocus)
                } else {
                    send(.focus(try services.focusRequest()))
                }
            case .saveMix(let name):
                guard let mix = shown?.mix else { break }
                try services.saveMix(mix, name)
                state.message = "saved @\(name): \(mix.summary)"
            case .openLoad:
                state.mixes = try services.savedMixes()
                state.cursor = 0
                state.panel = .load
            case .loadMix(let name):
                guard var mix = try services.mixNamed(name) else {
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

    /// `q`, Ctrl-C, SIGTERM, SIGHUP: leave, as DeskLeave decides: focus rounds run on; otherwise a player
    /// started for this screen stops (with its fade) unless another client watches it; one started apart plays on.
    private func leave() {
        if !ended {
            let decision = DeskLeave.decide(startedHere: startedHere, status: try? remote.send(.status))
            stopOnLeave = decision.stopPlayer
            leavingNote = decision.note
        }
        loop.stop()
    }
}
