import HumAudio
import HumControl
import HumCore
import HumPlayer
import HumSystem
import HumTerminal

#if canImport(Glibc)
    import Glibc
#endif

/// `hum play`: plays a mix until stopped, or for a set time.
struct PlayCommand: HumCommand {
    static let name = "play"
    static let abstract = "play a mix of looping sounds"
    static let discussion = """
        A SOUND is a built-in name (see 'hum sounds'), a user sound (a file in $XDG_DATA_HOME/hum/sounds, or a
        folder there with bed.EXT and events/), or a path to an audio file. SOUND~N plays a sound as one-shot
        events alone, about N an hour, at random times (thunder~20=60); HUM_SEED=N makes them the same each time. VOLUME is 0–100 (default 75) on a fader's cubic curve: 75 is −7.5 dB, 50 is −18 dB,
        25 is −36 dB below the sound at 100, so rain=75 brown=50 plays at an ordinary level (about −30 LUFS) and
        rain=40 brown=25 16 dB below it. Without sounds: the setting play.mix if set ('hum config set play.mix
        @night'), else the last mix played, else rain=75 brown=50.
        Without a command, hum plays: 'hum rain=40' is 'hum play rain=40'; bare 'hum' on a terminal is 'hum ui'.
        Ctrl-C or SIGTERM fades out and exits. On a terminal: ↑/↓ select a sound, ←/→ change its volume, m mutes
        it, +/- change the master volume, q quits.
        """
    static let examples = [
        "hum play rain=70 brown=40",
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
        "device", .device,
        help: "ALSA PCM to play to (default: $HUM_DEVICE, else the setting play.device, 'default': "
            + "the sound server natively when one runs, unless HUM_AUDIO=alsa)")
    static let raw = Flag(
        "raw", help: "play your own sounds at their own level (not matched to the built-in loudness)")
    static let verbose = Flag(
        "verbose", short: "v",
        help: "say on stderr how the audio runs (device, rate, format, the engine's priority) and, at the end, "
            + "how many underruns and when")
    static let detach = Flag(
        "detach", help: "play in the background (its messages in $XDG_STATE_HOME/hum/player.log) and return")
    static let arguments: [any Declared] = [sounds, duration, master, fade, device, raw, verbose, detach]

    var words: [String]
    var duration: Double?
    var master: Double?
    var fade: Double
    var raw: Bool
    var device: String?
    var verbose: Bool
    var detach: Bool

    init(_ arguments: ParsedArguments) throws {
        words = try arguments.positionals(Self.sounds)
        duration = try arguments.value(Self.duration)
        master = try arguments.value(Self.master)
        fade = try arguments.value(Self.fade) ?? 1
        device = try arguments.value(Self.device)
        raw = arguments.flag(Self.raw)
        verbose = arguments.flag(Self.verbose)
        detach = arguments.given(Self.detach)
    }

    func run(context: CommandContext) throws -> Int32 {
        // A mix that cannot be read is a usage error, said before anything looks for a player or takes the claim
        // to be one (two hums with a typo must not meet there).
        if !words.isEmpty {
            _ = try MixSetup.resolve(
                words: words, catalog: MixSetup.catalog(context.runtime), environment: context.runtime)
        }
        _ = try EventSeed.given(context.runtime.variables)
        if detach {
            // Twice at most: the claim another hum holds may be a player's that is ending, not starting.
            for _ in 0..<2 {
                if let client = try PlayerLink.connectLive(context) { return try join(client, context: context) }
                do {
                    return try startDetached(context: context)
                } catch is Detached.AnotherPlayerStarting {
                    // Another hum took the claim a moment before this one's player could: its player gets the
                    // request. Or a stopping player closed its socket and still held the claim for a moment: once
                    // it lets go with no player answering, start again.
                    if let client = try PlayerLink.awaitStartingOrEnded(context) {
                        return try join(client, context: context)
                    }
                }
            }
            throw HumError.failure(
                "another hum started a player at the same moment, and it stopped before it answered; try again")
        }
        switch try PlayerLink.seat(context) {
        case .theirs(let client):
            return try join(client, context: context)
        case .mine(let claim):
            let loop = EventLoop()
            let player = try makePlayer(context: context, claim: claim, loop: loop)
            if context.stdinIsTerminal && context.stdoutIsTerminal {
                player.screen = try LineScreen(
                    loop: loop, terminal: Terminal(), color: context.useColor, player: player
                ) {
                    player.stop()
                }
            }
            player.changed([.state])
            return player.run { loop.run() }
        }
    }

    /// A player already runs (or another hum is starting one): the request goes to it, in the order requests
    /// arrive, and on a terminal this hum shows its screen.
    func join(_ client: ControlClient, context: CommandContext) throws -> Int32 {
        let catalog = MixSetup.catalog(context.runtime)
        if !words.isEmpty {
            let requested = try MixSetup.resolve(words: words, catalog: catalog, environment: context.runtime)
            // What cannot be opened is said here, by this hum, and never sent (nothing at all: exit 1).
            let playable = try MixSetup.checkHeaders(requested.entries, environment: context.runtime)
            let mix = Mix(
                tokens: playable.map(\.token), master: master ?? requested.master ?? 100,
                name: requested.name)
            _ = try PlayerLink.send(.play(mix), to: client)
        } else if let master {
            _ = try PlayerLink.send(.master(volume: master), to: client)
        }
        if duration != nil { context.warn("a player is already running: --for applies only to a new one") }
        guard context.stdinIsTerminal && context.stdoutIsTerminal, !detach else { return ExitCode.success }
        return try RemoteLine.attach(client, context: context)
    }

    /// The player this command starts: its mix resolved (or the last one), its audio open, its socket listening.
    /// `claim`: the claim to be the player, held by the caller (taken before anything is opened); `loop`: the loop
    /// it lives on, which the caller runs (`Player.run`).
    func makePlayer(
        context: CommandContext, claim: PlayerClaim, loop: EventLoop, silent: Bool = false, paused: Bool = false
    ) throws -> Player {
        let catalog = MixSetup.catalog(context.runtime)
        let settings = try SettingsReader.read(context.runtime)
        let requested =
            silent
            ? MixSetup.Requested(entries: [])
            : words.isEmpty
                ? try MixSetup.defaultMix(settings, catalog: catalog, environment: context.runtime)
                : try MixSetup.resolve(words: words, catalog: catalog, environment: context.runtime)
        let mix = Mix(
            tokens: requested.entries.map(\.token), master: master ?? requested.master ?? 100, name: requested.name)
        var options = Player.Options(
            device: PlaybackSession.device(
                option: device ?? settings.text(SettingCatalog.playDevice), environment: context.runtime),
            raw: raw, fadeSeconds: fade, endAfter: duration, silent: silent)
        options.startPaused = paused
        let player = try Player(
            environment: context.runtime, loop: loop, mix: mix, entries: requested.entries, options: options)
        try player.listen(claim: claim)
        if verbose { player.describeAudio() }
        if !silent { MixSetup.remember(player.mix.tokens, environment: context.runtime) }
        return player
    }

    /// Starts this play as a player in the background (`--detach`, `hum ui`). The words are checked here first, so
    /// a typo is a usage error of this command (the player opens the audio).
    func startDetached(context: CommandContext, announce: Bool = true) throws -> Int32 {
        if !words.isEmpty {
            _ = try MixSetup.resolve(
                words: words, catalog: MixSetup.catalog(context.runtime), environment: context.runtime)
        }
        return try Detached.start(daemonWords: daemonWords, environment: context.runtime, announce: announce)
    }

    /// The words that start the same player elsewhere (`hum daemon …` for `--detach`).
    var daemonWords: [String] {
        var out = ["daemon"] + words
        if let master { out += ["--volume", MixSpec.formatVolume(master)] }
        if let duration { out += ["--for", "\(duration)s"] }
        out += ["--fade", "\(fade)s"]
        if let device { out += ["--device", device] }
        if raw { out.append("--raw") }
        return out
    }
}
