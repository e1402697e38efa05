import Foundation
import HumAudio
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// `hum render`: the playback engine run offline into a file, as fast as the machine allows.
struct RenderCommand: HumCommand {
    static let name = "render"
    static let abstract = "render a mix into an audio file, with the same engine as playback"
    static let usage = [
        "render SOUND[=VOLUME]... --duration DURATION -o FILE [--rate HZ] [--format s16|s24|f32] [--volume N] [--fade DURATION]"
    ]
    static let discussion = """
        The file is exactly what 'hum play --for DURATION' plays, sample for sample: the same loops, ramps, fades
        and limiter. The container comes from the extension: .wav, .flac, .ogg or .opus. A file appears only
        when complete (it is written under a temporary name and renamed; Ctrl-C removes it); a device or a FIFO
        is written through. What the container cannot hold is refused at once.

        Examples:
          hum render rain=40 brown=25 --duration 10m -o mix.wav
          hum render storm --duration 1h --rate 44100 -o storm.flac
        """
    static let options = [
        OptionSpec("duration", short: "d", value: "DURATION", help: "length of the file (required)"),
        OptionSpec("output", short: "o", value: "FILE", help: "file to write (required)"),
        OptionSpec("rate", value: "HZ", help: "sample rate (default 48000)"),
        OptionSpec(
            "format", value: "FORMAT", help: "sample format for .wav/.flac: s16 (default), s24 or f32 (.wav only)"),
        OptionSpec("volume", value: "N", help: "master volume 0–100 (default 100)"),
        OptionSpec("fade", value: "DURATION", help: "fade in at the start and out at the end (default 1s)"),
        MixSetup.rawOption,
    ]
    static let takesPositionals = true

    var entries: [MixEntry]
    var seconds: Double
    var output: String
    var rate: Int
    var sampleFormat: SampleFormat
    var master: Double
    var fade: Double
    var raw: Bool

    init(arguments: ParsedArguments, context: CommandContext) throws {
        guard let durationText = arguments.value("duration") else {
            throw HumError.usage("render needs --duration, for example --duration 10m")
        }
        seconds = try MixSetup.duration(durationText, option: "duration")
        guard seconds > 0 else { throw HumError.usage("--duration must be longer than 0s") }
        guard let output = arguments.value("output"), !output.isEmpty else {
            throw HumError.usage("render needs -o FILE, for example -o mix.wav")
        }
        self.output = output
        let ext = (output as NSString).pathExtension.lowercased()
        guard AudioFileWriter.extensions.contains(ext) else {
            throw HumError.usage("cannot tell the format of \"\(output)\"; name it .wav, .flac, .ogg or .opus")
        }
        if let text = arguments.value("rate") {
            guard let r = Int(text), (8000...384_000).contains(r) else {
                throw HumError.usage("--rate \"\(text)\" is not a sample rate from 8000 to 384000 Hz")
            }
            rate = r
        } else {
            rate = 48000
        }
        if let text = arguments.value("format") {
            guard let f = SampleFormat(rawValue: text) else {
                throw HumError.usage("--format \"\(text)\" is not one of s16, s24, f32")
            }
            sampleFormat = f
        } else {
            sampleFormat = .s16
        }
        master =
            try arguments.value("volume").map { v throws(HumError) in try MixSetup.volume(v, option: "volume") } ?? 100
        raw = arguments.flag("raw")
        fade = try arguments.value("fade").map { v throws(HumError) in try MixSetup.duration(v, option: "fade") } ?? 1
        guard !arguments.positionals.isEmpty else {
            throw HumError.usage(
                "render needs at least one sound, for example 'hum render rain=40 --duration 10m -o mix.wav'")
        }
        entries = try MixSetup.resolve(
            words: arguments.positionals, catalog: MixSetup.catalog(context), command: Self.name)
    }

    func run(context: CommandContext) throws -> Int32 {
        // Before any thread starts (the loaders, the writer), so that a signal can always remove the temporary
        // file; and the combinations libsndfile cannot write are refused before any work.
        InterruptCleanup.shared.start()
        if let problem = AudioFileWriter.problem(
            formatName: output, sampleRate: rate, sampleFormat: sampleFormat, seekable: true)
        {
            throw HumError.usage(problem)
        }
        let file = try OutputFile(path: output, newFileMode: OutputFile.ordinary)
        if case .through(let seekable) = file.mode,
            let problem = AudioFileWriter.problem(
                formatName: output, sampleRate: rate, sampleFormat: sampleFormat, seekable: seekable)
        {
            file.discard()
            throw HumError.usage(problem)
        }
        let (tracks, playing) = try MixSetup.loadTracks(entries, rate: rate, raw: raw, context: context)
        let controls = MixerControls(volumes: playing.map { Float($0.token.volume) }, master: Float(master))
        let fadeFrames = Int(min(fade, seconds / 2) * Double(rate))  // same rule as play --for
        let mixer = Mixer(sampleRate: rate, tracks: tracks, controls: controls, fadeInFrames: fadeFrames)
        let total = Int64((seconds * Double(rate)).rounded())
        controls.scheduleEnd(atFrame: total, fadeFrames: min(Int64(fadeFrames), total / 2))

        do throws(AudioFileError) {
            let writer = try AudioFileWriter(
                descriptor: file.descriptor, name: output, sampleRate: rate, channels: 2, sampleFormat: sampleFormat)
            try Self.renderAll(mixer, into: writer)
        } catch {
            file.discard()
            throw HumError.failure("cannot write \(output.visible): \(error.reason)")
        }
        try file.commit()
        return ExitCode.success
    }

    /// Renders until the mix finishes, writing in large chunks.
    static func renderAll(_ mixer: Mixer, into writer: AudioFileWriter) throws(AudioFileError) {
        let chunk = 16384
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: chunk * 2)
        defer { buffer.deallocate() }
        while !mixer.finished {
            let n = mixer.render(into: buffer, frames: chunk)
            if n == 0 { break }
            try writer.write(UnsafeBufferPointer(start: buffer, count: 2 * n))
        }
        try writer.finish()
    }
}
