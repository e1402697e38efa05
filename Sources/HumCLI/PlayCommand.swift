import HumAudio
import HumCore
import HumTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// `hum play`: plays a mix until stopped, or for a set time.
struct PlayCommand: HumCommand {
    static let name = "play"
    static let abstract = "play a mix of looping sounds"
    static let discussion = """
        A SOUND is a built-in name (see 'hum sounds'), a user sound (a file in $XDG_DATA_HOME/hum/sounds), or a
        path to an audio file. VOLUME is 0–100 (default 50). Without sounds, the last mix played is played again.
        Without a command, hum plays: 'hum rain=40' is 'hum play rain=40'.
        Ctrl-C or SIGTERM fades out and exits. On a terminal: ↑/↓ select a sound, ←/→ change its volume, m mutes
        it, +/- change the master volume, q quits.
        """
    static let examples = [
        "hum play rain=40 brown=25",
        "hum play rain --for 30m",
        "hum play ~/sounds/cafe.flac=30 --device hw:0",
    ]

    static let sounds = Positional(
        "SOUND[=VOLUME]", .mixWord, variadic: true, required: false, help: "the sounds of the mix, each with its volume"
    )
    static let duration = Option(
        "for", aliases: ["duration"], .positiveDuration,
        help: "stop by itself after this long, with a fade (a sleep timer)")
    static let master = Option("volume", .volume, help: "master volume 0–100 (default 100)")
    static let fade = Option("fade", .duration, help: "fade in at the start and out at the end (default 1s)")
    static let device = Option(
        "device", .device, help: "ALSA PCM to play to (default: $HUM_DEVICE, else 'default')")
    static let raw = MixSetup.raw
    static let arguments: [any Declared] = [sounds, duration, master, fade, device, raw]

    var words: [String]
    var duration: Double?
    var master: Double?
    var fade: Double
    var raw: Bool
    var device: String?

    init(_ arguments: ParsedArguments) throws {
        words = try arguments.positionals(Self.sounds)
        duration = try arguments.value(Self.duration)
        master = try arguments.value(Self.master)
        fade = try arguments.value(Self.fade) ?? 1
        device = try arguments.value(Self.device)
        raw = arguments.flag(Self.raw)
    }

    func run(context: CommandContext) throws -> Int32 {
        let catalog = MixSetup.catalog(context)
        let requested =
            words.isEmpty
            ? MixSetup.Requested(entries: try MixSetup.remembered(context, catalog: catalog))
            : try MixSetup.resolve(words: words, catalog: catalog, context: context)
        let entries = requested.entries
        let master = self.master ?? requested.master ?? 100
        let device = PlaybackSession.device(option: device, context: context)
        let signals = SignalWatch()
        signals.block()  // before any thread starts, so all of them inherit it
        // A short run fades in over its first half at most, and out over its second.
        let fadeSeconds = duration.map { min(fade, $0 / 2) } ?? fade
        let session = try PlaybackSession(
            entries: entries, device: device, master: master, fadeSeconds: fadeSeconds, raw: raw, context: context,
            endAfter: duration)
        MixSetup.remember(session.entries.map(\.token), context: context)
        let interactive = context.stdoutIsTerminal && context.stdinIsTerminal
        let terminal = interactive ? Terminal() : nil
        var view = MixerView(
            tracks: session.entries.map { .init(name: $0.displayName, volume: $0.token.volume) }, master: master)
        var decoder = KeyDecoder()
        terminal?.enterRawMode()
        defer {
            terminal?.endStatusLine()
            terminal?.restore()
        }
        var stopping = false
        var lastLine = ""
        while session.engine.state != .finished {
            if let terminal {
                for key in terminal.keys(waiting: 50, decoder: &decoder) {
                    let action = view.handle(key)
                    if action == .quit {
                        if stopping { session.engine.abort() } else { session.stop() }
                        stopping = true
                    } else {
                        session.apply(action)
                    }
                }
            } else {
                usleep(50_000)
            }
            if signals.pending() != nil {
                if stopping { session.engine.abort() } else { session.stop() }
                stopping = true
            }
            let note = session.deviceNote(context: context) { terminal?.endStatusLine() }
            if let terminal {
                let line = view.line(
                    elapsedSeconds: session.elapsedSeconds, color: context.useColor,
                    note: stopping ? "stopping…" : note)
                if line != lastLine {
                    terminal.statusLine(line)
                    lastLine = line
                }
            }
        }
        session.engine.wait(timeout: 2)
        return ExitCode.success
    }
}
