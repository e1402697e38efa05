import CSndFile
import HumCore

/// A file opened for decoding, with the checks every decode makes before and after reading.
struct DecodeSource {
    let file: SoundFile
    let path: String
    let channels: Int
    let rate: Int
    /// The length the header promises, trusted only when `known`.
    let promised: Int
    let known: Bool
    let limit: Int

    init(path: String) throws(AudioFileError) {
        file = try SoundFile(reading: path)
        self.path = path
        channels = Int(file.info.channels)
        rate = Int(file.info.samplerate)
        limit = AudioFileReader.maximumSeconds * rate
        // A header can promise anything (a cut Ogg file reports an unknown length): memory is sized from it only
        // when it is plausible, and reading goes on until the decoder stops.
        promised = Int(file.info.frames)
        known = promised > 0 && promised <= limit
        if promised == Int(Int64.max) {
            // libsndfile's answer for an Ogg stream whose last page is missing.
            throw AudioFileError(path: path, reason: "the file is truncated (its end is missing)")
        }
        if promised > limit {
            throw AudioFileError(
                path: path,
                reason:
                    "is too long to loop (\(promised / max(rate, 1)) s; at most "
                    + "\(AudioFileReader.maximumSeconds / 60) minutes)"
            )
        }
        if file.logMentionsTruncation {
            throw AudioFileError(
                path: path, reason: "the file is truncated (its header promises more audio than it holds)")
        }
    }

    func checkLength(_ read: Int) throws(AudioFileError) {
        if read > limit {
            throw AudioFileError(
                path: path, reason: "is too long to loop (at most \(AudioFileReader.maximumSeconds / 60) minutes)")
        }
    }

    func checkEnd(read: Int) throws(AudioFileError) {
        let error = sf_error(file.handle)
        if error != 0 {
            throw AudioFileError(
                path: path, reason: "cannot decode (\(String(cString: sf_error_number(error)).trimmingTrailingPeriod))")
        }
        if read == 0 { throw AudioFileError(path: path, reason: "contains no decodable audio") }
        // The header promised more than the file holds: a truncated download or copy. Playing what is there
        // would loop a cut-off file, so say so. Ogg and MP3 length estimates can be short by a packet or two.
        if known, read + max(8192, promised / 100) < promised {
            throw AudioFileError(path: path, reason: "the file is truncated (\(read) of \(promised) frames readable)")
        }
    }
}

/// Reads audio files of any format libsndfile reads.
public enum AudioFileReader {
    public static func info(path: String) throws(AudioFileError) -> AudioFileInfo {
        let file = try SoundFile(reading: path)
        return AudioFileInfo(
            frames: Int(file.info.frames), sampleRate: Int(file.info.samplerate),
            channels: Int(file.info.channels), formatName: file.formatName)
    }

    /// What `info` reads, after the checks every decode makes before reading (a length beyond what hum loops, an
    /// Ogg stream without its end, a WAV whose header promises more than the file holds): the answer to "can this
    /// play?" short of decoding it all. For `hum sounds`.
    public static func inspect(path: String) throws(AudioFileError) -> AudioFileInfo {
        let source = try DecodeSource(path: path)
        return AudioFileInfo(
            frames: Int(source.file.info.frames), sampleRate: source.rate, channels: source.channels,
            formatName: source.file.formatName)
    }

    /// The longest sound hum loops from memory: 30 minutes (about 330 MB of 16-bit samples at 48 kHz stereo).
    public static let maximumSeconds = 1800

    /// Decodes the whole file to float. More than two channels are down-mixed to stereo (even channels left, odd
    /// right, each side averaged); mono stays mono.
    public static func decode(path: String) throws(AudioFileError) -> DecodedAudio {
        let source = try DecodeSource(path: path)
        let channels = source.channels
        var samples: [Float] = []
        samples.reserveCapacity((source.known ? source.promised : source.rate * 60) * channels)
        let chunk = 65536
        var block = [Float](repeating: 0, count: chunk * channels)
        var read = 0
        while true {
            let n = Int(
                block.withUnsafeMutableBufferPointer {
                    sf_readf_float(source.file.handle, $0.baseAddress!, sf_count_t(chunk))
                })
            if n <= 0 { break }
            samples.append(contentsOf: block[0..<(n * channels)])
            read += n
            try source.checkLength(read)
        }
        try source.checkEnd(read: read)
        if channels <= 2 {
            return DecodedAudio(samples: samples, channels: channels, sampleRate: source.rate)
        }
        return DecodedAudio(samples: downmixToStereo(samples, channels: channels), channels: 2, sampleRate: source.rate)
    }

    /// Decodes the whole file to 16-bit samples (full scale 32768), the form loops are held in, straight into
    /// memory a loop can be built in. 16-bit PCM files are read as they are; any other format is decoded to float
    /// in small blocks and rounded (as `LoopBuffer.convert` does). More than two channels are down-mixed to
    /// stereo as `decode` does.
    public static func decodeSamples(path: String) throws(AudioFileError) -> DecodedSamples {
        let region = try decodeRegion(path: path) { _, _ in 0 }
        let count = region.frames * region.channels
        return DecodedSamples(
            storage: region.memory.finish(count: count), frames: region.frames,
            channels: region.channels, sampleRate: region.sampleRate)
    }

    /// The same, into memory that keeps `leadingFrames(sampleRate, promisedFrames)` frames free before the
    /// samples (room for a loop resampled in place to grow into).
    static func decodeRegion(path: String, leadingFrames: (_ sampleRate: Int, _ promisedFrames: Int) -> Int)
        throws(AudioFileError) -> DecodedRegion
    {
        let source = try DecodeSource(path: path)
        let fileChannels = source.channels
        let channels = min(fileChannels, 2)
        let expected = source.known ? source.promised : source.rate * 60
        let lead = max(0, leadingFrames(source.rate, expected)) * channels  // in samples
        let memory = try SampleMemory(samples: lead + expected * channels, path: path)
        var read = 0
        let subformat = source.file.info.format & Int32(SF_FORMAT_SUBMASK)
        if fileChannels <= 2 && subformat == Int32(SF_FORMAT_PCM_16) {
            // Straight into the loop's memory; past the promised length (or for an unknown one) in growing steps.
            var probe = [Int16](repeating: 0, count: 4096 * channels)
            while true {
                let room = (memory.capacity - lead) / channels - read
                if room > 0 {
                    let n = Int(
                        sf_readf_short(source.file.handle, memory.base + lead + read * channels, sf_count_t(room)))
                    if n <= 0 { break }
                    read += n
                } else {
                    let n = Int(
                        probe.withUnsafeMutableBufferPointer {
                            sf_readf_short(source.file.handle, $0.baseAddress!, 4096)
                        })
                    if n <= 0 { break }
                    try memory.reserve(lead + (read + max(n, source.rate * 10)) * channels)
                    probe.withUnsafeBufferPointer {
                        (memory.base + lead + read * channels).update(from: $0.baseAddress!, count: n * channels)
                    }
                    read += n
                }
                try source.checkLength(read)
            }
        } else {
            let chunk = 16384
            var block = [Float](repeating: 0, count: chunk * fileChannels)
            var stereo = [Float](repeating: 0, count: fileChannels > 2 ? chunk * 2 : 0)
            while true {
                let n = Int(
                    block.withUnsafeMutableBufferPointer {
                        sf_readf_float(source.file.handle, $0.baseAddress!, sf_count_t(chunk))
                    })
                if n <= 0 { break }
                try memory.reserve(lead + (read + n) * channels, growingBy: source.rate * 10 * channels)
                let destination = memory.base + lead + read * channels
                if fileChannels > 2 {
                    block.withUnsafeBufferPointer { b in
                        stereo.withUnsafeMutableBufferPointer {
                            downmixToStereo(b.baseAddress!, frames: n, channels: fileChannels, into: $0.baseAddress!)
                        }
                    }
                    stereo.withUnsafeBufferPointer {
                        LoopBuffer.convert(UnsafeBufferPointer(rebasing: $0[..<(n * 2)]), into: destination)
                    }
                } else {
                    block.withUnsafeBufferPointer {
                        LoopBuffer.convert(UnsafeBufferPointer(rebasing: $0[..<(n * channels)]), into: destination)
                    }
                }
                read += n
                try source.checkLength(read)
            }
        }
        try source.checkEnd(read: read)
        return DecodedRegion(
            memory: memory, start: lead / channels, frames: read, channels: channels, sampleRate: source.rate)
    }

    static func downmixToStereo(_ samples: [Float], channels: Int) -> [Float] {
        let frames = samples.count / channels
        var out = [Float](repeating: 0, count: frames * 2)
        samples.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer {
                downmixToStereo(s.baseAddress!, frames: frames, channels: channels, into: $0.baseAddress!)
            }
        }
        return out
    }

    static func downmixToStereo(
        _ samples: UnsafePointer<Float>, frames: Int, channels: Int, into out: UnsafeMutablePointer<Float>
    ) {
        let left = (channels + 1) / 2
        let right = channels / 2
        for f in 0..<frames {
            var l: Float = 0
            var r: Float = 0
            for c in 0..<channels {
                if c % 2 == 0 { l += samples[f * channels + c] } else { r += samples[f * channels + c] }
            }
            out[2 * f] = l / Float(left)
            out[2 * f + 1] = r / Float(right)
        }
    }
}
