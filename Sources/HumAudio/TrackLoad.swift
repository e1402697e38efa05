import Dispatch
import HumCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Sounds loaded for a mix that is already playing, on a thread of their own: decoded, seamed and resampled to the
/// output rate by `TrackLoader`, one after the other, at a lowered priority (nice +5) so the work never competes
/// with the audio or the player's event loop.
///
/// `whenDone` is called on the loader's thread once every sound is loaded or has failed: connect it to an
/// `EventLoop.Notifier` (it should only wake the owner), and take `results` on the owner's thread.
///
/// Decoder libraries' notes are not silenced here (`LibraryNoise` points file descriptor 2 at /dev/null for the
/// whole process, which would swallow the player's own warnings written meanwhile).
public final class TrackLoad: Sendable {
    public let sounds: [SoundReference]
    private let outcome = Mutex<[Result<Mixer.Track, AudioFileError>]?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts loading at once.
    public init(
        _ sounds: [SoundReference], outputRate: Int, matching: LoudnessMatching? = nil, speakers: SpeakerSize = .full,
        cache: LoopCache? = nil, whenDone: @escaping @Sendable () -> Void
    ) {
        self.sounds = sounds
        NamedThread.start("hum-load") { [self] in
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)  // this thread only, on Linux
            let results = sounds.map { sound in
                Result { () throws(AudioFileError) in
                    try TrackLoader.load(
                        sound, outputRate: outputRate, matching: matching, speakers: speakers, cache: cache)
                }
            }
            outcome.withLock { $0 = results }
            done.signal()
            whenDone()
        }
    }

    /// Each sound's track or the reason it cannot play, in order; nil while loading.
    public var results: [Result<Mixer.Track, AudioFileError>]? { outcome.withLock { $0 } }

    /// Waits until every sound is loaded or failed, up to `timeout` seconds (for callers without an event loop,
    /// and tests). Returns false on timeout.
    @discardableResult
    public func wait(timeout: Double) -> Bool {
        if results != nil { return true }
        guard done.wait(timeout: .now() + timeout) == .success else { return false }
        done.signal()  // a later wait returns at once too
        return true
    }
}
