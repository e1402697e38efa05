import CSndFile
import Foundation

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
    public init(
        path: String, formatName: String? = nil, sampleRate: Int, channels: Int,
        sampleFormat: SampleFormat = .s16, quality: Double? = nil
    ) throws(AudioFileError) {
        let name = ((formatName ?? path) as NSString).lastPathComponent
        let ext = name.contains(".") ? String(name.split(separator: ".").last!).lowercased() : ""
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
            if sampleFormat == .f32 {
                throw AudioFileError(
                    path: path, reason: "FLAC cannot hold float samples; use s16 or s24, or a .wav file")
            }
            info.format = Int32(SF_FORMAT_FLAC) | pcm
        case "ogg": info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_VORBIS)
        case "opus": info.format = Int32(SF_FORMAT_OGG) | Int32(SF_FORMAT_OPUS)
        default:
            throw AudioFileError(
                path: path, reason: "unknown output format \".\(ext)\"; name the file .wav, .flac, .ogg or .opus")
        }
        file = try SoundFile(writing: path, info: info)
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
