import HumCore

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
