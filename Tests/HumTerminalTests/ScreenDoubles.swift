import HumCore
import HumTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// A pipe whose read end does not block: keys or events written by a test, read by a screen on the manual loop.
final class TestPipe {
    let read: Int32
    private(set) var write: Int32

    init() {
        var fds: [Int32] = [0, 0]
        precondition(pipe(&fds) == 0, "pipe failed")
        read = fds[0]
        write = fds[1]
        _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
    }

    func send(_ text: String) { send(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { Glibc.write(write, $0.baseAddress!, $0.count) } }

    /// The bytes waiting; nil at the end of the pipe (the write end closed).
    func drain() -> [UInt8]? {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let n = Glibc.read(read, &buffer, buffer.count)
            if n > 0 {
                all += buffer[0..<n]
            } else if n == 0 {
                return all.isEmpty ? nil : all
            } else {
                return all
            }
        }
    }

    /// The writer goes away: the reader sees the end (a hang-up).
    func hangUp() {
        guard write >= 0 else { return }
        close(write)
        write = -1
    }

    deinit {
        hangUp()
        close(read)
    }
}

/// A player that records every request and answers with its status as the test sets it; events are written to a
/// pipe the screen's loop watches, as the control socket's would be.
final class RecordingPlayer: WatchedPlayer {
    var status: PlayerStatus
    private(set) var commands: [PlayerCommand] = []
    var onEvents: ([ControlEvent]) -> Void = { _ in }
    private let events = TestPipe()
    private var queued: [ControlEvent] = []

    init(_ status: PlayerStatus) { self.status = status }

    /// The requests, without the screen's own bookkeeping (subscribing, reading the status to leave).
    var steering: [PlayerCommand] { commands.filter { $0 != .subscribe && $0 != .status } }

    var eventsFD: Int32 { events.read }

    func send(_ command: PlayerCommand) throws -> PlayerStatus {
        commands.append(command)
        switch command {
        case .toggle: status.state = status.state == .playing ? .paused : .playing
        case .master(let volume): status.mix.master = volume
        case .stop: status.state = .stopping
        case .endFocus: status.focus = nil
        default: break
        }
        return status
    }

    /// The player says something changed.
    func post(_ next: PlayerStatus, what: [ControlEvent.Subsystem] = [.state]) {
        status = next
        queued.append(ControlEvent(what: what, status: next))
        events.send("e")
    }

    /// The player ends: its connection closes.
    func end() { events.hangUp() }

    struct Gone: Error {}

    func readEvents() throws -> [ControlEvent] {
        guard events.drain() != nil else { throw Gone() }
        defer { queued = [] }
        return queued
    }
}

/// The one-line screen's terminal: keys through a pipe, and every line and write kept.
final class PipeTerminal: LineTerminal {
    let keys = TestPipe()
    private(set) var lines: [String] = []
    private(set) var written: [String] = []
    private(set) var raw = false

    var input: Int32 { keys.read }
    func enterRawMode() { raw = true }
    func restore() { raw = false }
    func statusLine(_ text: String) { lines.append(text) }
    func endStatusLine() {}
    func write(_ text: String) { written.append(text) }
}

/// The full screen's display: keys decoded from a pipe, every frame kept.
final class PipeDisplay: DeskDisplay {
    let keysPipe = TestPipe()
    private var decoder = KeyDecoder()
    private(set) var frames: [DeskFrame] = []
    private(set) var closed = false

    var input: Int32 { keysPipe.read }
    let columns = 80
    let rows = 24
    func draw(_ frame: DeskFrame) { frames.append(frame) }
    func keys() -> [Key] { decoder.decode(keysPipe.drain() ?? []) + decoder.flushEscape() }
    func resize() {}
    func close() { closed = true }

    /// The last frame's text, line by line.
    var shown: String { frames.last.map { $0.lines.map(\.text).joined(separator: "\n") } ?? "" }
}

/// A status for the screens: rain and brown playing, focus rounds if given.
func screenStatus(focus: PlayerStatus.Focus? = nil) -> PlayerStatus {
    PlayerStatus(
        pid: 42, session: "s", state: .playing,
        mix: Mix(tracks: [.init(sound: "rain", volume: 40), .init(sound: "brown", volume: 25)], master: 80),
        focus: focus)
}

/// Focus round 2 of 4 with 12:04 left.
func runningFocus(remaining: Int64 = 724) -> PlayerStatus.Focus {
    PlayerStatus.Focus(
        phase: .focus, round: 2, rounds: 4, remainingSeconds: remaining, plannedSeconds: 1500, deadline: nil,
        paused: false, waiting: false, goal: nil, tags: [])
}
