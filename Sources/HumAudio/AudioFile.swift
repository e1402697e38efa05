import CSndFile
import Foundation
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why an audio file could not be read or written, for people: the path and the reason.
public struct AudioFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// What a file holds, read from its header.
public struct AudioFileInfo: Sendable, Equatable {
    public var frames: Int
    public var sampleRate: Int
    public var channels: Int
    /// libsndfile's name of the container and codec, e.g. "OGG (OGG Container format), Vorbis".
    public var formatName: String

    public var durationSeconds: Double { sampleRate > 0 ? Double(frames) / Double(sampleRate) : 0 }
}

/// Audio decoded to interleaved float samples.
public struct DecodedAudio: Sendable {
    public var samples: [Float]
    public var channels: Int
    public var sampleRate: Int

    public var frames: Int { channels > 0 ? samples.count / channels : 0 }

    public init(samples: [Float], channels: Int, sampleRate: Int) {
        self.samples = samples
        self.channels = channels
        self.sampleRate = sampleRate
    }
}

/// Audio decoded to interleaved 16-bit samples (1 or 2 channels), in memory a loop can be built in.
public struct DecodedSamples: Sendable {
    public var storage: SampleStorage
    public var frames: Int
    public var channels: Int
    public var sampleRate: Int

    /// The decoded samples (the storage may be larger).
    public var samples: UnsafeMutableBufferPointer<Int16> {
        UnsafeMutableBufferPointer(start: storage.base, count: frames * channels)
    }
}

/// Decoded 16-bit samples at frame `start` of memory still being built (the loader's working form).
struct DecodedRegion {
    let memory: SampleMemory
    var start: Int
    let frames: Int
    let channels: Int
    let sampleRate: Int

    var samples: UnsafeMutableBufferPointer<Int16> {
        UnsafeMutableBufferPointer(start: memory.base + start * channels, count: frames * channels)
    }
}

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
                    "is too long to loop (\(promised / max(rate, 1)) s; at most \(AudioFileReader.maximumSeconds / 60) minutes)"
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

/// An open libsndfile handle, closed in deinit.
final class SoundFile {
    let handle: OpaquePointer
    let info: SF_INFO
    let path: String

    /// Opens for reading, checking first what libsndfile would only report vaguely: missing, a folder, not a regular
    /// file (a FIFO would block the read for ever, a device would be read without end), empty.
    ///
    /// The check opens the name itself, without blocking (a FIFO does not wait for a writer), and looks at what it
    /// got. libsndfile then opens the name again: by name, because it uses the extension to recognise some files
    /// (an MP3 without a clean first frame).
    init(reading path: String) throws(AudioFileError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ENOENT ? "no such file" : "\(String(cString: strerror(errno))) (open)"
            throw AudioFileError(path: path, reason: reason)
        }
        var st = stat()
        let statResult = fstat(fd, &st)
        let statError = errno
        Glibc.close(fd)
        guard statResult == 0 else {
            throw AudioFileError(path: path, reason: "\(String(cString: strerror(statError))) (fstat)")
        }
        if let kind = SoundFile.notAFile(st.st_mode) { throw AudioFileError(path: path, reason: kind) }
        if st.st_size == 0 { throw AudioFileError(path: path, reason: "the file is empty") }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, reason: SoundFile.openFailure(path))
        }
        self.handle = handle
        self.info = info
        self.path = path
        if info.channels <= 0 || info.samplerate <= 0 {
            throw AudioFileError(
                path: path, reason: "the header is invalid (\(info.channels) channels at \(info.samplerate) Hz)")
        }
        if info.frames <= 0 { throw AudioFileError(path: path, reason: "contains no audio") }
    }

    /// Opens for writing: the file at `path`, or, with `descriptor`, that open descriptor (left open on close; `path`
    /// then only names it in messages).
    init(writing path: String, descriptor: Int32? = nil, info: SF_INFO) throws(AudioFileError) {
        var info = info
        guard sf_format_check(&info) == SF_TRUE else {
            throw AudioFileError(
                path: path,
                reason: "libsndfile cannot write this format at \(info.samplerate) Hz with \(info.channels) channels")
        }
        let opened =
            descriptor.map { sf_open_fd($0, Int32(SFM_WRITE), &info, Int32(SF_FALSE)) }
            ?? sf_open(path, Int32(SFM_WRITE), &info)
        guard let handle = opened else {
            throw AudioFileError(
                path: path, reason: "cannot create the file (sf_open: \(String(cString: sf_strerror(nil))))")
        }
        self.handle = handle
        self.info = info
        self.path = path
    }

    private var isOpen = true

    /// Closes now (writing the final header of a written file); deinit closes otherwise.
    func close() -> Int32 {
        guard isOpen else { return 0 }
        isOpen = false
        return sf_close(handle)
    }

    deinit { _ = close() }

    /// libsndfile notes a WAV/AIFF whose chunk sizes exceed the file ("data : 529200 (should be 99920)").
    var logMentionsTruncation: Bool {
        var log = [CChar](repeating: 0, count: 8192)
        sf_command(handle, Int32(SFC_GET_LOG_INFO), &log, Int32(log.count))
        let text = String(decoding: log.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "\n").contains { $0.hasPrefix("data") && $0.contains("should be") }
    }

    /// Why something that is not a regular file cannot be a sound, or nil for a regular file.
    static func notAFile(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "is a directory, not an audio file"
        case S_IFIFO: return "is a FIFO (a named pipe), not an audio file; hum plays sounds from regular files"
        case S_IFCHR, S_IFBLK: return "is a device, not an audio file; hum plays sounds from regular files"
        case S_IFSOCK: return "is a socket, not an audio file; hum plays sounds from regular files"
        default: return "is not a regular file; hum plays sounds from regular files"
        }
    }

    private static func openFailure(_ path: String) -> String {
        let message = String(cString: sf_strerror(nil))
        // For a regular file (checked before), this message only means a decoder (mpg123) gave up on it.
        if message.contains("file is malformed") {
            return "the file is damaged or truncated (libsndfile knows the format but cannot parse it)"
        }
        if message.contains("not a regular file") {
            return
                "not an audio file libsndfile can read (no valid audio frames); use WAV, FLAC, Ogg Vorbis, Opus or MP3"
        }
        if message.contains("unknown format") || message.contains("Format not recognised") {
            return
                "not an audio file libsndfile can read (\(message.trimmingTrailingPeriod)); use WAV, FLAC, Ogg Vorbis, Opus or MP3"
        }
        return "cannot decode (sf_open: \(message.trimmingTrailingPeriod))"
    }

    var formatName: String {
        var major = SF_FORMAT_INFO()
        major.format = info.format & Int32(SF_FORMAT_TYPEMASK)
        var sub = SF_FORMAT_INFO()
        sub.format = info.format & Int32(SF_FORMAT_SUBMASK)
        var names: [String] = []
        if sf_command(handle, Int32(SFC_GET_FORMAT_INFO), &major, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
            let n = major.name
        {
            names.append(String(cString: n))
        }
        if sf_command(handle, Int32(SFC_GET_FORMAT_INFO), &sub, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0,
            let n = sub.name
        {
            names.append(String(cString: n))
        }
        return names.joined(separator: ", ")
    }
}

extension String {
    var trimmingTrailingPeriod: String { hasSuffix(".") ? String(dropLast()) : self }
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

/// The sample format of a written file.
public enum SampleFormat: String, Sendable, CaseIterable {
    case s16, s24, f32
}

/// Writes audio through libsndfile; the container comes from the file's extension.
public final class AudioFileWriter {
    private let file: SoundFile
    public let path: String
    public let channels: Int
    private var closed = false
    private let pipeline: WritePipeline

    /// The extensions `render` can write.
    public static let extensions = ["wav", "flac", "ogg", "opus"]

    /// - Parameters:
    ///   - formatName: the name whose extension picks the container (default: `path`), so a temporary file can be
    ///     written in the format of the name it will be renamed to.
    ///   - quality: for Ogg Vorbis and Opus, 0…1 (libsndfile's VBR quality); ignored otherwise.
    public convenience init(
        path: String, formatName: String? = nil, sampleRate: Int, channels: Int,
        sampleFormat: SampleFormat = .s16, quality: Double? = nil
    ) throws(AudioFileError) {
        try self.init(
            path: path, descriptor: nil, formatName: formatName ?? path, sampleRate: sampleRate, channels: channels,
            sampleFormat: sampleFormat, quality: quality)
    }

    /// Writes to an open descriptor (a temporary file, a device, a pipe), which is left open; `name`'s extension
    /// picks the container and names the file in messages. A .wav file needs a descriptor that can seek.
    public convenience init(
        descriptor: Int32, name: String, sampleRate: Int, channels: Int, sampleFormat: SampleFormat = .s16,
        quality: Double? = nil
    ) throws(AudioFileError) {
        try self.init(
            path: name, descriptor: descriptor, formatName: name, sampleRate: sampleRate, channels: channels,
            sampleFormat: sampleFormat, quality: quality)
    }

    private init(
        path: String, descriptor: Int32?, formatName: String, sampleRate: Int, channels: Int,
        sampleFormat: SampleFormat, quality: Double?
    ) throws(AudioFileError) {
        let ext = AudioFileWriter.containerExtension(formatName)
        if let problem = AudioFileWriter.problem(
            formatName: formatName, sampleRate: sampleRate, sampleFormat: sampleFormat, seekable: true)
        {
            throw AudioFileError(path: path, reason: problem)
        }
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        let pcm: Int32
        switch sampleFormat {
        case .s16: pcm = Int32(SF_FORMAT_PCM_16)
        case .s24: pcm = Int32(SF_FORMAT_PCM_24)
        case .f32: pcm = Int32(SF_FORMAT_FLOAT)
        }
        switch ext {
        case "wav": info.format = Int32(SF_FORMAT_WAV) | pcm
        case "flac": info.format = Int32(SF_FORMAT_FLAC) | pcm
        case "ogg": info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        default: info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
        }
        file = try SoundFile(writing: path, descriptor: descriptor, info: info)
        self.path = path
        self.channels = channels
        // Float in, integer out: clip instead of wrapping (the mix is already limited; this is the last guard).
        sf_command(file.handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        if var q = quality, ext == "ogg" || ext == "opus" {
            sf_command(file.handle, Int32(SFC_SET_VBR_ENCODING_QUALITY), &q, Int32(MemoryLayout<Double>.size))
        }
        let file = self.file
        pipeline = WritePipeline(capacity: 32768 * channels) { base, count in
            AudioFileWriter.writeNow(file, base, frames: count / channels, channels: channels)
        }
    }

    /// The extension of a name, lower-cased ("" when it has none), which picks the container.
    static func containerExtension(_ name: String) -> String {
        let base = (name as NSString).lastPathComponent
        return base.contains(".") ? String(base.split(separator: ".").last ?? "").lowercased() : ""
    }

    /// Why libsndfile (1.2, with libFLAC, libvorbis and libopus) cannot write `formatName`'s container with these
    /// settings, or nil when it can; known before anything is rendered, so `hum render` refuses at once.
    ///
    /// Found by trying every container with every sample format at every rate of hum's range (8000–384000 Hz,
    /// stereo); `AudioFileTests` checks this table against libsndfile itself:
    /// - .flac holds integer samples only (s16, s24), and above 65535 Hz only rates that are a multiple of 10 (the
    ///   rates a FLAC frame header can state).
    /// - .ogg (Vorbis) encodes up to 200000 Hz.
    /// - .opus encodes 8000, 12000, 16000, 24000 and 48000 Hz only.
    /// - .wav takes everything, but its header is written last, at the start of the file: it needs an output that
    ///   can seek (not a pipe or a FIFO; FLAC, Vorbis and Opus stream).
    /// - The sample format (`--format`) applies to .wav and .flac; Vorbis and Opus choose their own.
    public static func problem(formatName: String, sampleRate: Int, sampleFormat: SampleFormat, seekable: Bool)
        -> String?
    {
        switch containerExtension(formatName) {
        case "wav":
            if !seekable {
                return
                    "a .wav file cannot be written to a pipe or a FIFO (its header is written last, at the start); write .flac, .ogg or .opus there, or a .wav to a file"
            }
        case "flac":
            if sampleFormat == .f32 { return "FLAC cannot hold float samples; use --format s16 or s24, or a .wav file" }
            if sampleRate > 65535 && sampleRate % 10 != 0 {
                return
                    "FLAC cannot hold \(sampleRate) Hz: above 65535 Hz it takes only multiples of 10 (such as 88200 or 96000)"
            }
        case "ogg":
            if sampleRate > 200_000 {
                return
                    "Ogg Vorbis cannot encode \(sampleRate) Hz: at most 200000 Hz; use .flac or .wav for higher rates"
            }
        case "opus":
            if ![8000, 12000, 16000, 24000, 48000].contains(sampleRate) {
                return "Opus encodes only 8000, 12000, 16000, 24000 or 48000 Hz, not \(sampleRate); use --rate 48000"
            }
        case let ext:
            return "unknown output format \"\(ext.isEmpty ? "" : "." + ext)\"; name the file .wav, .flac, .ogg or .opus"
        }
        return nil
    }

    /// Writes interleaved frames.
    ///
    /// The frames are copied and encoded and written by a thread of the writer's own, a block at a time, so the
    /// caller (render's mixing) goes on while they are. A failure is reported by a later `write` or by `finish`.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        // Whole frames only (a trailing partial frame is dropped, as libsndfile would).
        try pipeline.write(UnsafeBufferPointer(rebasing: samples[..<(samples.count - samples.count % channels)]))
    }

    public func write(_ samples: [Float]) throws(AudioFileError) {
        var failure: AudioFileError?
        samples.withUnsafeBufferPointer { buffer in
            do throws(AudioFileError) { try write(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Completes the file: writes what is pending, flushes it and closes it, which writes the final header
    /// (lengths, FLAC totals).
    public func finish() throws(AudioFileError) {
        guard !closed else { return }
        closed = true
        let pending = pipeline.finish()
        sf_write_sync(file.handle)
        let error = sf_error(file.handle)
        let message = String(cString: sf_strerror(file.handle)).trimmingTrailingPeriod
        let result = file.close()
        if let pending { throw pending }
        if error != 0 || result != 0 {
            throw AudioFileError(path: path, reason: "write failed (\(message))")
        }
    }

    deinit { _ = pipeline.finish() }

    /// Writes frames through libsndfile now (on the writer's thread).
    static func writeNow(_ file: SoundFile, _ base: UnsafePointer<Float>, frames: Int, channels: Int) -> AudioFileError?
    {
        // In blocks: libvorbis (1.3.7, through libsndfile 1.2.0) crashes in vorbis_analysis_wrote when one call
        // hands it a whole minute of audio.
        let block = 8192
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            let written = sf_writef_float(file.handle, base + done * channels, sf_count_t(n))
            if written != n {
                return AudioFileError(
                    path: file.path,
                    reason:
                        "write failed (sf_writef_float: \(String(cString: sf_strerror(file.handle)).trimmingTrailingPeriod))"
                )
            }
            done += n
        }
        return nil
    }
}

/// Two blocks of samples handed back and forth between the thread that produces them and one that writes them:
/// one fills while the other is written.
final class WritePipeline: @unchecked Sendable {
    // @unchecked: each block belongs to one side at a time, handed over through the semaphores (which order the
    // memory accesses); the file is used only by the writing thread until `finish` has waited for it; `failure`
    // is written by the writing thread before it signals, and read by the producer after waiting.
    private let blocks: [UnsafeMutablePointer<Float>]
    /// Samples in each handed-over block; -1 tells the writing thread to stop.
    private let counts: UnsafeMutablePointer<Int>
    private let capacity: Int
    private let filled = DispatchSemaphore(value: 0)
    private let free = DispatchSemaphore(value: 1)
    private let stopped = DispatchSemaphore(value: 0)
    private let consume: (UnsafePointer<Float>, Int) -> AudioFileError?
    private var failure: AudioFileError?
    // The producer's side.
    private var current = 0
    private var fill = 0
    private var finished = false

    /// - Parameter consume: writes `count` samples; runs on the pipeline's thread.
    init(capacity: Int, consume: @escaping (UnsafePointer<Float>, Int) -> AudioFileError?) {
        self.capacity = capacity
        blocks = [.allocate(capacity: capacity), .allocate(capacity: capacity)]
        counts = .allocate(capacity: 2)
        counts.initialize(repeating: 0, count: 2)
        self.consume = consume
        let thread = Thread { [self] in run() }
        thread.name = "hum-writer"
        thread.start()
    }

    deinit {
        for block in blocks { block.deallocate() }
        counts.deallocate()
    }

    private func run() {
        var index = 0
        while true {
            filled.wait()
            let count = counts[index]
            if count < 0 { break }
            if failure == nil { failure = consume(blocks[index], count) }
            index ^= 1
            free.signal()
        }
        stopped.signal()
    }

    func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        guard let base = samples.baseAddress else { return }
        var offset = 0
        while offset < samples.count {
            let n = min(capacity - fill, samples.count - offset)
            (blocks[current] + fill).update(from: base + offset, count: n)
            fill += n
            offset += n
            if fill == capacity { try handOver() }
        }
    }

    private func handOver() throws(AudioFileError) {
        counts[current] = fill
        filled.signal()
        current ^= 1
        fill = 0
        free.wait()  // the other block is written
        if let failure { throw failure }
    }

    /// Writes what is pending and stops the thread. Returns the first failure.
    func finish() -> AudioFileError? {
        guard !finished else { return failure }
        finished = true
        if fill > 0 {
            counts[current] = fill
            filled.signal()
            current ^= 1
            free.wait()
        }
        counts[current] = -1
        filled.signal()
        stopped.wait()
        return failure
    }
}

/// Decoder libraries (mpg123 inside libsndfile) print notes straight to stderr. hum reports problems itself, so
/// while files are opened and decoded, file descriptor 2 points at /dev/null.
public enum LibraryNoise {
    public static func silenced<T>(_ body: () throws -> T) rethrows -> T {
        fflush(nil)  // all C streams, stderr among them
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY)
        if saved >= 0, null >= 0 { dup2(null, STDERR_FILENO) }
        defer {
            if saved >= 0 {
                dup2(saved, STDERR_FILENO)
                close(saved)
            }
            if null >= 0 { close(null) }
        }
        return try body()
    }
}
