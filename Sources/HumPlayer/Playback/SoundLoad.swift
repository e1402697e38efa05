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
    private let load: TrackLoad

    init(_ entries: [MixEntry], load: TrackLoad) {
        self.entries = entries
        self.load = load
    }

    struct Result: Sendable {
        /// The sounds that loaded, in the order asked.
        var loaded: [LoadedSound]
        /// One line for people per sound that cannot play ("cannot play NAME: REASON").
        var problems: [String]
    }

    /// nil while loading.
    var result: Result? {
        guard let results = load.results else { return nil }
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
        load.wait(timeout: timeout)
        return result
    }
}
