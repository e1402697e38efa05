import HumControl
import HumCore
import HumPlayer
import HumSystem
import HumTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// The one-line live screen on a terminal: it shows the player's status (redrawn when something changes, and
/// once a second for the clock) and turns keys into requests to the player, local or remote.
final class LineScreen: PlayerView {
    let terminal = Terminal()
    let color: Bool
    weak var player: (any PlayerHandle)?
    /// What `q` does: stop the player (it exists for this screen) or only leave.
    let onQuit: () -> Void
    private var view = PlayerLine()
    private var decoder = KeyDecoder()
    private var last: PlayerStatus?
    private var lastShownAt = monotonicSeconds()
    private var lastLine = ""
    private var tick: EventLoop.Timer?
    private var escapeTimer: EventLoop.Timer?
    private var keysToken: EventLoop.Token?
    private unowned let loop: EventLoop

    init(loop: EventLoop, color: Bool, player: any PlayerHandle, onQuit: @escaping () -> Void) throws {
        self.loop = loop
        self.color = color
        self.player = player
        self.onQuit = onQuit
        terminal.enterRawMode()
        keysToken = loop.watch(STDIN_FILENO) { [unowned self] events in self.readKeys(events) }
        tick = try loop.timer { [unowned self] in self.redraw() }
        tick?.repeating(every: 1)
        escapeTimer = try loop.timer { [unowned self] in
            for key in self.decoder.flushEscape() { self.press(key) }
        }
    }

    /// Shows a status (a change happened).
    func show(_ status: PlayerStatus) {
        last = status
        lastShownAt = monotonicSeconds()
        draw(status)
    }

    /// Redraws with the clock moved on (the tick).
    private func redraw() {
        guard let last else { return }
        draw(last.advanced(by: Int64(monotonicSeconds() - lastShownAt)))
    }

    private func draw(_ status: PlayerStatus) {
        let line = view.text(status, color: color)
        if line != lastLine {
            terminal.statusLine(line)
            lastLine = line
        }
    }

    /// Clears the line so a message can be printed; the next `show` draws it again.
    func interrupt() {
        terminal.endStatusLine()
        lastLine = ""
    }

    func bell() { terminal.write("\u{7}") }

    private func readKeys(_ events: Int16) {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = read(STDIN_FILENO, &buffer, buffer.count)
        if n <= 0 {
            // The terminal went away (hang-up): keys will not come again.
            if let keysToken { loop.remove(keysToken) }
            keysToken = nil
            return
        }
        for key in decoder.decode(Array(buffer[0..<n])) { press(key) }
        escapeTimer?.arm(after: 0.05)  // a lone ESC is the Escape key when nothing follows it
    }

    private func press(_ key: Key) {
        guard let status = last else { return }
        switch view.handle(key, status: status) {
        case .none:
            draw(status)
        case .help:
            interrupt()
            terminal.write(PlayerLine.keysHelp + "\n")
            draw(status)
        case .quit:
            onQuit()
        case .command(let command):
            do {
                if let next = try player?.send(command) { show(next) }
            } catch let error as any UserFacingError {
                interrupt()
                terminal.write("hum: \(error.message)\n")
                draw(status)
            } catch {}
        }
    }

    func close() {
        tick = nil
        escapeTimer = nil
        if let keysToken { loop.remove(keysToken) }
        keysToken = nil
        terminal.endStatusLine()
        terminal.restore()
    }
}
