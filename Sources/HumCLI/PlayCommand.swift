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
    static let usage = ["play [SOUND[=VOLUME]...] [--for DURATION] [--volume N] [--fade DURATION] [--device PCM]"]
    static let discussion = """
        A SOUND is a built-in name (see 'hum sounds'), a user sound (a file in $XDG_DATA_HOME/hum/sounds), or a
        path to an audio file. VOLUME is 0–100 (default 50). Without sounds, the last mix played is played again.
        Ctrl-C or SIGTERM fades out and exits. On a terminal: ↑/↓ select a sound, ←/→ change its volume, m mutes
        it, +/- change the master volume, q quits.

        Examples:
          hum play rain=40 brown=25
          hum play rain --for 30m
          hum play ~/sounds/cafe.flac=30 --device hw:0
        """
    static let options = [
        OptionSpec("for", value: "DURATION", help: "stop by itself after this long, with a fade (a sleep timer)"),
        OptionSpec("volume", value: "N", help: "master volume 0–100 (default 100)"),
        OptionSpec("fade", value: "DURATION", help: "fade in at the start and out at the end (default 1s)"),
        OptionSpec("device", value: "PCM", help: "ALSA PCM to play to (default: $HUM_DEVICE, else 'default')"),
        MixSetup.rawOption,
    ]
    static let takesPositionals = true

    var entries: [MixEntry]
    var duration: Double?
    var master: Double
    var fade: Double
    var raw: Bool
    var device: String
    var fromCommandLine: Bool

    init(arguments: ParsedArguments, context: CommandContext) throws {
        let catalog = MixSetup.catalog(context)
        duration = try arguments.value("for").map { v throws(HumError) in try MixSetup.duration(v, option: "for") }
        if let d = duration, d <= 0 { throw HumError.usage("--for must be longer than 0s") }
        master =
            try arguments.value("volume").map { v throws(HumError) in try MixSetup.volume(v, option: "volume") } ?? 100
        raw = arguments.flag("raw")
        fade = try arguments.value("fade").map { v throws(HumError) in try MixSetup.duration(v, option: "fade") } ?? 1
        device = PlaybackSession.device(option: arguments.value("device"), context: context)
        fromCommandLine = !arguments.positionals.isEmpty
        entries =
            fromCommandLine
            ? try MixSetup.resolve(words: arguments.positionals, catalog: catalog, command: Self.name)
            : try MixSetup.remembered(context, catalog: catalog)
    }

    func run(context: CommandContext) throws -> Int32 {
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
