import HumAudio
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// A mix playing through the sound server or ALSA (`OutputSink`): the device, the mixer and its controls, the
/// engine thread, and which sound plays in which of the mixer's slots.
///
/// The sounds change while the mix plays, without a gap: `load` brings new sounds in at the device's rate on a
/// thread of its own, then `add`, `remove` and `replace` fade them in, out, or crossfade to a new mix (sounds in
/// both mixes go on playing, from where their loops are, and only move to their new volume). A removed sound's
/// memory is freed by `reclaim()` once the audio thread let go of it; the engine says when (through `onReleased`,
/// else `onEngineChange`). Everything but `load`'s work runs on the owner's thread (the player's event loop).
public final class PlaybackSession {
    let sink: OutputSink
    let controls: MixerControls
    let mixer: Mixer
    let engine: PlaybackEngine<OutputSink>
    let fadeFrames: Int
    /// How the session's sounds are matched to the library's loudness (nil: `--raw`).
    private let matching: LoudnessMatching?
    /// The speakers the sounds are made for (`play.speakers`).
    private let speakers: SpeakerSize
    /// Where finished loops are kept and mapped from (`LoopCache`).
    let loopCache: LoopCache

    /// A sound of the mix and the mixer slot it plays in.
    private struct Playing {
        var entry: MixEntry
        var slot: Int
    }

    /// The mix's sounds as they play, in the mix's order.
    private var playing: [Playing]
    /// Sounds fading out (their slot, with what they were), until the audio thread let go of them: a sound asked
    /// for again meanwhile is brought back rather than loaded again.
    private var leaving: [Int: MixEntry] = [:]
    /// What was last set per slot and for the master, so `apply(_ mix:)` touches only what changed (a volume
    /// moving over a crossfade is not cut short by setting it again).
    private var setLevels: [Int: (volume: Double, muted: Bool)] = [:]
    private var setMaster: Double

    /// A new sound fades in over 1 s: a sound entering a calm mix over the usual 30 ms ramp is startling (it
    /// starts at once at its full level); over 1 s on the equal-power curve it is heard within 0.1 s (−16 dB) and
    /// swells in, which still reads as a prompt answer to `hum ctl add`.
    static let addFadeSeconds = 1.0
    /// A removed sound fades out over 1 s, the same motion backwards.
    static let removeFadeSeconds = 1.0
    /// A new mix crossfades from the old one over 1.5 s (equal power: the total loudness holds steady through it;
    /// long enough to hear one mix turn into the other, short enough not to sound like two mixes at once).
    static let crossfadeSeconds = 1.5

    /// The mix's sounds as they play, in the mix's order.
    var entries: [MixEntry] { playing.map(\.entry) }

    /// The device hum plays to: --device, else HUM_DEVICE, else ALSA's `default`.
    public static func device(option: String?, environment: PlayerEnvironment) -> String {
        if let option, !option.isEmpty { return option }
        if let env = environment.variables["HUM_DEVICE"], !env.isEmpty { return env }
        return "default"
    }

    /// Opens the device, loads the sounds at its rate and starts the engine, fading in over `fadeSeconds`.
    /// - Parameters:
    ///   - startSilent: start silent, for a driver (the focus timer) that fades in itself.
    ///   - chime: a one-shot sound at the device's rate, rung with `controls.ringChime()`.
    ///   - endAfter: seconds after which the mix ends, fading out over the end (`play --for`). Set before the engine
    ///     starts, so the end fade begins on its exact frame however late this thread runs.
    ///   - onEngineChange: called on the engine thread when its state changes (see `PlaybackEngine`).
    ///   - onReleased: called on the engine thread when sounds removed from the mix can be freed (call `reclaim()`
    ///     on the owner's thread then); nil: `onEngineChange` is called for that too.
    init(
        entries: [MixEntry], device: String, master: Double, fadeSeconds: Double, raw: Bool,
        environment: PlayerEnvironment,
        startSilent: Bool = false, chime: ((Int) -> LoopBuffer)? = nil, endAfter: Double? = nil,
        onEngineChange: (@Sendable () -> Void)? = nil, onReleased: (@Sendable () -> Void)? = nil
    ) throws(PlayerError) {
        let entries = try MixSetup.checkHeaders(entries, environment: environment)
        let seed = try EventSeed.session(environment.variables)
        sink = OutputSink(
            device: device, dither: OutputDither.enabled(environment: environment.variables),
            native: OutputSink.wantsServer(device: device, environment: environment.variables))
        do throws(AudioSinkError) {
            try sink.open()
        } catch {
            throw .failure(error.message)
        }
        matching = MixSetup.loudnessMatching(raw: raw, environment: environment)
        speakers = MixSetup.speakers(environment)
        loopCache = MixSetup.loopCache(environment)
        let (tracks, playing) = try MixSetup.loadTracks(
            entries, rate: sink.sampleRate, raw: raw, environment: environment, cache: loopCache)
        self.playing = playing.enumerated().map { Playing(entry: $0.element, slot: $0.offset) }
        controls = MixerControls(volumes: playing.map { Float($0.token.volume) }, master: Float(master))
        for (slot, entry) in playing.enumerated() { setLevels[slot] = (entry.token.volume, false) }
        setMaster = master
        fadeFrames = Int(fadeSeconds * Double(sink.sampleRate))
        mixer = Mixer(
            sampleRate: sink.sampleRate, tracks: tracks, controls: controls, fadeInFrames: startSilent ? 0 : fadeFrames,
            startSilent: startSilent, chime: chime?(sink.sampleRate), eventSeed: seed)
        if let endAfter {
            let total = Int64(endAfter * Double(sink.sampleRate))
            controls.scheduleEnd(atFrame: total, fadeFrames: min(Int64(fadeFrames), total / 2))
        }
        engine = PlaybackEngine(mixer: mixer, sink: sink)
        engine.onStateChange = onEngineChange
        engine.onRelease = onReleased ?? onEngineChange
        engine.start()
    }

    /// Sets every sound's volume and mute, and the master, from the mix: each of its tracks goes to the sound of
    /// the same name. Only what changed since it was last set is touched.
    func apply(_ mix: Mix) {
        for track in mix.tracks {
            guard let slot = playing.first(where: { $0.entry.token.name == track.sound })?.slot else { continue }
            set(slot: slot, volume: track.volume, muted: track.muted)
        }
        setMasterVolume(mix.master)
    }

    private func set(slot: Int, volume: Double, muted: Bool, rampFrames: Int = 0) {
        if let last = setLevels[slot], last.volume == volume, last.muted == muted { return }
        setLevels[slot] = (volume, muted)
        controls.setVolume(Float(volume), muted: muted, track: slot, rampFrames: rampFrames)
    }

    private func setMasterVolume(_ volume: Double, rampFrames: Int = 0) {
        guard volume != setMaster else { return }
        setMaster = volume
        controls.setMasterVolume(Float(volume), rampFrames: rampFrames)
    }

    private func frames(_ seconds: Double) -> Int {
        Int((max(0, seconds.isFinite ? seconds : 0) * Double(mixer.sampleRate)).rounded())
    }

    // MARK: Changing the sounds while the mix plays

    /// The entries among `entries` that must be loaded before they can play: those not playing now (compared by
    /// file). A sound still fading out is loaded too: it may be freed before the load is done (if it is not, it
    /// is brought back and the new copy dropped).
    func toLoad(_ entries: [MixEntry]) -> [MixEntry] {
        let paths = Set(playing.map(\.entry.sound.identity))
        return entries.filter { !paths.contains($0.sound.identity) }
    }

    /// Starts loading sounds at the device's rate (and loudness-matched as the session's own) on a thread of their
    /// own. `whenDone` runs on that thread once all are loaded or failed: connect it to an `EventLoop.Notifier`
    /// and read `result` on the loop.
    func load(_ entries: [MixEntry], whenDone: @escaping @Sendable () -> Void) -> SoundLoad {
        SoundLoad(
            entries,
            load: TrackLoad(
                entries.map(\.sound), outputRate: mixer.sampleRate, matching: matching, speakers: speakers,
                cache: loopCache, whenDone: whenDone))
    }

    /// Adds a loaded sound at the end of the mix, fading in from silence over `fadeSeconds`.
    /// Throws a usage error when that file already plays, and a failure when the mixer has no free slot.
    func add(_ sound: LoadedSound, volume: Double, muted: Bool = false, fadeSeconds: Double = addFadeSeconds)
        throws(PlayerError)
    {
        reclaim()
        if let there = playing.first(where: { $0.entry.sound.identity == sound.entry.sound.identity }) {
            throw .usage(
                "\(sound.entry.token.name.quoted) is already in the mix (as "
                    + "\(there.entry.token.name.quoted)); change its volume instead"
            )
        }
        let fade = frames(fadeSeconds)
        if let slot = leaving.first(where: { $0.value.sound.identity == sound.entry.sound.identity })?.key {
            // Still fading out: it turns around and goes on from where it is; the new copy is not needed.
            do throws(TrackSlots.Problem) {
                try mixer.slots.bringBack(slot, volume: Float(volume), muted: muted, fadeFrames: fade)
                leaving[slot] = nil
                setLevels[slot] = (volume, muted)
                playing.append(Playing(entry: sound.entry, slot: slot))
                return
            } catch {
                // Let go of meanwhile: play the new copy.
            }
        }
        do throws(TrackSlots.Problem) {
            let slot = try mixer.slots.add(sound.track, volume: Float(volume), muted: muted, fadeFrames: fade)
            setLevels[slot] = (volume, muted)
            playing.append(Playing(entry: sound.entry, slot: slot))
            forgetLetGo()
        } catch {
            throw .failure(error.message)
        }
    }

    /// Removes a sound from the mix by its name (exact, else the only one matching ignoring case), fading it out
    /// over `fadeSeconds`. Its memory is freed by `reclaim()` once the audio thread let go of it.
    func remove(_ name: String, fadeSeconds: Double = removeFadeSeconds) throws(PlayerError) {
        guard let index = index(of: name) else {
            throw .usage("\(name.quoted) is not playing; the mix has \(names)")
        }
        let gone = playing.remove(at: index)
        mixer.slots.remove(gone.slot, fadeFrames: frames(fadeSeconds))
        leaving[gone.slot] = gone.entry
        setLevels[gone.slot] = nil
    }

    /// Crossfades to a new mix over `fadeSeconds`: `entries[i]` is the sound of `mix.tracks[i]`. Sounds playing
    /// now and in the new mix (the same file) go on playing from where they are and move to their new volume over
    /// the crossfade; the others fade out; the new ones, from `loaded`, fade in. The master moves over the
    /// crossfade too. Returns the mix as it now plays: a new sound that is neither playing nor loaded (it failed
    /// to load) is left out. All or nothing: throws, changing nothing, when the mixer has no room.
    @discardableResult
    func replace(with mix: Mix, entries: [MixEntry], loaded: [LoadedSound], fadeSeconds: Double = crossfadeSeconds)
        throws(PlayerError) -> Mix
    {
        guard mix.tracks.count == entries.count else {
            throw .failure("the new mix has \(mix.tracks.count) sounds but \(entries.count) were resolved")
        }
        reclaim()
        var kept: [TrackSlots.Kept] = []
        var added: [TrackSlots.Added] = []
        // Per track of the new mix: where it plays from (a slot kept or brought back, or a new sound).
        enum Source {
            case slot(Int)
            case new(Int)
        }
        var sources: [(track: Mix.Track, entry: MixEntry, source: Source)] = []
        for (track, entry) in zip(mix.tracks, entries) {
            let path = entry.sound.identity
            if sources.contains(where: { $0.entry.sound.identity == path }) { continue }  // the same file twice
            let slot =
                playing.first(where: { $0.entry.sound.identity == path })?.slot
                ?? leaving.first(where: { $0.value.sound.identity == path && mixer.slots.state(of: $0.key) == .leaving }
                )?
                .key
            if let slot {
                kept.append(.init(slot: slot, volume: Float(track.volume), muted: track.muted))
                sources.append((track, entry, .slot(slot)))
            } else if let sound = loaded.first(where: { $0.entry.sound.identity == path }) {
                added.append(.init(track: sound.track, volume: Float(track.volume), muted: track.muted))
                sources.append((track, entry, .new(added.count - 1)))
            }
        }
        let fade = frames(fadeSeconds)
        let slots: [Int]
        do throws(TrackSlots.Problem) {
            slots = try mixer.slots.replace(keeping: kept, adding: added, fadeFrames: fade)
        } catch {
            throw .failure(error.message)
        }
        let keptSlots = Set(kept.map(\.slot))
        for gone in playing where !keptSlots.contains(gone.slot) {
            leaving[gone.slot] = gone.entry
            setLevels[gone.slot] = nil
        }
        var now: [Playing] = []
        var tracks: [Mix.Track] = []
        for (track, entry, source) in sources {
            let slot: Int
            switch source {
            case .slot(let s): slot = s
            case .new(let i): slot = slots[i]
            }
            leaving[slot] = nil
            setLevels[slot] = (track.volume, track.muted)
            now.append(Playing(entry: entry, slot: slot))
            tracks.append(track)
        }
        playing = now
        forgetLetGo()
        if mix.master != setMaster {
            setMaster = mix.master
            controls.setMasterVolume(Float(mix.master), rampFrames: fade)
        }
        var result = mix
        result.tracks = tracks
        if tracks.count != mix.tracks.count { result.name = nil }
        return result
    }

    /// Frees the sounds the audio thread has let go of. Cheap; call it whenever the engine wakes the owner.
    @discardableResult
    func reclaim() -> Int {
        let freed = mixer.slots.reclaim()
        if freed > 0 { forgetLetGo() }
        return freed
    }

    /// Forgets the sounds fading out whose slot was freed (`TrackSlots` also frees what it needs room for), so a
    /// slot given to another sound is never taken for theirs.
    private func forgetLetGo() {
        let playingSlots = Set(playing.map(\.slot))
        for slot in Array(leaving.keys)
        where mixer.slots.state(of: slot) != .leaving || playingSlots.contains(slot) {
            leaving[slot] = nil
        }
    }

    /// The mixer slot a playing sound is in (found by its name as `remove` finds it).
    func slot(of name: String) -> Int? { index(of: name).map { playing[$0].slot } }

    /// Sample memory held for the mix's sounds, those fading out included, in bytes.
    var memoryBytes: Int { mixer.slots.memoryBytes }

    private var names: String {
        playing.isEmpty ? "no sounds" : playing.map { $0.entry.token.name.visible }.joined(separator: ", ")
    }

    /// The playing sound a name refers to: the exact name, else the only one that matches ignoring case.
    private func index(of name: String) -> Int? {
        if let exact = playing.firstIndex(where: { $0.entry.token.name == name }) { return exact }
        let matches = playing.indices.filter { playing[$0].entry.token.name.lowercased() == name.lowercased() }
        return matches.count == 1 ? matches[0] : nil
    }
}

extension OutputSink {
    /// The write that lost the device, for the message that says so.
    func describeLoss(_ code: Int32) -> String {
        (route == .soundServer ? "the sound server's stream: " : "snd_pcm_writei: ") + String(cString: strerror(-code))
    }
}
