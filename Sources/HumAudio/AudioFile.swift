#if canImport(Glibc)
import Glibc
#endif
import CSndFile
import HumCore

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

/// An open libsndfile handle, closed in deinit.
final class SoundFile {
    let handle: OpaquePointer
    let info: SF_INFO
    let path: String

    /// Opens for reading, checking first what libsndfile would only report vaguely: missing, a directory, empty.
    init(reading path: String) throws(AudioFileError) {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let reason = errno == ENOENT ? "no such file" : String(cString: strerror(errno))
            throw AudioFileError(path: path, reason: reason)
        }
        if (st.st_mode & S_IFMT) == S_IFDIR { throw AudioFileError(path: path, reason: "is a directory, not an audio file") }
        if st.st_size == 0 { throw AudioFileError(path: path, reason: "the file is empty") }
        var info = SF_INFO()
        guard let handle = sf_open(path, Int32(SFM_READ), &info) else {
            throw AudioFileError(path: path, reason: SoundFile.openFailure(path))
        }
        self.handle = handle
        self.info = info
        self.path = path
        if info.channels <= 0 || info.samplerate <= 0 {
            throw AudioFileError(path: path, reason: "the header is invalid (\(info.channels) channels at \(info.samplerate) Hz)")
        }
        if info.frames <= 0 { throw AudioFileError(path: path, reason: "contains no audio") }
    }

    /// Opens for writing.
    init(writing path: String, info: SF_INFO) throws(AudioFileError) {
        var info = info
        guard sf_format_check(&info) == SF_TRUE else {
            throw AudioFileError(path: path, reason: "libsndfile cannot write this format at \(info.samplerate) Hz with \(info.channels) channels")
        }
        guard let handle = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw AudioFileError(path: path, reason: "cannot create the file (sf_open: \(String(cString: sf_strerror(nil))))")
        }
        self.handle = handle
        self.info = info
        self.path = path
    }

    deinit { sf_close(handle) }

    private static func openFailure(_ path: String) -> String {
        let message = String(cString: sf_strerror(nil))
        if message.contains("unknown format") || message.contains("Format not recognised") {
            return "not an audio file libsndfile can read (\(message.trimmingTrailingPeriod)); use WAV, FLAC, Ogg Vorbis, Opus or MP3"
        }
        return "cannot decode (sf_open: \(message.trimmingTrailingPeriod))"
    }

    var formatName: String {
        var major = SF_FORMAT_INFO()
        major.format = info.format & Int32(SF_FORMAT_TYPEMASK)
        var sub = SF_FORMAT_INFO()
        sub.format = info.format & Int32(SF_FORMAT_SUBMASK)
        var names: [String] = []
        if sf_command(handle, Int32(SFC_GET_FORMAT_INFO), &major, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0, let n = major.name {
            names.append(String(cString: n))
        }
        if sf_command(handle, Int32(SFC_GET_FORMAT_INFO), &sub, Int32(MemoryLayout<SF_FORMAT_INFO>.size)) == 0, let n = sub.name {
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
        return AudioFileInfo(frames: Int(file.info.frames), sampleRate: Int(file.info.samplerate),
                             channels: Int(file.info.channels), formatName: file.formatName)
    }

    /// Decodes the whole file to float. More than two channels are down-mixed to stereo (even channels left, odd
    /// right, each side averaged); mono stays mono.
    public static func decode(path: String) throws(AudioFileError) -> DecodedAudio {
        let file = try SoundFile(reading: path)
        let channels = Int(file.info.channels)
        let expected = Int(file.info.frames)
        guard expected < Int(Int32.max) / max(channels, 1) else {
            throw AudioFileError(path: path, reason: "is too long to loop from memory (\(expected) frames)")
        }
        var samples = [Float](repeating: 0, count: expected * channels)
        var read = 0
        while read < expected {
            let n = samples.withUnsafeMutableBufferPointer { buffer in
                sf_readf_float(file.handle, buffer.baseAddress! + read * channels, sf_count_t(expected - read))
            }
            if n <= 0 { break }
            read += Int(n)
        }
        let error = sf_error(file.handle)
        if error != 0 {
            throw AudioFileError(path: path, reason: "cannot decode (\(String(cString: sf_error_number(error)).trimmingTrailingPeriod))")
        }
        if read == 0 { throw AudioFileError(path: path, reason: "contains no decodable audio") }
        // The header promised more than the file holds: a truncated download or copy. Playing what is there
        // would loop a cut-off file with a jump, so say so instead. Ogg/MP3 estimates can be short by a packet.
        let tolerance = max(8192, expected / 100)
        if read + tolerance < expected {
            throw AudioFileError(path: path, reason: "the file is truncated (\(read) of \(expected) frames readable)")
        }
        samples.removeLast((expected - read) * channels)
        if channels <= 2 {
            return DecodedAudio(samples: samples, channels: channels, sampleRate: Int(file.info.samplerate))
        }
        return DecodedAudio(samples: downmixToStereo(samples, channels: channels), channels: 2,
                            sampleRate: Int(file.info.samplerate))
    }

    static func downmixToStereo(_ samples: [Float], channels: Int) -> [Float] {
        let frames = samples.count / channels
        let left = (channels + 1) / 2, right = channels / 2
        var out = [Float](repeating: 0, count: frames * 2)
        for f in 0..<frames {
            var l: Float = 0, r: Float = 0
            for c in 0..<channels {
                if c % 2 == 0 { l += samples[f * channels + c] } else { r += samples[f * channels + c] }
            }
            out[2 * f] = l / Float(left)
            out[2 * f + 1] = r / Float(right)
        }
        return out
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

    /// The extensions `render` can write.
    public static let extensions = ["wav", "flac", "ogg", "opus"]

    /// - Parameter quality: for Ogg Vorbis and Opus, 0…1 (libsndfile's VBR quality); ignored otherwise.
    public init(path: String, sampleRate: Int, channels: Int, sampleFormat: SampleFormat = .s16,
                quality: Double? = nil) throws(AudioFileError) {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
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
        case "flac":
            if sampleFormat == .f32 { throw AudioFileError(path: path, reason: "FLAC cannot hold float samples; use s16 or s24, or a .wav file") }
            info.format = Int32(SF_FORMAT_FLAC) | pcm
        case "ogg": info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        case "opus": info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
        default:
            throw AudioFileError(path: path, reason: "unknown output format \".\(ext)\"; name the file .wav, .flac, .ogg or .opus")
        }
        file = try SoundFile(writing: path, info: info)
        self.path = path
        self.channels = channels
        // Float in, integer out: clip instead of wrapping (the mix is already limited; this is the last guard).
        sf_command(file.handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        if var q = quality, ext == "ogg" || ext == "opus" {
            sf_command(file.handle, Int32(SFC_SET_VBR_ENCODING_QUALITY), &q, Int32(MemoryLayout<Double>.size))
        }
    }

    /// Writes interleaved frames.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        guard let base = samples.baseAddress, !samples.isEmpty else { return }
        let frames = samples.count / channels
        // In blocks: libvorbis (1.3.7, through libsndfile 1.2.0) crashes in vorbis_analysis_wrote when one call
        // hands it a whole minute of audio.
        let block = 8192
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            let written = sf_writef_float(file.handle, base + done * channels, sf_count_t(n))
            if written != n {
                throw AudioFileError(path: path, reason: "write failed (sf_writef_float: \(String(cString: sf_strerror(file.handle)).trimmingTrailingPeriod))")
            }
            done += n
        }
    }

    public func write(_ samples: [Float]) throws(AudioFileError) {
        var failure: AudioFileError?
        samples.withUnsafeBufferPointer { buffer in
            do throws(AudioFileError) { try write(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Flushes to disk. The handle itself closes on deinit.
    public func finish() throws(AudioFileError) {
        guard !closed else { return }
        closed = true
        sf_write_sync(file.handle)
        if sf_error(file.handle) != 0 {
            throw AudioFileError(path: path, reason: "write failed (\(String(cString: sf_strerror(file.handle)).trimmingTrailingPeriod))")
        }
    }
}
