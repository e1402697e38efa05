import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The one-line live screen on a terminal: it shows the player's status (redrawn when something changes, and
/// once a second for the clock) and turns keys into requests to the player, local or remote. It knows the player
/// only as a `PlayerHandle` and the loop only as an `EventLoopProtocol`, so a test drives it with a manual loop, a
/// pipe for the keys and a player that records what it is asked.
public final class LineScreen: PlayerView {
    /// How long a lone ESC waits for the rest of an arrow key's sequence before it is the Escape key.
    public static let escapeSeconds = 0.05

    public let terminal: any LineTerminal
    public let color: Bool
    public weak var player: (any PlayerHandle)?
    /// What `q` does: stop the player (it exists for this screen) or only leave.
    let onQuit: () -> Void
    private var view = PlayerLine()
    private var decoder = KeyDecoder()
    private var last: PlayerStatus?
    private var lastShownAt: Double
    private var lastLine = ""
    private var tick: (any LoopTimer)?
    private var escapeTimer: (any LoopTimer)?
    private var keysToken: LoopToken?
    private unowned let loop: any EventLoopProtocol

    /// `terminal`: where keys come from and the line goes (`Terminal()`: stdin and stdout), put in raw mode until
    /// `close()`.
    public init(
        loop: any EventLoopProtocol, terminal: any LineTerminal, color: Bool, player: any PlayerHandle,
        onQuit: @escaping () -> Void
    ) throws(LoopError) {
        self.loop = loop
        self.terminal = terminal
        self.color = color
        self.player = player
        self.onQuit = onQuit
        lastShownAt = loop.monotonicSeconds
        terminal.enterRawMode()
        keysToken = loop.watch(terminal.input) { [unowned self] events in self.readKeys(events) }
        tick = try loop.makeTimer { [unowned self] in self.redraw() }
        tick?.repeating(every: 1)
        escapeTimer = try loop.makeTimer { [unowned self] in
            for key in self.decoder.flushEscape() { self.press(key) }
        }
    }

    /// Shows a status (a change happened).
    public func show(_ status: PlayerStatus) {
        last = status
        lastShownAt = loop.monotonicSeconds
        draw(status)
    }

    /// Redraws with the clock moved on (the tick).
    private func redraw() {
        guard let last else { return }
        draw(last.advanced(by: Int64(loop.monotonicSeconds - lastShownAt)))
    }

    private func draw(_ status: PlayerStatus) {
        let line = view.text(status, color: color)
        if line != lastLine {
            terminal.statusLine(line)
            lastLine = line
        }
    }

    /// Clears the line so a message can be printed; the next `show` draws it again.
    public func interrupt() {
        terminal.endStatusLine()
        lastLine = ""
    }

    public func bell() { terminal.write("\u{7}") }

    private func readKeys(_ events: Int16) {
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = read(terminal.input, &buffer, buffer.count)
        if n <= 0 {
            // The terminal went away (hang-up): keys will not come again.
            if let keysToken { loop.remove(keysToken) }
            keysToken = nil
            return
        }
        for key in decoder.decode(Array(buffer[0..<n])) { press(key) }
        escapeTimer?.arm(after: Self.escapeSeconds)  // a lone ESC is the Escape key when nothing follows it
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

    public func close() {
        tick = nil
        escapeTimer = nil
        if let keysToken { loop.remove(keysToken) }
        keysToken = nil
        terminal.endStatusLine()
        terminal.restore()
    }
}
