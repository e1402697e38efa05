import HumCore

/// What a key on the full screen asks for, beyond the change it made to the screen's own state.
public enum DeskAction: Equatable, Sendable {
    /// Nothing for the player (the screen's own state may have changed: redraw).
    case none
    /// A request to the player, as any client would send it.
    case command(PlayerCommand)
    /// `f`: start focus rounds with the plan of the settings, or end those running.
    case toggleFocus
    /// Save the mix under this name.
    case saveMix(String)
    /// `l`: the frontend reads the saved mixes into the state and opens the load panel.
    case openLoad
    /// Play the saved mix of this name.
    case loadMix(String)
    /// `q`: leave the screen (the player plays on if it was started apart or another client watches it).
    case quit
    /// `Q`: stop the player.
    case stopPlayer
}

/// What leaving the full screen (`q`, Ctrl-C, a closed terminal) does to the player, and what to say on the way
/// out. Leaving never costs a round: focus rounds under way run on in the player, even one started for this
/// screen; only `Q` (or `hum ctl stop`) stops them.
public struct DeskLeave: Equatable, Sendable {
    /// Stop the player (with its fade).
    public var stopPlayer: Bool
    /// A line for the shell's screen after the full screen is gone.
    public var note: String?

    /// `status` is the player's as the screen leaves (nil when it could not be read: then it is left alone);
    /// `startedHere` says the player was started for this screen.
    public static func decide(startedHere: Bool, status: PlayerStatus?) -> DeskLeave {
        guard let status, status.state != .stopping else { return DeskLeave(stopPlayer: false, note: nil) }
        if let focus = status.focus {
            let round = "\(focus.round)/\(focus.rounds)"
            return DeskLeave(
                stopPlayer: false,
                note: "focus \(round) runs on in the player: 'hum' to come back, 'hum ctl end-focus' to end the rounds")
        }
        // A player of this screen's own stops, unless another client watches it.
        let stop = startedHere && (status.subscribers ?? 1) <= 1
        return DeskLeave(stopPlayer: stop, note: nil)
    }
}

/// The full screen's key map: a key (or a click on a volume bar) changes the screen's state and may ask something
/// of the player. Pure; the frontend runs what it returns.
public enum DeskKeys {
    /// Volume steps of ←/→ and +/-.
    public static let step = 5.0

    /// Every key, for the help panel (`?`).
    public static let help: [(keys: String, what: String)] = [
        ("↑ ↓", "select a sound"),
        ("← →", "its volume by 5"),
        ("0–9", "its volume 0–90"),
        ("m", "mute or unmute it"),
        ("+ -", "master volume"),
        ("a", "add a sound (type to filter)"),
        ("x", "remove the selected sound"),
        ("f", "start or end focus rounds"),
        ("space", "pause or resume"),
        ("s", "skip to the next phase"),
        ("e", "extend the phase by 5 min"),
        ("S", "save the mix as…"),
        ("l", "load a saved mix"),
        ("click", "set a volume on its bar"),
        ("q", "leave (focus rounds and a player started apart play on)"),
        ("Q", "stop the player and leave"),
        ("?", "these keys"),
    ]

    /// One line of the keys for the foot of the screen.
    public static let hint = "a add · x remove · f focus · space pause · S save · l load · ? keys · q quit"

    public static func handle(_ key: Key, state: inout DeskState, bars: [DeskFrame.Bar] = []) -> DeskAction {
        state.message = nil
        if key == .interrupt { return .quit }
        switch state.panel {
        case .main: return main(key, &state, bars)
        case .add: return add(key, &state)
        case .save: return save(key, &state)
        case .load: return load(key, &state)
        case .help:
            state.panel = .main
            return key == .character("q") ? .quit : .none
        }
    }

    static func clamp(_ v: Double) -> Double { min(100, max(0, (v / step).rounded() * step)) }

    private static func main(_ key: Key, _ state: inout DeskState, _ bars: [DeskFrame.Bar]) -> DeskAction {
        let status = state.status
        let tracks = status?.mix.tracks ?? []
        if !tracks.isEmpty { state.selected = min(max(state.selected, 0), tracks.count - 1) }
        let current = state.selectedTrack
        // Any key brings the hidden controls back, and does what it does.
        state.controlsShown = true
        func volume(_ v: Double) -> DeskAction {
            guard let current else { return .none }
            return .command(.volume(sound: current.sound, volume: clamp(v)))
        }
        switch key {
        case .up:
            if !tracks.isEmpty { state.selected = (state.selected + tracks.count - 1) % tracks.count }
        case .down:
            if !tracks.isEmpty { state.selected = (state.selected + 1) % tracks.count }
        case .left: return volume((current?.volume ?? 0) - step)
        case .right: return volume((current?.volume ?? 0) + step)
        case .character(let c) where c.isASCII && c.isNumber:
            return volume(Double(c.wholeNumberValue ?? 0) * 10)
        case .character("m"):
            guard let current else { return .none }
            return .command(.mute(sound: current.sound, muted: nil))
        case .character("+"), .character("="):
            return .command(.master(volume: clamp((status?.mix.master ?? 100) + step)))
        case .character("-"), .character("_"):
            return .command(.master(volume: clamp((status?.mix.master ?? 100) - step)))
        case .character("a"):
            state.panel = .add
            state.filter = ""
            state.cursor = 0
        case .character("x"):
            guard let current else { return .none }
            return .command(.remove(sound: current.sound))
        case .character("f"): return .toggleFocus
        case .character(" "): return .command(.toggle)
        case .character("s"):
            guard status?.focus != nil else {
                state.message = "no focus rounds are running; f starts them"
                return .none
            }
            return .command(.skip)
        case .character("e"):
            guard status?.focus != nil else {
                state.message = "no focus rounds are running; f starts them"
                return .none
            }
            return .command(.extend(seconds: nil))
        case .character("S"):
            state.panel = .save
            state.name = status?.mix.name ?? ""
        case .character("l"): return .openLoad
        case .character("?"): state.panel = .help
        case .character("q"): return .quit
        case .character("Q"): return .stopPlayer
        case .click(let column, let row):
            guard let bar = bars.first(where: { $0.row == row && (0..<$0.width).contains(column - $0.column) })
            else { return .none }
            let volume = clamp(Double(column - bar.column) / Double(max(bar.width - 1, 1)) * 100)
            guard let sound = bar.sound else { return .command(.master(volume: volume)) }
            if let index = bar.index { state.selected = index }
            return .command(.volume(sound: sound, volume: volume))
        default: break
        }
        return .none
    }

    private static func add(_ key: Key, _ state: inout DeskState) -> DeskAction {
        let matches = state.matches
        switch key {
        case .escape:
            state.panel = .main
        case .up:
            if !matches.isEmpty { state.cursor = (state.cursor + matches.count - 1) % matches.count }
        case .down:
            if !matches.isEmpty { state.cursor = (state.cursor + 1) % matches.count }
        case .backspace:
            if !state.filter.isEmpty { state.filter.removeLast() }
            state.cursor = 0
        case .enter:
            guard matches.indices.contains(state.cursor) else {
                state.message = "no sound matches \(state.filter.quoted)"
                return .none
            }
            state.panel = .main
            let sound = matches[state.cursor].name
            state.selected = state.status?.mix.tracks.count ?? 0  // the new sound comes last
            return .command(.add(sound: sound, volume: Volume.default))
        case .character(let c):
            if state.filter.count < 64 { state.filter.append(c) }
            state.cursor = 0
        default: break
        }
        return .none
    }

    private static func save(_ key: Key, _ state: inout DeskState) -> DeskAction {
        switch key {
        case .escape: state.panel = .main
        case .backspace: if !state.name.isEmpty { state.name.removeLast() }
        case .enter:
            do throws(Mix.Problem) {
                try Mix.checkName(state.name)
            } catch {
                state.message = error.message
                return .none
            }
            state.panel = .main
            return .saveMix(state.name)
        case .character(let c):
            if state.name.count < 64, c.isLetter || c.isNumber || "-_.".contains(c) { state.name.append(c) }
        default: break
        }
        return .none
    }

    private static func load(_ key: Key, _ state: inout DeskState) -> DeskAction {
        let count = state.mixes.count
        switch key {
        case .escape, .character("q"): state.panel = .main
        case .up: if count > 0 { state.cursor = (state.cursor + count - 1) % count }
        case .down: if count > 0 { state.cursor = (state.cursor + 1) % count }
        case .enter:
            guard state.mixes.indices.contains(state.cursor) else {
                state.panel = .main
                return .none
            }
            state.panel = .main
            return .loadMix(state.mixes[state.cursor].name)
        default: break
        }
        return .none
    }
}
