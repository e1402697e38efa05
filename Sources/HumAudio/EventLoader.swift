import HumCore

/// Loads a sound's one-shot events beside its bed: every clip decoded and resampled to the output rate once,
/// here, off the audio thread. A sound that is not built in has each clip brought to the library's loudness
/// (measured once and cached, as beds are) when loudness matching is on; built-in clips are made at their level.
public enum EventLoader {
    /// The longest clip taken as one event.
    public static let maximumClipSeconds = 120.0

    /// The sound's track: its bed as `TrackLoader` makes it (a silent one for events alone) with its events. For
    /// small speakers each clip is high-passed and lifted as a bed is (`SmallSpeakerLift`).
    static func load(
        _ sound: SoundReference, events: SoundManifest.EventBank, outputRate: Int, matching: LoudnessMatching?,
        speakers: SpeakerSize = .full, cache: LoopCache? = nil
    ) throws(AudioFileError) -> Mixer.Track {
        var bedSound = sound
        bedSound.events = nil
        let bed =
            sound.bedless
            ? Mixer.Track(loop: LoopBuffer(interleaved: [0], channels: 1), normalization: 0)
            : try TrackLoader.load(
                bedSound, outputRate: outputRate, matching: matching, speakers: speakers, cache: cache)
        var clips: [LoopBuffer] = []
        var gains: [Float] = []
        for path in events.files {
            let loaded = try clip(path, outputRate: outputRate)
            var gain: Float = 1
            if let matching, sound.source != .builtin {
                gain = (try? matching.loudness.gain(forFile: path, targetLUFS: matching.targetLUFS)) ?? 1
            }
            if speakers == .small { gain *= SmallSpeakerLift.apply(to: loaded, sampleRate: outputRate) }
            clips.append(loaded)
            gains.append(gain)
        }
        guard !clips.isEmpty else { throw AudioFileError(path: sound.path, reason: "has no event files") }
        let bank = SoundEvents(
            name: sound.name, clips: clips, clipGains: gains, perHour: events.perHour,
            minimumGapSeconds: events.minGapSeconds, gainDB: events.gainDBMin...max(events.gainDBMin, events.gainDBMax),
            pan: events.panMin...max(events.panMin, events.panMax), sampleRate: outputRate)
        return Mixer.Track(loop: bed.loop, normalization: bed.normalization, events: bank, segments: bed.segments)
    }

    /// One clip at the output rate, as 16-bit.
    static func clip(_ path: String, outputRate: Int) throws(AudioFileError) -> LoopBuffer {
        let decoded = try AudioFileReader.decode(path: path)
        let channels = decoded.channels
        guard decoded.frames > 0, channels == 1 || channels == 2 else {
            throw AudioFileError(path: path, reason: "holds no sound to play as an event")
        }
        guard Double(decoded.frames) <= maximumClipSeconds * Double(decoded.sampleRate) else {
            throw AudioFileError(
                path: path,
                reason: "is longer than \(Int(maximumClipSeconds)) s; an event is a one-shot, use it as a bed instead")
        }
        if decoded.sampleRate == outputRate {
            return LoopBuffer(interleaved: decoded.samples, channels: channels)
        }
        // The resampler works on loops: with 0.1 s of silence before and after it, the clip's neighbours across
        // the wrap are silence, as a one-shot's are. The silence before is dropped again, but for the filter's
        // few frames of pre-ringing.
        let pad = decoded.sampleRate / 10
        let frames = pad + decoded.frames + pad
        let outSamples = Resampler.loopFrames(frames, from: decoded.sampleRate, to: outputRate) * channels
        let lead = max(0, Resampler.loopFrames(pad, from: decoded.sampleRate, to: outputRate) - 128) * channels
        var output = [Float](repeating: 0, count: outSamples)
        do throws(ResamplingError) {
            try decoded.samples.withUnsafeBufferPointer { (samples) throws(ResamplingError) in
                try Resampler.resampleLoop(
                    frames: frames, channels: channels, from: decoded.sampleRate, to: outputRate,
                    read: { start, count, destination in
                        for i in 0..<(count * channels) {
                            let k = (start - pad) * channels + i
                            destination[i] = k >= 0 && k < samples.count ? samples[k] : 0
                        }
                    },
                    write: { frame, block in
                        output.withUnsafeMutableBufferPointer {
                            ($0.baseAddress! + frame * channels).update(from: block.baseAddress!, count: block.count)
                        }
                    })
            }
        } catch {
            throw AudioFileError(path: path, reason: error.message)
        }
        guard output.count > lead else { throw AudioFileError(path: path, reason: "is too short to play") }
        return LoopBuffer(interleaved: Array(output[lead...]), channels: channels)
    }
}
