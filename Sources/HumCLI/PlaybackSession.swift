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
    private var reportedLost = false

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
    init(
        entries: [MixEntry], device: String, master: Double, fadeSeconds: Double, raw: Bool, context: CommandContext,
        startSilent: Bool = false, chime: ((Int) -> LoopBuffer)? = nil
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
        engine = PlaybackEngine(mixer: mixer, sink: sink)
        engine.start()
    }

    var elapsedSeconds: Int64 { controls.framesRendered / Int64(max(sink.sampleRate, 1)) }

    /// Carries a mixer key's action out on the controls. Returns true when the mix changed.
    @discardableResult
    func apply(_ action: MixerView.Action) -> Bool {
        switch action {
        case .none, .quit: return false
        case .volume(let track, let v): controls.setVolume(Float(v), track: track)
        case .mute(let track, let muted): controls.setMuted(muted, track: track)
        case .master(let v): controls.masterVolume = Float(v)
        }
        return true
    }

    /// Fades out over the session's fade (at least 50 ms, so even --fade 0 stops without a click), then finishes.
    func stop() { controls.stop(fadeFrames: max(fadeFrames, sink.sampleRate / 20)) }

    /// Reports a lost or returned device once each time it changes. Returns a short note for the status line.
    func deviceNote(context: CommandContext, beforePrinting: () -> Void) -> String? {
        switch engine.state {
        case .deviceLost:
            if !reportedLost {
                reportedLost = true
                beforePrinting()
                let code = engine.lostErrorCode
                let reason = code == 0 ? "" : " (\(AlsaSink.describeWrite(code)))"
                context.stderr.write(
                    "hum: the audio device \"\(sink.device.visible)\" went away\(reason); the mix is kept and plays again when it returns\n"
                )
            }
            return "waiting for the audio device"
        default:
            if reportedLost, engine.state == .playing {
                reportedLost = false
                beforePrinting()
                context.stderr.write("hum: the audio device \"\(sink.device.visible)\" is back\n")
            }
            return nil
        }
    }
}

extension AlsaSink {
    static func describeWrite(_ code: Int32) -> String {
        "snd_pcm_writei: " + String(cString: strerror(-code))
    }
}
