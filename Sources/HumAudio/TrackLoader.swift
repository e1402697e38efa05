import Dispatch
import HumCore

/// How sounds that are not built in are brought to the library's loudness.
public struct LoudnessMatching: Sendable {
    public var loudness: UserSoundLoudness
    public var targetLUFS: Double

    public init(loudness: UserSoundLoudness, targetLUFS: Double) {
        self.loudness = loudness
        self.targetLUFS = targetLUFS
    }
}

/// Turns sound files into loops the mixer can play: decode, make the seam, resample to the output rate, store.
public enum TrackLoader {
    /// Loads one sound. Pre-cut sounds loop sample-exactly; any other file gets a crossfaded seam if its end does
    /// not already flow into its start. A sound that is not built in is played at the library's loudness when
    /// `matching` is given (measured once, then cached); built-in sounds are made at that loudness.
    public static func load(_ sound: SoundReference, outputRate: Int, matching: LoudnessMatching? = nil) throws(AudioFileError) -> Mixer.Track {
        let decoded = try AudioFileReader.decode(path: sound.path)
        var normalization: Float = 1
        if let matching, sound.source != .builtin {
            // A file that cannot be measured still plays, at its own level.
            normalization = (try? matching.loudness.gain(forFile: sound.path, decoded: decoded, targetLUFS: matching.targetLUFS)) ?? 1
        }
        var samples = decoded.samples
        if sound.loop != .precut {
            let plan = LoopSeam.plan(samples, channels: decoded.channels, sampleRate: decoded.sampleRate)
            samples = LoopSeam.makeLoop(samples, channels: decoded.channels, plan: plan)
        }
        do {
            samples = try Resampler.resampleLoop(samples, channels: decoded.channels, from: decoded.sampleRate, to: outputRate)
        } catch {
            throw AudioFileError(path: sound.path, reason: error.message)
        }
        guard samples.count >= decoded.channels else { throw AudioFileError(path: sound.path, reason: "is too short to loop") }
        return Mixer.Track(loop: LoopBuffer(interleaved: samples, channels: decoded.channels), normalization: normalization)
    }

    /// Loads several sounds at once on all cores; each result is a track or the reason it cannot play.
    public static func loadAll(_ sounds: [SoundReference], outputRate: Int, matching: LoudnessMatching? = nil) -> [Result<Mixer.Track, AudioFileError>] {
        let results = ResultSlots<Result<Mixer.Track, AudioFileError>>(count: sounds.count)
        DispatchQueue.concurrentPerform(iterations: sounds.count) { i in
            do throws(AudioFileError) {
                results.set(i, .success(try load(sounds[i], outputRate: outputRate, matching: matching)))
            } catch {
                results.set(i, .failure(error))
            }
        }
        return results.values
    }
}

/// Fixed slots written by concurrent workers, each to its own index.
final class ResultSlots<T>: @unchecked Sendable {
    // @unchecked: every worker initializes a distinct slot of memory allocated up front (no shared Swift array,
    // so no exclusivity conflict); the values are read after all workers finished.
    private let slots: UnsafeMutablePointer<T?>
    private let count: Int

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: max(1, count))
        slots.initialize(repeating: nil, count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    func set(_ index: Int, _ value: T) { slots[index] = value }
    var values: [T] { (0..<count).map { slots[$0]! } }
}
