import CSndFile
import HumCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
    /// What the stage gives, before it is encoded (the writer's thread's; `finish`'s once that thread stopped).
    private let staging: Staging?

    /// The extensions `render` can write.
    public static let extensions = ["wav", "flac", "ogg", "opus"]

    /// - Parameters:
    ///   - formatName: the name whose extension picks the container (default: `path`), so a temporary file can be
    ///     written in the format of the name it will be renamed to.
    ///   - quality: for Ogg Vorbis and Opus, 0…1 (libsndfile's VBR quality); ignored otherwise.
    ///   - dither: whether 16-bit samples (s16 .wav and .flac) are dithered (`SixteenBit`); by default yes (the
    ///     frontend says no for `render --no-dither` and `HUM_DITHER=off`, `OutputDither`).
    public convenience init(
        path: String, formatName: String? = nil, sampleRate: Int, channels: Int,
        sampleFormat: SampleFormat = .s16, quality: Double? = nil, dither: Bool = true
    ) throws(AudioFileError) {
        try self.init(
            path: path, descriptor: nil, formatName: formatName ?? path, sampleRate: sampleRate, channels: channels,
            sampleFormat: sampleFormat, quality: quality, dither: dither)
    }

    /// Writes to an open descriptor (a temporary file, a device, a pipe), which is left open; `name`'s extension
    /// picks the container and names the file in messages. A .wav file needs a descriptor that can seek.
    /// - Parameter stage: work done on the frames on the writer's thread before they are encoded (a render's
    ///   limiter, `LimitingStage`).
    public convenience init(
        descriptor: Int32, name: String, sampleRate: Int, channels: Int, sampleFormat: SampleFormat = .s16,
        quality: Double? = nil, dither: Bool = true, stage: (any WriteStage)? = nil
    ) throws(AudioFileError) {
        try self.init(
            path: name, descriptor: descriptor, formatName: name, sampleRate: sampleRate, channels: channels,
            sampleFormat: sampleFormat, quality: quality, dither: dither, stage: stage)
    }

    private init(
        path: String, descriptor: Int32?, formatName: String, sampleRate: Int, channels: Int,
        sampleFormat: SampleFormat, quality: Double?, dither: Bool, stage: (any WriteStage)? = nil
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
        // 16-bit samples are made here, once, the same for every container (libsndfile's own conversion
        // truncated for WAV and rounded for FLAC); the other formats go to libsndfile as float.
        let sixteen =
            sampleFormat == .s16 && (ext == "wav" || ext == "flac")
            ? SixteenBitBuffer(capacity: AudioFileWriter.block * channels, dither: dither) : nil
        let capacity = 32768
        let staging = stage.map {
            Staging(stage: $0, file: file, channels: channels, sixteen: sixteen, capacity: capacity)
        }
        self.staging = staging
        pipeline = WritePipeline(capacity: capacity * channels) { base, count in
            if let staging { return staging.take(base, frames: count / channels) }
            return AudioFileWriter.writeNow(file, base, frames: count / channels, channels: channels, sixteen: sixteen)
        }
    }

    /// A stage's output on its way to the file, written in whole blocks of `block` frames as they fill (the rest
    /// carried to the next), so the 16-bit conversion sees the same blocks as without a stage (its dither takes a
    /// new place in its noise at each): the file is the same, byte for byte.
    final class Staging {
        let stage: any WriteStage
        let file: SoundFile
        let channels: Int
        let sixteen: SixteenBitBuffer?
        let buffer: UnsafeMutablePointer<Float>
        /// Frames at the start of `buffer` not yet written (fewer than `block`).
        var carried = 0

        init(stage: any WriteStage, file: SoundFile, channels: Int, sixteen: SixteenBitBuffer?, capacity: Int) {
            self.stage = stage
            self.file = file
            self.channels = channels
            self.sixteen = sixteen
            buffer = .allocate(capacity: (AudioFileWriter.block + max(capacity, stage.heldFrames)) * channels)
        }

        deinit { buffer.deallocate() }

        func take(_ input: UnsafePointer<Float>, frames: Int) -> AudioFileError? {
            let n = stage.process(input, frames: frames, into: buffer + carried * channels)
            return write(carried + n, all: false)
        }

        /// What the stage still holds, and what was carried.
        func finish() -> AudioFileError? {
            let n = stage.finish(into: buffer + carried * channels)
            return write(carried + n, all: true)
        }

        private func write(_ frames: Int, all: Bool) -> AudioFileError? {
            let whole = all ? frames : frames / AudioFileWriter.block * AudioFileWriter.block
            let failure = AudioFileWriter.writeNow(file, buffer, frames: whole, channels: channels, sixteen: sixteen)
            carried = frames - whole
            if carried > 0 { buffer.update(from: buffer + whole * channels, count: carried * channels) }
            return failure
        }
    }

    /// The extension of a name, lower-cased ("" when it has none), which picks the container.
    static func containerExtension(_ name: String) -> String {
        let base = PathText.base(name)
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
    /// - The sample format (`--sample-format`) applies to .wav and .flac; Vorbis and Opus choose their own.
    public static func problem(formatName: String, sampleRate: Int, sampleFormat: SampleFormat, seekable: Bool)
        -> String?
    {
        switch containerExtension(formatName) {
        case "wav":
            if !seekable {
                return
                    "a .wav file cannot be written to a pipe or a FIFO (its header is written last, at the start); "
                    + "write .flac, .ogg or .opus there, or a .wav to a file"
            }
        case "flac":
            if sampleFormat == .f32 {
                return "FLAC cannot hold float samples; use --sample-format s16 or s24, or a .wav file"
            }
            if sampleRate > 65535 && sampleRate % 10 != 0 {
                return
                    "FLAC cannot hold \(sampleRate) Hz: above 65535 Hz it takes only multiples of 10 (such as 88200 "
                    + "or 96000)"
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
            return
                "unknown output format \((ext.isEmpty ? "" : "." + ext).quoted); name the file .wav, .flac, .ogg or .opus"
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

    /// Frames made straight into the writer's own buffer, without a copy: `fill` gets room for at least
    /// `minimumFrames` frames (interleaved; how many it has room for) and returns how many it wrote. Returns that.
    public func writeInPlace(
        minimumFrames: Int, _ fill: (_ frames: UnsafeMutablePointer<Float>, _ room: Int) -> Int
    ) throws(AudioFileError) -> Int {
        let channels = self.channels
        return try pipeline.writeInPlace(minimum: minimumFrames * channels) { base, count in
            fill(base, count / channels) * channels
        } / channels
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
        var pending = pipeline.finish()
        if pending == nil, let staging { pending = staging.finish() }  // the writer's thread has stopped
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
    /// Frames handed to libsndfile at once. In blocks: libvorbis (1.3.7, through libsndfile 1.2.0) crashes in
    /// vorbis_analysis_wrote when one call hands it a whole minute of audio.
    static let block = 8192

    static func writeNow(
        _ file: SoundFile, _ base: UnsafePointer<Float>, frames: Int, channels: Int, sixteen: SixteenBitBuffer?
    ) -> AudioFileError? {
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            let written: sf_count_t
            let call: String
            if let sixteen {
                sixteen.convert(base + done * channels, count: n * channels)
                written = sf_writef_short(file.handle, sixteen.samples, sf_count_t(n))
                call = "sf_writef_short"
            } else {
                written = sf_writef_float(file.handle, base + done * channels, sf_count_t(n))
                call = "sf_writef_float"
            }
            if written != n {
                return AudioFileError(
                    path: file.path,
                    reason:
                        "write failed (\(call): \(String(cString: sf_strerror(file.handle)).trimmingTrailingPeriod))")
            }
            done += n
        }
        return nil
    }
}

/// Work done on the frames on a writer's thread before they are encoded (`AudioFileWriter`'s `stage`).
public protocol WriteStage: AnyObject {
    /// Takes `frames` frames at `input`, writes what comes out to `output` (room for `frames`); returns how many.
    func process(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>) -> Int
    /// Writes what it still holds to `output` (room for `heldFrames`), at the end; returns how many.
    func finish(into output: UnsafeMutablePointer<Float>) -> Int
    /// The most frames it holds back.
    var heldFrames: Int { get }
}

/// The mix's limiter on a writer's thread (`LimiterStage`): a render mixes on its own thread
/// (`Mixer.mixUnlimited`) while this one limits, encodes and writes; the file is the same, to the bit, as one
/// limited where it was mixed. Stereo.
public final class LimitingStage: WriteStage {
    private var stage: LimiterStage

    public init(sampleRate: Int) { stage = LimiterStage(sampleRate: sampleRate) }

    deinit { stage.deallocate() }

    public var heldFrames: Int { stage.delay }

    public func process(_ input: UnsafePointer<Float>, frames: Int, into output: UnsafeMutablePointer<Float>) -> Int {
        stage.process(input, frames: frames, into: output)
    }

    public func finish(into output: UnsafeMutablePointer<Float>) -> Int { stage.finish(into: output) }
}
