import HumCore

/// The one-line screen of a player, for a small pane: what it shows of the player's status, and what each key
/// asks of the player. Pure: the status comes from the player (its own, or a remote one's through the socket), and
/// a key becomes a `PlayerCommand` the player runs like any other client's.
public struct PlayerLine: Sendable, Equatable {
    /// The selected sound (↑/↓), kept within the mix.
    public var selected = 0

    public init() {}

    /// What a key means.
    public enum Outcome: Equatable, Sendable {
        case none
        case command(PlayerCommand)
        /// Leave the screen (`q`, Ctrl-C).
        case quit
        /// Show the keys (`?`).
        case help
    }

    public static let step = 5.0

    public static let keysHelp =
        "keys: ↑/↓ sound · ←/→ volume · 0–9 volume 0–90 · m mute · +/- master · space pause · s skip · e +5 min "
        + "· q quit"

    public mutating func handle(_ key: Key, status: PlayerStatus) -> Outcome {
        let tracks = status.mix.tracks
        if !tracks.isEmpty { selected = min(max(selected, 0), tracks.count - 1) }
        let current = tracks.indices.contains(selected) ? tracks[selected] : nil
        func volume(_ v: Double) -> Outcome {
            guard let current else { return .none }
            return .command(.volume(sound: current.sound, volume: PlayerLine.clamp(v)))
        }
        switch key {
        case .up:
            if !tracks.isEmpty { selected = (selected + tracks.count - 1) % tracks.count }
            return .none
        case .down:
            if !tracks.isEmpty { selected = (selected + 1) % tracks.count }
            return .none
        case .left: return volume((current?.volume ?? 0) - PlayerLine.step)
        case .right: return volume((current?.volume ?? 0) + PlayerLine.step)
        case .character(let c) where c.isASCII && c.isNumber:
            return volume(Double(c.wholeNumberValue ?? 0) * 10)
        case .character("m"), .character("M"):
            guard let current else { return .none }
            return .command(.mute(sound: current.sound, muted: nil))
        case .character("+"), .character("="):
            return .command(.master(volume: PlayerLine.clamp(status.mix.master + PlayerLine.step)))
        case .character("-"), .character("_"):
            return .command(.master(volume: PlayerLine.clamp(status.mix.master - PlayerLine.step)))
        case .character(" "): return .command(.toggle)
        case .character("s"): return status.focus == nil ? .none : .command(.skip)
        case .character("e"): return status.focus == nil ? .none : .command(.extend(seconds: nil))
        case .character("?"): return .help
        case .character("q"), .character("Q"), .interrupt: return .quit
        default: return .none
        }
    }

    static func clamp(_ v: Double) -> Double { min(100, max(0, (v / PlayerLine.step).rounded() * PlayerLine.step)) }

    /// `♪ rain 40 · ›brown 25‹ │ master 80 │ 12:34`, after the countdown during focus rounds
    /// (`focus 2/4 12:04 ████░░░░ (paused)`). With colour, the selected sound is in reverse video instead of
    /// between marks. Names are shown with their control characters escaped.
    public func text(_ status: PlayerStatus, color: Bool) -> String {
        var out = ""
        if let focus = status.focus {
            let width = 20
            let planned = max(focus.plannedSeconds, 1)
            let progress = min(1, max(0, Double(planned - focus.remainingSeconds) / Double(planned)))
            let filled = Int((progress * Double(width)).rounded())
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            out = "\(focus.phase.rawValue) \(focus.round)/\(focus.rounds) "
            out += "\(DurationText.clock(seconds: focus.remainingSeconds)) \(bar)"
            if focus.paused { out += " (paused)" }
            if focus.waiting { out += " (press space to start)" }
            if status.mix.tracks.isEmpty { return out + (status.note.map { " │ \(VisibleText.escape($0))" } ?? "") }
            out += "  "
        }
        let parts = status.mix.tracks.enumerated().map { index, track -> String in
            let level = track.muted ? "muted" : MixSpec.formatVolume(track.volume)
            let text = "\(VisibleText.escape(track.displayName)) \(level)"
            guard index == selected else { return text }
            return color ? "\u{1B}[7m\(text)\u{1B}[0m" : "›\(text)‹"
        }
        out += "♪ " + parts.joined(separator: " · ") + " │ master \(MixSpec.formatVolume(status.mix.master))"
        if status.focus == nil {
            if let left = status.endsInSeconds {
                out += " │ \(DurationText.clock(seconds: left)) left"
            } else {
                out += " │ \(DurationText.clock(seconds: status.elapsedSeconds))"
            }
            if status.state == .paused { out += " │ paused" }
        }
        if status.state == .stopping { out += " │ stopping…" }
        if let note = status.note { out += " │ \(VisibleText.escape(note))" }
        return out
    }
}
