/// What the desktop's media controls (MPRIS: media keys, GNOME and KDE panels, `playerctl`) see of a player: a
/// pure view of `PlayerStatus`, so the bus adapter only marshals it. docs/desktop.md has the whole mapping.
public struct MediaPlayerView: Equatable, Sendable {
    /// MPRIS's PlaybackStatus, spelled as the specification spells it.
    public enum PlaybackStatus: String, Equatable, Sendable {
        case playing = "Playing"
        case paused = "Paused"
        case stopped = "Stopped"
    }

    public var playbackStatus: PlaybackStatus
    /// `mpris:trackid`: an object path, the same for the whole of a phase (or of a plain mix).
    public var trackID: String
    /// `xesam:title`: "Focus 2/4", "Short break", "Long break", or the mix's name when no plan runs.
    public var title: String
    /// `xesam:artist`: the mix as text ("rain 40, brown 25").
    public var artist: String
    /// `mpris:length` in microseconds: the phase's planned length (extensions included), a timed play's length;
    /// nil when the mix plays until stopped.
    public var lengthMicroseconds: Int64?
    /// Position: the time into the phase (or into the play), in microseconds.
    public var positionMicroseconds: Int64
    /// Volume: the master volume on MPRIS's 0.0–1.0 (see `volume(master:)`).
    public var volume: Double
    /// Next skips to the next phase: only when a plan runs.
    public var canGoNext: Bool
    /// Previous restarts the focus round under way: only during a focus round.
    public var canGoPrevious: Bool

    public init(status: PlayerStatus) {
        let focus = status.focus
        switch status.state {
        case .stopping: playbackStatus = .stopped
        case .paused: playbackStatus = .paused
        case .playing: playbackStatus = focus.map { $0.paused || $0.waiting } == true ? .paused : .playing
        }
        let live = status.state != .stopping
        let session = MediaPlayerView.pathElement(status.session)
        artist = MediaPlayerView.describe(status.mix)
        volume = MediaPlayerView.volume(master: status.mix.master)
        if let focus {
            trackID = "/org/hum/\(session)/\(focus.phase.rawValue.replacingDashes)_\(focus.round)"
            title = MediaPlayerView.title(of: focus)
            lengthMicroseconds = max(0, focus.plannedSeconds) * 1_000_000
            positionMicroseconds = max(0, focus.plannedSeconds - focus.remainingSeconds) * 1_000_000
            canGoNext = live
            canGoPrevious = live && focus.phase == .focus && !focus.waiting
        } else {
            trackID = "/org/hum/\(session)/mix"
            title = status.mix.name ?? MediaPlayerView.names(status.mix)
            lengthMicroseconds = status.endsInSeconds.map { max(0, status.elapsedSeconds + $0) * 1_000_000 }
            positionMicroseconds = max(0, status.elapsedSeconds) * 1_000_000
            canGoNext = false
            canGoPrevious = false
        }
    }

    /// The view without the position, which moves by itself: what a change is announced for (the specification
    /// says clients read Position when they need it).
    public var announced: MediaPlayerView {
        var copy = self
        copy.positionMicroseconds = 0
        return copy
    }

    // MARK: Volume

    /// MPRIS Volume from hum's master: master / 100. hum's 0–100 scale is already perceptual (cubic, like
    /// PulseAudio's sliders), and panels show Volume as a percentage on their slider, so `playerctl volume 0.5`
    /// means master 50 (−18 dB), the middle of hum's scale, not half the linear gain (which would be master 79).
    public static func volume(master: Double) -> Double {
        guard master.isFinite else { return 0 }
        return min(max(master, 0), 100) / 100
    }

    /// hum's master from an MPRIS Volume: × 100, to a tenth, clamped to 0–100 (the specification asks a negative
    /// volume to be taken as 0; hum has nothing above 100). Nil for a value that is not a number.
    public static func master(volume: Double) -> Double? {
        guard volume.isFinite else { return nil }
        return (min(max(volume, 0), 1) * 1000).rounded() / 10
    }

    // MARK: Text

    static func title(of focus: PlayerStatus.Focus) -> String {
        switch focus.phase {
        case .focus: "Focus \(focus.round)/\(focus.rounds)"
        case .shortBreak: "Short break"
        case .longBreak: "Long break"
        }
    }

    /// The mix as text: each sound with its volume, mutes said; "no sound" for the timer alone.
    static func describe(_ mix: Mix) -> String {
        guard !mix.tracks.isEmpty else { return "no sound" }
        return mix.tracks.map {
            "\($0.displayName) \(MixSpec.formatVolume($0.volume))\($0.muted ? " (muted)" : "")"
        }.joined(separator: ", ")
    }

    /// A title for a mix with no name: its sounds' names.
    static func names(_ mix: Mix) -> String {
        mix.tracks.isEmpty ? "hum" : mix.tracks.map(\.displayName).joined(separator: ", ")
    }

    /// A string made fit for one element of an object path (letters, digits and `_`).
    static func pathElement(_ text: String) -> String {
        let element = String(
            text.unicodeScalars.map { s -> Character in
                s.isASCII && (s.properties.isAlphabetic || ("0"..."9").contains(s)) ? Character(s) : "_"
            })
        return element.isEmpty ? "_" : element
    }
}

extension String {
    fileprivate var replacingDashes: String { String(map { $0 == "-" ? "_" : $0 }) }
}
