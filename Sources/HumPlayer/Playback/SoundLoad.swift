import HumAudio
import HumCore

/// A sound of the mix loaded at the device's rate, ready to join a playing mix.
struct LoadedSound: Sendable {
    var entry: MixEntry
    var track: Mixer.Track
}

/// Sounds loading for a playing session on a thread of their own (see `PlaybackSession.load`). The owner takes
/// `result` on its own thread once `whenDone` has woken it.
final class SoundLoad: Sendable {
    let entries: [MixEntry]
    private let load: TrackLoad?
    /// The result of a load that needed no thread (a test's audio has its sounds at once).
    private let ready: Result?

    init(_ entries: [MixEntry], load: TrackLoad) {
        self.entries = entries
        self.load = load
        ready = nil
    }

    /// A load already done.
    init(_ entries: [MixEntry], ready: Result) {
        self.entries = entries
        load = nil
        self.ready = ready
    }

    struct Result: Sendable {
        /// The sounds that loaded, in the order asked.
        var loaded: [LoadedSound]
        /// One line for people per sound that cannot play ("cannot play NAME: REASON").
        var problems: [String]
    }

    /// nil while loading.
    var result: Result? {
        if let ready { return ready }
        guard let results = load?.results else { return nil }
        var outcome = Result(loaded: [], problems: [])
        for (entry, result) in zip(entries, results) {
            switch result {
            case .success(let track): outcome.loaded.append(LoadedSound(entry: entry, track: track))
            case .failure(let error):
                outcome.problems.append("cannot play \(entry.token.name): \(MixSetup.describe(error, entry))")
            }
        }
        return outcome
    }

    /// Waits for the result, up to `timeout` seconds (for tests and callers without an event loop).
    func wait(timeout: Double) -> Result? {
        _ = load?.wait(timeout: timeout)
        return result
    }
}
