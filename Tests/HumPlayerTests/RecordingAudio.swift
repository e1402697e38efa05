import HumAudio
import HumCore
import HumTestSupport

@testable import HumPlayer

/// The player's audio for tests: no device and no audio thread; it notes every call the player makes, with the
/// loop's monotonic time, keeps the mix as the session would play it, and has new sounds loaded at once.
///
/// It lives here rather than in HumTestSupport: the seam speaks the runtime's types (`MixEntry`, `LoadedSound`,
/// `SoundLoad`, `PlayerError`), which are HumPlayer's, and HumTestSupport depends on HumCore alone.
final class RecordingAudio: PlayerAudio {
    enum Call: Equatable, CustomStringConvertible {
        case fadeIn(seconds: Double)
        case fadeOut(seconds: Double)
        case fadeTo(level: Double, seconds: Double)
        /// The player's end: a fade to silence, then the engine ends.
        case stop(seconds: Double)
        case chime
        case volume(sound: String, volume: Double, muted: Bool)
        case master(Double)
        case added(String, volume: Double)
        case removed(String)
        case replaced([String])

        var description: String {
            switch self {
            case .fadeIn(let s): "fadeIn(\(s))"
            case .fadeOut(let s): "fadeOut(\(s))"
            case .fadeTo(let level, let s): "fadeTo(\(level), \(s))"
            case .stop(let s): "stop(\(s))"
            case .chime: "chime"
            case .volume(let sound, let volume, let muted): "volume(\(sound) \(volume)\(muted ? " muted" : ""))"
            case .master(let v): "master(\(v))"
            case .added(let sound, let volume): "added(\(sound) \(volume))"
            case .removed(let sound): "removed(\(sound))"
            case .replaced(let sounds): "replaced(\(sounds))"
            }
        }
    }

    struct Event: CustomStringConvertible {
        /// The loop's monotonic seconds when the call came.
        var at: Double
        var call: Call
        var description: String { "\(at): \(call)" }
    }

    let loop: ManualEventLoop
    let sampleRate = 48000
    private(set) var events: [Event] = []
    private(set) var entries: [MixEntry]
    private var levels: [String: (volume: Double, muted: Bool)] = [:]
    private var master: Double
    /// Set by the test: whether the first period reached the device (at once, unless the test says otherwise).
    var hasStarted = true
    var engineState: PlayerAudioState = .playing
    let device = "recording"
    var lostReason: String? { nil }
    var underruns = 0
    var underrunSeconds: [Double] = []
    var description: [String] { ["a test's recording audio at \(sampleRate) Hz"] }
    private let onEngineChange: @Sendable () -> Void

    init(_ setup: PlayerAudioSetup, loop: ManualEventLoop) {
        self.loop = loop
        entries = setup.entries
        master = setup.master
        onEngineChange = setup.onEngineChange
        for entry in setup.entries { levels[entry.token.name] = (entry.token.volume, false) }
    }

    /// The engine changes state (it starts, loses its device, finishes) and tells the player, as the real one does.
    func engine(_ state: PlayerAudioState) {
        engineState = state
        if state == .playing { hasStarted = true }
        onEngineChange()
    }

    private func note(_ call: Call) { events.append(Event(at: loop.monotonicSeconds, call: call)) }
    private func seconds(_ frames: Int) -> Double { Double(frames) / Double(sampleRate) }

    /// The calls alone, in order.
    var calls: [Call] { events.map(\.call) }

    /// The calls from `from` on (monotonic seconds), up to `to`.
    func calls(from: Double, to: Double = .infinity) -> [Call] {
        events.filter { $0.at >= from && $0.at <= to }.map(\.call)
    }

    /// The fade level the calls leave the mix at, now (1 the mix as set, 0 silence), and when the last ramp ends.
    var level: (target: Double, until: Double) {
        var target = 1.0
        var until = 0.0
        for event in events {
            switch event.call {
            case .fadeIn(let s): (target, until) = (1, event.at + s)
            case .fadeOut(let s), .stop(let s): (target, until) = (0, event.at + s)
            case .fadeTo(let level, let s): (target, until) = (level, event.at + s)
            default: continue
            }
        }
        return (target, until)
    }

    func abort() { engine(.finished) }
    func waitForEnd(timeout: Double) {}

    func fadeOut(frames: Int) { note(.fadeOut(seconds: seconds(frames))) }
    func fadeIn(frames: Int) { note(.fadeIn(seconds: seconds(frames))) }
    func fade(toLevel level: Double, frames: Int) { note(.fadeTo(level: level, seconds: seconds(frames))) }
    /// The engine finishes once the fade is over, as the real one does.
    func stop(fadeFrames: Int) {
        note(.stop(seconds: seconds(fadeFrames)))
        ending = try? loop.makeTimer { [unowned self] in self.engine(.finished) }
        ending?.arm(after: seconds(fadeFrames))
    }

    private var ending: (any LoopTimer)?
    func ringChime() { note(.chime) }

    func apply(_ mix: Mix) {
        for track in mix.tracks {
            guard let last = levels[track.sound], last != (track.volume, track.muted) else { continue }
            levels[track.sound] = (track.volume, track.muted)
            note(.volume(sound: track.sound, volume: track.volume, muted: track.muted))
        }
        if mix.master != master {
            master = mix.master
            note(.master(mix.master))
        }
    }

    func toLoad(_ entries: [MixEntry]) -> [MixEntry] {
        let paths = Set(self.entries.map(\.sound.path))
        return entries.filter { !paths.contains($0.sound.path) }
    }

    /// Loaded at once: a second of silence stands for each sound.
    func load(_ entries: [MixEntry], whenDone: @escaping @Sendable () -> Void) -> SoundLoad {
        let loaded = entries.map {
            LoadedSound(
                entry: $0,
                track: Mixer.Track(loop: LoopBuffer(interleaved: [Float](repeating: 0, count: 96), channels: 2)))
        }
        whenDone()
        return SoundLoad(entries, ready: .init(loaded: loaded, problems: []))
    }

    func add(_ sound: LoadedSound, volume: Double, muted: Bool) throws(PlayerError) {
        if entries.contains(where: { $0.sound.path == sound.entry.sound.path }) {
            throw .usage("\(sound.entry.token.name.quoted) is already in the mix")
        }
        entries.append(sound.entry)
        levels[sound.entry.token.name] = (volume, muted)
        note(.added(sound.entry.token.name, volume: volume))
    }

    func remove(_ name: String) throws(PlayerError) {
        guard let index = entries.firstIndex(where: { $0.token.name == name }) else {
            throw .usage("\(name.quoted) is not playing")
        }
        entries.remove(at: index)
        levels[name] = nil
        note(.removed(name))
    }

    func replace(with mix: Mix, entries: [MixEntry], loaded: [LoadedSound]) throws(PlayerError) -> Mix {
        self.entries = entries
        levels = [:]
        for track in mix.tracks { levels[track.sound] = (track.volume, track.muted) }
        master = mix.master
        note(.replaced(mix.tracks.map(\.sound)))
        return mix
    }

    func slot(of name: String) -> Int? { entries.firstIndex { $0.token.name == name } }

    func reclaim() -> Int { 0 }
}
