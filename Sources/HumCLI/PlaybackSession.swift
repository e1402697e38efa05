import HumAudio
import HumCore
import HumTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// A mix playing through ALSA: the device, the mixer and its controls, and the engine thread.
final class PlaybackSession {
    let sink: AlsaSink
    let controls: MixerControls
    let mixer: Mixer
    let engine: PlaybackEngine<AlsaSink>
    let entries: [MixEntry]
    let fadeFrames: Int

    /// The device hum plays to: --device, else HUM_DEVICE, else ALSA's `default`.
    static func device(option: String?, context: CommandContext) -> String {
        if let option, !option.isEmpty { return option }
        if let env = context.environment["HUM_DEVICE"], !env.isEmpty { return env }
        return "default"
    }

    /// Opens the device, loads the sounds at its rate and starts the engine, fading in over `fadeSeconds`.
    /// - Parameters:
    ///   - startSilent: start silent, for a driver (the focus timer) that fades in itself.
    ///   - chime: a one-shot sound at the device's rate, rung with `controls.ringChime()`.
    ///   - endAfter: seconds after which the mix ends, fading out over the end (`play --for`). Set before the engine
    ///     starts, so the end fade begins on its exact frame however late this thread runs.
    init(
        entries: [MixEntry], device: String, master: Double, fadeSeconds: Double, raw: Bool, context: CommandContext,
        startSilent: Bool = false, chime: ((Int) -> LoopBuffer)? = nil, endAfter: Double? = nil,
        onEngineChange: (@Sendable () -> Void)? = nil
    ) throws(HumError) {
        let entries = try MixSetup.checkHeaders(entries, context: context)
        sink = AlsaSink(device: device)
        do throws(AudioSinkError) {
            try sink.open()
        } catch {
            throw .failure(error.message)
        }
        let (tracks, playing) = try MixSetup.loadTracks(entries, rate: sink.sampleRate, raw: raw, context: context)
        self.entries = playing
        controls = MixerControls(volumes: playing.map { Float($0.token.volume) }, master: Float(master))
        fadeFrames = Int(fadeSeconds * Double(sink.sampleRate))
        mixer = Mixer(
            sampleRate: sink.sampleRate, tracks: tracks, controls: controls, fadeInFrames: startSilent ? 0 : fadeFrames,
            startSilent: startSilent, chime: chime?(sink.sampleRate))
        if let endAfter {
            let total = Int64(endAfter * Double(sink.sampleRate))
            controls.scheduleEnd(atFrame: total, fadeFrames: min(Int64(fadeFrames), total / 2))
        }
        engine = PlaybackEngine(mixer: mixer, sink: sink)
        engine.onStateChange = onEngineChange
        engine.start()
    }

    /// Sets every track's volume and mute, and the master, from the mix (its tracks in the order they were loaded).
    func apply(_ mix: Mix) {
        for (i, track) in mix.tracks.enumerated() {
            controls.setVolume(Float(track.volume), track: i)
            controls.setMuted(track.muted, track: i)
        }
        controls.masterVolume = Float(mix.master)
    }
}

extension AlsaSink {
    /// The write that lost the device, for the message that says so.
    static func describeWrite(_ code: Int32) -> String {
        "snd_pcm_writei: " + String(cString: strerror(-code))
    }
}
