import HumCore

/// What the live line of `hum play` shows, and how keys change it. Pure: the frontend applies the result to the
/// mixer's controls.
public struct MixerView: Sendable, Equatable {
    public struct Track: Sendable, Equatable {
        public var name: String
        public var volume: Double
        public var muted: Bool
        public init(name: String, volume: Double, muted: Bool = false) {
            self.name = name
            self.volume = volume
            self.muted = muted
        }
    }

    public var tracks: [Track]
    public var master: Double
    public var selected: Int = 0

    public init(tracks: [Track], master: Double) {
        self.tracks = tracks
        self.master = master
    }

    public enum Action: Equatable, Sendable {
        case none
        case volume(track: Int, Double)
        case mute(track: Int, Bool)
        case master(Double)
        case quit
    }

    public static let step = 5.0

    /// Applies a key: ↑/↓ select, ←/→ volume ±5, m mute, +/- master, q quit.
    public mutating func handle(_ key: Key) -> Action {
        switch key {
        case .up:
            if !tracks.isEmpty { selected = (selected + tracks.count - 1) % tracks.count }
            return .none
        case .down:
            if !tracks.isEmpty { selected = (selected + 1) % tracks.count }
            return .none
        case .left, .right:
            guard tracks.indices.contains(selected) else { return .none }
            let delta = key == .right ? MixerView.step : -MixerView.step
            tracks[selected].volume = MixerView.clamp(tracks[selected].volume + delta)
            return .volume(track: selected, tracks[selected].volume)
        case .character("m"), .character("M"):
            guard tracks.indices.contains(selected) else { return .none }
            tracks[selected].muted.toggle()
            return .mute(track: selected, tracks[selected].muted)
        case .character("+"), .character("="):
            master = MixerView.clamp(master + MixerView.step)
            return .master(master)
        case .character("-"), .character("_"):
            master = MixerView.clamp(master - MixerView.step)
            return .master(master)
        case .character("q"), .character("Q"), .interrupt:
            return .quit
        default:
            return .none
        }
    }

    static func clamp(_ v: Double) -> Double { min(100, max(0, (v / MixerView.step).rounded() * MixerView.step)) }

    /// The line: `rain 40 · ›brown 25‹ · fan muted │ master 80 │ 12:34`. With colour, the selected track is shown
    /// in reverse video instead of between marks.
    public func line(elapsedSeconds: Int64, color: Bool, note: String? = nil) -> String {
        let parts = tracks.enumerated().map { index, track -> String in
            let level = track.muted ? "muted" : MixSpec.formatVolume(track.volume)
            let text = "\(track.name) \(level)"
            guard index == selected else { return text }
            return color ? "\u{1B}[7m\(text)\u{1B}[0m" : "›\(text)‹"
        }
        var out = "♪ " + parts.joined(separator: " · ")
        out += " │ master \(MixSpec.formatVolume(master)) │ \(DurationText.clock(seconds: elapsedSeconds))"
        if let note { out += " │ \(note)" }
        return out
    }
}
