import Dispatch
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

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
    /// The sound is decoded once, to 16-bit, and never copied whole: the loop is built in the memory it was
    /// decoded into. At the output rate the seam is written over the tail and the loop starts at frame C; at
    /// another rate the resampler streams the loop (body, then seam) and writes its output over the start of the
    /// same memory, behind what it still has to read.
    ///
    /// With a `cache`, a loop built before for the same file and settings is mapped from it instead of built, and a
    /// loop built now is stored there and played mapped from its file (`LoopCache`; events are not cached). At the
    /// `.fastest` pace, the file is synced to the disk beside (`LoopCache.waitForStores`).
    public static func load(
        _ sound: SoundReference, outputRate: Int, matching: LoudnessMatching? = nil, speakers: SpeakerSize = .full,
        cache: LoopCache? = nil, pace: LoadingPace = .leanest
    ) throws(AudioFileError) -> Mixer.Track {
        if let events = sound.events {
            return try EventLoader.load(
                sound, events: events, outputRate: outputRate, matching: matching, speakers: speakers, cache: cache)
        }
        guard let cache, let key = cache.key(sound, outputRate: outputRate, matching: matching, speakers: speakers)
        else { return try build(sound, outputRate: outputRate, matching: matching, speakers: speakers) }
        if let hit = cache.open(key: key, outputRate: outputRate) {
            return segmented(hit.loop, normalization: hit.normalization, rate: outputRate, sound: sound)
        }
        var built = try build(sound, outputRate: outputRate, matching: matching, speakers: speakers)
        if let mapped = cache.store(
            built.loop, normalization: built.normalization, key: key, outputRate: outputRate,
            syncLater: pace == .fastest)
        {
            built.loop = mapped  // the loop in memory is freed as this returns
        }
        return built
    }

    /// Builds a bed's track from its file (no cache).
    static func build(_ sound: SoundReference, outputRate: Int, matching: LoudnessMatching?, speakers: SpeakerSize)
        throws(AudioFileError) -> Mixer.Track
    {
        var decoded = try AudioFileReader.decodeRegion(path: sound.path) { rate, frames in
            rate == outputRate ? 0 : roomToResample(frames: frames, from: rate, to: outputRate)
        }
        if sound.source != .builtin { SilenceTrim.trim(&decoded) }  // a user's file: no silent ends in the loop
        var normalization: Float = 1
        if let matching, sound.source != .builtin {
            // A file that cannot be measured still plays, at its own level. Measured before the loop is built.
            normalization =
                (try? matching.loudness.gain(
                    forFile: sound.path, samples: UnsafeBufferPointer(decoded.samples),
                    channels: decoded.channels, sampleRate: decoded.sampleRate,
                    targetLUFS: matching.targetLUFS)) ?? 1
        }
        let channels = decoded.channels
        let plan =
            sound.loop == .precut
            ? LoopSeam.Plan.asItIs
            : LoopSeam.plan(UnsafeBufferPointer(decoded.samples), channels: channels, sampleRate: decoded.sampleRate)
        if decoded.sampleRate == outputRate {
            let first = decoded.start  // frames before it: silence trimmed off the start
            let start = LoopSeam.makeLoopInPlace(decoded.samples, channels: channels, plan: plan)
            let end = plan.end(frames: decoded.frames)  // the frames after it (the trim) are not played
            let storage = decoded.memory.finish(count: (first + end) * channels)
            SampleMemory.discard(storage, from: 0, to: (first + start) * channels)  // the head now lives in the seam
            let loop = LoopBuffer(
                storage: storage, startFrame: first + start, frames: end - start, channels: channels)
            return track(loop, normalization: normalization, speakers: speakers, rate: outputRate, sound: sound)
        }
        let loop = try resampledLoop(&decoded, plan: plan, outputRate: outputRate, path: sound.path)
        return track(loop, normalization: normalization, speakers: speakers, rate: outputRate, sound: sound)
    }

    /// The track of a loop made for `speakers` (small: high-passed and lifted, see `SmallSpeakerLift`), played in
    /// segments when the sound has them and its loop is long enough for them.
    static func track(
        _ loop: LoopBuffer, normalization: Float, speakers: SpeakerSize, rate: Int, sound: SoundReference
    ) -> Mixer.Track {
        guard speakers == .small else {
            return segmented(loop, normalization: normalization, rate: rate, sound: sound)
        }
        return segmented(
            loop, normalization: normalization * SmallSpeakerLift.apply(to: loop, sampleRate: rate), rate: rate,
            sound: sound)
    }

    /// The track of a finished loop, played in segments when the sound has them and its loop is long enough.
    static func segmented(_ loop: LoopBuffer, normalization: Float, rate: Int, sound: SoundReference) -> Mixer.Track {
        let segments = sound.segments.map { $0.bed(name: sound.name, sampleRate: rate) }
        let fitting = segments?.fits(frames: loop.frames) == true ? segments : nil
        return Mixer.Track(loop: loop, normalization: normalization, segments: fitting)
    }

    /// Frames to keep free before a sound of `frames` frames decoded for resampling in place: what the loop grows
    /// by, plus a margin (the resampler's output must stay behind what it still has to read).
    static func roomToResample(frames: Int, from inputRate: Int, to outputRate: Int) -> Int {
        let growth = Int((Double(frames) * (Double(outputRate) / Double(inputRate) - 1)).rounded(.up))
        return max(0, growth) + resampleMargin
    }

    static let resampleMargin = 4096

    /// The loop [C, L−C) + seam of `decoded`, resampled to `outputRate` in the decoded memory itself: output frame
    /// k goes to frame k of the memory while body frame j is read from frame start + C + j, and the room before
    /// the samples (see `roomToResample`) keeps every write behind every read still to come. The seam is made first
    /// (it stays float until it is resampled, as the loop would be if it were built first), and the loop's first
    /// frames, read again at the end as the padding after the loop, are copied aside.
    static func resampledLoop(_ decoded: inout DecodedRegion, plan: LoopSeam.Plan, outputRate: Int, path: String)
        throws(AudioFileError) -> LoopBuffer
    {
        let channels = decoded.channels
        let inputRate = decoded.sampleRate
        let c = plan.crossfadeFrames
        let body = plan.end(frames: decoded.frames) - 2 * c  // frames [C, E−C) of the file
        let frames = body + c
        let outFrames = Resampler.loopFrames(frames, from: inputRate, to: outputRate)
        var seam = [Float]()
        seam.reserveCapacity(c * channels)
        LoopSeam.seam(UnsafeBufferPointer(decoded.samples), channels: channels, plan: plan) { _, value in
            seam.append(value)
        }

        // Room: the header may have promised fewer frames than the file held.
        let lead = roomToResample(frames: body, from: inputRate, to: outputRate) - c
        let needed = max((max(lead, 0) + decoded.frames) * channels, outFrames * channels)
        if decoded.start < lead || decoded.memory.capacity < needed {
            let newStart = max(decoded.start, lead)
            try decoded.memory.reserve(max(needed, (newStart + decoded.frames) * channels))
            let base = decoded.memory.base
            memmove(base + newStart * channels, base + decoded.start * channels, decoded.frames * channels * 2)
            decoded.start = newStart
        }

        let padHead = Resampler.headPaddingFrames(from: inputRate, to: outputRate)
        let head = Array(
            UnsafeBufferPointer(rebasing: decoded.samples[(c * channels)..<((c + min(padHead, body)) * channels)]))
        let memory = decoded.memory
        let source = decoded.samples.baseAddress! + c * channels
        var consumed = 0  // frames read so far: the loop, then its head again
        var written = 0
        do throws(ResamplingError) {
            try seam.withUnsafeBufferPointer { (seam) throws(ResamplingError) in
                try head.withUnsafeBufferPointer { (head) throws(ResamplingError) in
                    try Resampler.resampleLoop(
                        frames: frames, channels: channels, from: inputRate, to: outputRate,
                        read: { start, count, destination in
                            // The body from the decoded samples (from the copy once the pass is over: the output has
                            // overwritten them by then), the seam from its own buffer.
                            let fromBody = max(0, min(count, body - start))
                            let passed = consumed >= frames
                            consumed += count
                            let s =
                                passed ? head.baseAddress! + start * channels : UnsafePointer(source) + start * channels
                            for i in 0..<(fromBody * channels) { destination[i] = Float(s[i]) / 32768 }
                            if fromBody < count {
                                let seamStart = max(0, start - body)
                                (destination + fromBody * channels).update(
                                    from: seam.baseAddress! + seamStart * channels,
                                    count: (count - fromBody) * channels)
                            }
                        },
                        write: { frame, block in
                            // Output frame k goes to frame k of the memory: behind every frame still to be read.
                            LoopBuffer.convert(block, into: memory.base + frame * channels)
                            written += block.count
                        })
                }
            }
        } catch {
            throw AudioFileError(path: path, reason: error.message)
        }
        guard outFrames > 0, written == outFrames * channels else {
            throw AudioFileError(path: path, reason: "is too short to loop")
        }
        return LoopBuffer(
            storage: memory.finish(count: outFrames * channels), startFrame: 0, frames: outFrames, channels: channels)
    }

    /// Loads several sounds; each result is a track or the reason it cannot play. Without a cache, at once on all
    /// cores. With one, `pace` decides: `.leanest` (playing) goes one after the other: a loop found in the cache
    /// costs nothing, and one built is stored and its memory freed before the next is built, so a first play's
    /// peak memory is one loop being built beside the mapped ones, not one per core (about 6 MB less for the 8
    /// tracks of bench/playback.sh on 2 cores), for a first load that takes longer only once. `.fastest`
    /// (rendering, which reads every loop whole anyway) builds on all cores and syncs the files beside.
    public static func loadAll(
        _ sounds: [SoundReference], outputRate: Int, matching: LoudnessMatching? = nil, speakers: SpeakerSize = .full,
        cache: LoopCache? = nil, pace: LoadingPace = .leanest
    ) -> [Result<Mixer.Track, AudioFileError>] {
        let results = ResultSlots<Result<Mixer.Track, AudioFileError>>(count: sounds.count)
        let work: @Sendable (Int) -> Void = { i in
            do throws(AudioFileError) {
                results.set(
                    i,
                    .success(
                        try load(
                            sounds[i], outputRate: outputRate, matching: matching, speakers: speakers, cache: cache,
                            pace: pace)))
            } catch {
                results.set(i, .failure(error))
            }
        }
        if cache != nil, pace == .leanest {
            for i in sounds.indices { work(i) }
        } else {
            DispatchQueue.concurrentPerform(iterations: sounds.count, execute: work)
        }
        return results.values
    }
}

/// How `TrackLoader.loadAll` spends memory against time when it builds loops for a cache.
public enum LoadingPace: Sendable {
    /// One loop built at a time: the least memory at its peak (playing, which keeps a few seconds of each loop
    /// resident).
    case leanest
    /// On all cores, each loop synced to the disk beside instead of waited for (rendering, which reads every loop
    /// whole anyway); `LoopCache.waitForStores` before exiting.
    case fastest
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
