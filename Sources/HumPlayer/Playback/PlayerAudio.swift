import HumAudio
import HumCore

/// What the player and its focus rounds ask of the audio, at the level of the session (never per period: the audio
/// thread behind it is the session's own): the fade level, the volumes, the chime, the sounds joining and leaving,
/// and the engine's state. `PlaybackSession` is the real one (ALSA); a test gives a double that notes each call with
/// the loop's time, so a whole focus session runs in process (Tests/HumPlayerTests/RecordingAudio.swift).
///
/// Lengths are in frames at `sampleRate`, as the mixer takes them. Everything runs on the player's loop but `load`'s
/// `whenDone`.
protocol PlayerAudio: AnyObject {
    /// The mix's sounds as they play, in the mix's order (those that could not be loaded are left out).
    var entries: [MixEntry] { get }
    var sampleRate: Int { get }

    // MARK: The engine

    /// Whether the first period reached the device.
    var hasStarted: Bool { get }
    var engineState: PlayerAudioState { get }
    /// The device's name, for the lines that speak of it.
    var device: String { get }
    /// Why the device went away, for the warning (nil when unknown).
    var lostReason: String? { get }
    /// Lines for `--verbose`: the device, its rate and periods, how the engine thread runs.
    var description: [String] { get }
    /// How many times the device ran dry and was restarted (an underrun: the audio thread was late), counted by the
    /// audio thread since the audio opened.
    var underruns: Int { get }
    /// When the first of them happened (up to `PlaybackEngine.keptUnderrunTimes`), in seconds since the audio
    /// started playing.
    var underrunSeconds: [Double] { get }
    /// Ends the engine at once (a second Ctrl-C, a lost device).
    func abort()
    /// Waits for the engine to end, up to `timeout` seconds.
    func waitForEnd(timeout: Double)

    // MARK: The level

    /// Ramps the whole mix's fade level to silence (1 is the mix as set, 0 silence).
    func fadeOut(frames: Int)
    func fadeIn(frames: Int)
    func fade(toLevel level: Double, frames: Int)
    /// Fades to silence and ends the engine.
    func stop(fadeFrames: Int)
    func ringChime()
    /// Sets every sound's volume and mute, and the master, from the mix (only what changed).
    func apply(_ mix: Mix)

    // MARK: The sounds

    /// The entries that must be loaded before they can play (those not playing now).
    func toLoad(_ entries: [MixEntry]) -> [MixEntry]
    /// Starts loading; `whenDone` runs (on any thread) once the result is there.
    func load(_ entries: [MixEntry], whenDone: @escaping @Sendable () -> Void) -> SoundLoad
    /// Adds a loaded sound at the end of the mix, fading it in.
    func add(_ sound: LoadedSound, volume: Double, muted: Bool) throws(PlayerError)
    /// Removes a playing sound by its name, fading it out.
    func remove(_ name: String) throws(PlayerError)
    /// Crossfades to a new mix; returns the mix as it now plays.
    func replace(with mix: Mix, entries: [MixEntry], loaded: [LoadedSound]) throws(PlayerError) -> Mix
    /// The mixer slot a playing sound is in, nil when it does not play.
    func slot(of name: String) -> Int?
    /// Frees what the audio thread let go of; returns how many sounds.
    @discardableResult
    func reclaim() -> Int
}

/// The engine's state, as the player reads it.
typealias PlayerAudioState = PlaybackEngine<OutputSink>.State

/// What the player gives the factory that opens its audio.
struct PlayerAudioSetup {
    var entries: [MixEntry]
    var device: String
    var master: Double
    var fadeSeconds: Double
    var raw: Bool
    var environment: PlayerEnvironment
    var startSilent: Bool
    /// The chime at the device's rate.
    var chime: (Int) -> LoopBuffer
    var endAfter: Double?
    /// Called on any thread when the engine's state changes or it let go of sounds.
    var onEngineChange: @Sendable () -> Void
}

/// Opens the player's audio; `Player.Options.openAudio`, the ALSA session unless a test gives its own.
typealias PlayerAudioFactory = (PlayerAudioSetup) throws -> any PlayerAudio

extension PlaybackSession: PlayerAudio {
    /// The real audio: the device through ALSA.
    static func open(_ setup: PlayerAudioSetup) throws -> any PlayerAudio {
        try PlaybackSession(
            entries: setup.entries, device: setup.device, master: setup.master, fadeSeconds: setup.fadeSeconds,
            raw: setup.raw, environment: setup.environment, startSilent: setup.startSilent, chime: setup.chime,
            endAfter: setup.endAfter, onEngineChange: setup.onEngineChange)
    }

    var sampleRate: Int { sink.sampleRate }
    var hasStarted: Bool { engine.hasStarted }
    var engineState: PlayerAudioState { engine.state }
    var device: String { sink.device }
    var underruns: Int { engine.underruns }
    var underrunSeconds: [Double] { engine.underrunSeconds }
    var lostReason: String? {
        let code = engine.lostErrorCode
        return code == 0 ? nil : sink.describeLoss(code)
    }

    var description: [String] {
        [
            sink.description,
            "the engine thread runs at \(engine.scheduling.description)",
            loopCacheLine,
        ]
    }

    /// Where the loops live: mapped from the cache (the pager keeps a few seconds of each voice resident), or in
    /// memory when the cache could not be written.
    var loopCacheLine: String {
        let report = loopCache.report
        if let problem = report.problem {
            return "loops in memory: the loop cache is off (\(problem))"
        }
        let locking = LoopPager.lockRefusal.map { "touched, not locked: \($0)" } ?? "locked"
        return
            "loops mapped from \(loopCache.directory) (\(report.found) found, \(report.stored) built); "
            + "the next \(Int(LoopPager.aheadSeconds)) s of each voice kept resident (\(locking))"
    }

    func abort() { engine.abort() }
    func waitForEnd(timeout: Double) { _ = engine.wait(timeout: timeout) }

    func fadeOut(frames: Int) { controls.fadeOut(frames: frames) }
    func fadeIn(frames: Int) { controls.fadeIn(frames: frames) }
    func fade(toLevel level: Double, frames: Int) { controls.fade(toLevel: level, frames: frames) }
    func stop(fadeFrames: Int) { controls.stop(fadeFrames: fadeFrames) }
    func ringChime() { controls.ringChime() }

    func add(_ sound: LoadedSound, volume: Double, muted: Bool) throws(PlayerError) {
        try add(sound, volume: volume, muted: muted, fadeSeconds: Self.addFadeSeconds)
    }

    func remove(_ name: String) throws(PlayerError) {
        try remove(name, fadeSeconds: Self.removeFadeSeconds)
    }

    func replace(with mix: Mix, entries: [MixEntry], loaded: [LoadedSound]) throws(PlayerError) -> Mix {
        try replace(with: mix, entries: entries, loaded: loaded, fadeSeconds: Self.crossfadeSeconds)
    }
}
