import HumAudio
import HumCore
import HumSystem

/// The player's sounds changed by request: a sound added or removed, a new mix; each loads on a thread of its own
/// and joins the mix when loaded, while the status says what still loads.
extension Player {
    /// What the status says is under way, made from what is true now (never a note left from before): the device's
    /// trouble, else the newest mix still loading, else the sounds being added that the mix still holds.
    var note: String? {
        if let deviceNote { return deviceNote }
        guard state != .stopping else { return nil }
        var adding: [String] = []
        for item in loading.reversed() {
            switch item {
            case .replace(_, let next, _): return "loading \(next.name.map { "@" + $0 } ?? "the new mix")"
            case .add(_, let sound) where mix.index(of: sound) != nil: adding.insert(sound, at: 0)
            case .add: continue
            }
        }
        return adding.isEmpty ? nil : "loading " + adding.joined(separator: ", ")
    }

    func requireAudio() throws -> any PlayerAudio {
        guard let audio else {
            throw PlayerError.failure(
                "this player runs the timer alone (--no-sound); stop it ('hum ctl stop') and start 'hum play' or 'hum "
                    + "focus' with sounds"
            )
        }
        return audio
    }

    /// The sound a name or path refers to, as `hum play` would resolve it.
    func resolve(_ tokens: [MixToken]) throws -> [MixEntry] {
        try MixSetup.resolve(tokens.map { ($0, $0.name) }, catalog: MixSetup.catalog(environment))
    }

    func startLoad(_ entries: [MixEntry], on audio: any PlayerAudio) throws -> SoundLoad {
        if loadsDone == nil { loadsDone = try loop.makeNotifier { [unowned self] in self.loaded() } }
        let notifier = loadsDone
        return audio.load(entries) { notifier?.notify() }
    }

    func add(_ sound: String, volume: Double) throws {
        let audio = try requireAudio()
        // The file's header is read now, so the request is answered with what is wrong with it.
        let entry = try MixSetup.checkHeaders(
            resolve([MixToken(name: sound, volume: volume)]), environment: environment)[0]
        try mix.add(entry.token.name, volume: volume)
        do {
            loading.append(.add(try startLoad([entry], on: audio), sound: entry.token.name))
        } catch {
            _ = try? mix.remove(entry.token.name)
            throw error
        }
        mixChanged()  // the note says it loads (loadingNote)
    }

    func remove(_ sound: String) throws {
        let audio = try requireAudio()
        guard let index = mix.index(of: sound) else {
            throw Mix.Problem.noSuchSound(sound, inMix: mix.tracks.map(\.sound))
        }
        let name = mix.tracks[index].sound
        if audio.slot(of: name) != nil { try audio.remove(name) }  // else it is still loading: it is left out then
        try mix.remove(name)
        mixChanged()
    }

    func play(_ next: Mix) throws {
        let audio = try requireAudio()
        guard !next.tracks.isEmpty else { throw Mix.Problem.empty }
        // Files that cannot be opened are left out (and said in the reply's error when none can): the mix that
        // plays is never traded for one that cannot.
        let entries = try MixSetup.checkHeaders(resolve(next.tokens), environment: environment)
        var next = next
        let kept = Set(entries.map(\.token.name))
        next.tracks.removeAll { !kept.contains($0.sound) }
        loading.append(.replace(try startLoad(audio.toLoad(entries), on: audio), mix: next, entries: entries))
        changed([.note])
    }

    /// Sounds finished loading: they join the mix.
    func loaded() {
        guard let audio else { return }
        var changes: Set<ControlEvent.Subsystem> = []
        loading.removeAll { item in
            switch item {
            case .add(let load, let sound):
                guard let result = load.result else { return false }
                for problem in result.problems { environment.warn(problem) }
                // Still wanted (not removed meanwhile): it fades in at the volume the mix has for it now.
                if let track = mix.tracks.first(where: { $0.sound == sound }) {
                    if let loadedSound = result.loaded.first {
                        do {
                            try audio.add(loadedSound, volume: track.volume, muted: track.muted)
                        } catch let error as any UserFacingError {
                            environment.warn(error.message)
                            _ = try? mix.remove(sound)
                        } catch {}
                    } else {
                        _ = try? mix.remove(sound)
                    }
                    changes.insert(.mix)
                }
                return true
            case .replace(let load, let next, let entries):
                guard let result = load.result else { return false }
                for problem in result.problems { environment.warn(problem) }
                // Nothing of it loaded and nothing of it already playing: the mix plays on as it is.
                guard !result.loaded.isEmpty || entries.contains(where: { audio.slot(of: $0.token.name) != nil })
                else { return true }
                do {
                    mix = try audio.replace(with: next, entries: entries, loaded: result.loaded)
                    remembered = mix.tokens
                    try? focus?.input(.userChangedMix)
                    changes.insert(.mix)
                } catch let error as any UserFacingError {
                    environment.warn(error.message)
                } catch {}
                return true
            }
        }
        changes.insert(.note)  // what still loads, if anything
        if !changes.isEmpty { changed(Array(changes)) }
    }
}
