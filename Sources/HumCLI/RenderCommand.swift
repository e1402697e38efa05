import HumAudio
import HumCore
import HumPlayer

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// `hum render`: the playback engine run offline into a file, as fast as the machine allows.
struct RenderCommand: HumCommand {
    static let name = "render"
    static let abstract = "render a mix into an audio file, with the same engine as playback"
    static let discussion = """
        The file is exactly what 'hum play --for DURATION' plays, sample for sample: the same loops, ramps, fades,
        events and limiter. Sounds with one-shot events (thunder~20, a user folder with events/) scatter them at
        random from a seed: --seed N (or HUM_SEED=N for play) makes them the same every time. The container comes from the extension: .wav, .flac, .ogg or .opus. A file appears only
        when complete (it is written under a temporary name and renamed; Ctrl-C removes it); a device or a FIFO
        is written through. What the container cannot hold is refused at once.
        """
    static let examples = [
        "hum render rain=70 brown=40 --for 10m -o mix.wav",
        "hum render storm --for 1h --rate 44100 -o storm.flac",
        "hum render rain thunder~20=60 --for 10m --seed 7 -o storm.wav",
    ]

    static let sounds = Positional(
        "SOUND[=VOLUME]", .mixWord, variadic: true, help: "the sounds of the mix, each with its volume")
    static let duration = Option(
        "for", short: "d", aliases: ["duration"], .positiveDuration, required: true, help: "length of the file")
    static let output = Option("output", short: "o", .file, required: true, help: "the file to write")
    static let rate = Option(
        "rate",
        ValueKind<Int>("HZ") { text in
            guard let rate = Int(text), (8000...384_000).contains(rate) else {
                return .failure(.init("is not a sample rate from 8000 to 384000 Hz"))
            }
            return .success(rate)
        },
        help: "sample rate (default 48000)")
    static let sampleFormat = Option(
        "sample-format", aliases: ["format"], ValueKind<SampleFormat>.choice("FORMAT"),
        help: "sample format for .wav/.flac: s16 (default), s24 or f32 (.wav only)")
    static let master = PlayCommand.master
    static let fade = PlayCommand.fade
    static let seed = Option(
        "seed",
        ValueKind<UInt64>("N") { text in
            guard let seed = EventSeed.parse(text) else {
                return .failure(.init("is not a whole number from 0 to \(UInt64.max)"))
            }
            return .success(seed)
        },
        help: "draw the sounds' events from this seed: the same seed renders the same file (default: $HUM_SEED, else "
            + "a new one)")
    static let noDither = Flag(
        "no-dither",
        help: "round 16-bit samples instead of dithering them, to compare renders sample by sample (or HUM_DITHER=off)")
    static let arguments: [any Declared] = [
        sounds, duration, output, rate, sampleFormat, master, fade, seed, PlayCommand.raw, noDither,
    ]

    var words: [String]
    var seconds: Double
    var output: String
    var rate: Int
    var sampleFormat: SampleFormat
    var master: Double?
    var fade: Double
    var raw: Bool
    var dither: Bool
    var seed: UInt64?

    init(_ arguments: ParsedArguments) throws {
        words = try arguments.positionals(Self.sounds)
        seconds = try arguments.required(Self.duration)
        output = try arguments.required(Self.output)
        let ext = PathText.extension(output).lowercased()
        guard AudioFileWriter.extensions.contains(ext) else {
            throw HumError.usage(
                "cannot tell the format of \"\(output.clippedPath)\"; name it .wav, .flac, .ogg or .opus")
        }
        rate = try arguments.value(Self.rate) ?? 48000
        let format = try arguments.value(Self.sampleFormat)
        // Vorbis and Opus choose their own sample format: a format asked for would be silently ignored.
        if let format, ext == "ogg" || ext == "opus" {
            throw HumError.usage(
                "--sample-format \(format.rawValue) applies to .wav and .flac only; .\(ext) chooses its own, so "
                    + "leave it out"
            )
        }
        sampleFormat = format ?? .s16
        master = try arguments.value(Self.master)
        fade = try arguments.value(Self.fade) ?? 1
        raw = arguments.flag(PlayCommand.raw)
        dither = !arguments.flag(Self.noDither)
        seed = try arguments.value(Self.seed)
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
        let file = try OutputFile(path: output, newFileMode: OutputFile.ordinary, closed: context.closedDescriptors)
        if case .through(let seekable) = file.mode,
            let problem = AudioFileWriter.problem(
                formatName: output, sampleRate: rate, sampleFormat: sampleFormat, seekable: seekable)
        {
            file.discard()
            throw HumError.usage(problem)
        }
        // The settings the loaders read quietly (play.speakers): a value that cannot be read is said once here,
        // as `hum play` says it, instead of rendering with the default in silence.
        _ = try SettingsReader.read(context.runtime)
        let seed = try self.seed ?? EventSeed.session(context.runtime.variables)
        let requested = try MixSetup.resolve(
            words: words, catalog: MixSetup.catalog(context.runtime), environment: context.runtime)
        let entries = requested.entries
        let master = self.master ?? requested.master ?? 100
        // Through the loop cache as play goes: the same loops, and a render of sounds played before decodes nothing.
        // Built on all cores: a render reads every loop whole, so building one at a time would save no memory.
        // The loops' files go to the disk while it mixes; hum waits for them before it exits.
        let cache = MixSetup.loopCache(context.runtime)
        defer { cache.waitForStores() }
        let (tracks, playing) = try MixSetup.loadTracks(
            entries, rate: rate, raw: raw, environment: context.runtime, cache: cache, pace: .fastest)
        let controls = MixerControls(volumes: playing.map { Float($0.token.volume) }, master: Float(master))
        let fadeFrames = Int(min(fade, seconds / 2) * Double(rate))  // same rule as play --for
        let mixer = Mixer(
            sampleRate: rate, tracks: tracks, controls: controls, fadeInFrames: fadeFrames, eventSeed: seed)
        let total = Int64((seconds * Double(rate)).rounded())
        controls.scheduleEnd(atFrame: total, fadeFrames: min(Int64(fadeFrames), total / 2))

        do throws(AudioFileError) {
            // The limiter runs on the writer's thread: mixing and limiting go on at once, on two cores.
            let writer = try AudioFileWriter(
                descriptor: file.descriptor, name: output, sampleRate: rate, channels: 2, sampleFormat: sampleFormat,
                dither: dither && OutputDither.enabled(environment: context.environment),
                stage: LimitingStage(sampleRate: rate))
            try Self.renderAll(mixer, into: writer)
        } catch {
            file.discard()
            throw HumError.failure("cannot write \(output.clippedPath): \(error.reason)")
        }
        try file.commit()
        return ExitCode.success
    }

    /// Mixes until the mix finishes, straight into the buffers of a writer that limits them (`LimitingStage`).
    static func renderAll(_ mixer: Mixer, into writer: AudioFileWriter) throws(AudioFileError) {
        while try writer.writeInPlace(minimumFrames: Mixer.maximumBlock, { mixer.mixUnlimited(into: $0, frames: $1) })
            > 0
        {}
        try writer.finish()
    }
}
