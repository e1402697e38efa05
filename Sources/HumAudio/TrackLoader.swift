import Dispatch
import HumCore

/// Turns sound files into loops the mixer can play: decode, make the seam, resample to the output rate, store.
public enum TrackLoader {
    /// Loads one sound. Pre-cut sounds loop sample-exactly; any other file gets a crossfaded seam if its end does
    /// not already flow into its start.
    public static func load(_ sound: SoundReference, outputRate: Int, normalization: Float = 1) throws(AudioFileError) -> Mixer.Track {
        let decoded = try AudioFileReader.decode(path: sound.path)
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
    public static func loadAll(_ sounds: [(SoundReference, Float)], outputRate: Int) -> [Result<Mixer.Track, AudioFileError>] {
        let results = ResultSlots<Result<Mixer.Track, AudioFileError>>(count: sounds.count)
        DispatchQueue.concurrentPerform(iterations: sounds.count) { i in
            let (sound, normalization) = sounds[i]
            do throws(AudioFileError) {
                results.set(i, .success(try load(sound, outputRate: outputRate, normalization: normalization)))
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
