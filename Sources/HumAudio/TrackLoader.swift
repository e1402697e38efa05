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
    ///
    /// The sound is decoded once, to 16-bit, and never copied whole: at the output rate the loop is built in the
    /// decoded memory itself (the seam written over the tail, the loop starting at frame C); at another rate the
    /// resampler streams the loop (body, then seam) from there straight into the loop's own memory.
    public static func load(_ sound: SoundReference, outputRate: Int, matching: LoudnessMatching? = nil) throws(AudioFileError) -> Mixer.Track {
        let decoded = try AudioFileReader.decodeSamples(path: sound.path)
        var normalization: Float = 1
        if let matching, sound.source != .builtin {
            // A file that cannot be measured still plays, at its own level. Measured before the seam changes the
            // samples.
            normalization = (try? matching.loudness.gain(forFile: sound.path, decoded: decoded, targetLUFS: matching.targetLUFS)) ?? 1
        }
        let channels = decoded.channels
        let samples = decoded.samples
        let plan = sound.loop == .precut ? LoopSeam.Plan.asItIs
            : LoopSeam.plan(UnsafeBufferPointer(samples), channels: channels, sampleRate: decoded.sampleRate)
        let loop: LoopBuffer
        if decoded.sampleRate == outputRate {
            let start = LoopSeam.makeLoopInPlace(samples, channels: channels, plan: plan)
            SampleMemory.discard(decoded.storage, from: 0, to: start * channels)  // the head now lives in the seam
            loop = LoopBuffer(storage: decoded.storage, startFrame: start, frames: decoded.frames - start, channels: channels)
        } else {
            do throws(AudioSinkError) {
                loop = try resampledLoop(decoded, plan: plan, outputRate: outputRate, path: sound.path)
            } catch {
                throw AudioFileError(path: sound.path, reason: error.message)
            }
        }
        return Mixer.Track(loop: loop, normalization: normalization)
    }

    /// The loop [C, L−C) + seam of `decoded`, resampled to `outputRate` into memory of its own. The seam stays
    /// float until it is resampled, as the loop would be if it were built first.
    static func resampledLoop(_ decoded: DecodedSamples, plan: LoopSeam.Plan, outputRate: Int, path: String) throws(AudioSinkError) -> LoopBuffer {
        let channels = decoded.channels
        let c = plan.crossfadeFrames
        let body = decoded.frames - 2 * c  // frames [C, L−C) of the file
        var seam = [Float]()
        seam.reserveCapacity(c * channels)
        LoopSeam.seam(UnsafeBufferPointer(decoded.samples), channels: channels, plan: plan) { _, value in seam.append(value) }
        let frames = body + c
        let outFrames = Resampler.loopFrames(frames, from: decoded.sampleRate, to: outputRate)
        let memory: SampleMemory
        do throws(AudioFileError) {
            memory = try SampleMemory(samples: max(outFrames, 1) * channels, path: path, hugePages: false)
        } catch {
            throw AudioSinkError(error.reason)
        }
        // The tail is in the seam now. The body is given back as the resampler passes it, but for the loop's
        // first `keep` frames, which it reads again at the end (the padding after the loop).
        SampleMemory.discard(decoded.storage, from: (decoded.frames - c) * channels, to: decoded.frames * channels)
        let keep = Resampler.paddingFrames(frames, from: decoded.sampleRate, to: outputRate)
        var released = keep
        var inOrder = 0  // the end of what was read in order from frame 0: the pass through the loop itself
        let source = decoded.samples.baseAddress! + c * channels
        var written = 0
        try seam.withUnsafeBufferPointer { (seam) throws(AudioSinkError) in
            try Resampler.resampleLoop(frames: frames, channels: channels, from: decoded.sampleRate, to: outputRate, read: { start, count, destination in
                // The body from the decoded samples, the seam from its own buffer.
                let fromBody = max(0, min(count, body - start))
                let s = source + start * channels
                for i in 0..<(fromBody * channels) { destination[i] = Float(s[i]) / 32768 }
                if start == inOrder {
                    inOrder = start + count
                    let passed = min(inOrder, body)
                    if passed > released + 16384 {
                        SampleMemory.discard(decoded.storage, from: (c + released) * channels, to: (c + passed) * channels)
                        released = passed
                    }
                }
                if fromBody < count {
                    let seamStart = max(0, start - body)
                    (destination + fromBody * channels).update(from: seam.baseAddress! + seamStart * channels, count: (count - fromBody) * channels)
                }
            }, write: { block in
                let n = min(block.count, memory.capacity - written)
                LoopBuffer.convert(UnsafeBufferPointer(rebasing: block[..<n]), into: memory.base + written)
                written += n
            })
        }
        guard written >= channels else { throw AudioSinkError("is too short to loop") }
        let outFramesWritten = written / channels
        return LoopBuffer(storage: memory.finish(count: outFramesWritten * channels), startFrame: 0, frames: outFramesWritten, channels: channels)
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
