import HumAudio
import HumControl
import HumCore
import HumPlayer
import HumStore
import HumSystem
import HumTerminal

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// `hum focus`: Pomodoro rounds that drive the mix. The state machine (HumCore's FocusMachine) decides; this
/// command feeds it the clocks, keys and signals, and carries out its effects on the mixer, the history and the
/// outside world.
struct FocusCommand: HumCommand {
    static let name = "focus"
    static let abstract = "run focus rounds that fade the mix out at each round's end and back in the next"
    static let discussion = """
        The mix plays through each focus round and fades to silence exactly at its end; a soft chime marks the
        change and the break is silent. The next focus round fades the same mix back in, unless you changed the
        sounds after the fade began or during the break: then your sounds play at once and stay as they are.
        Completed focus rounds earn leisure time (see 'hum bank'); every round goes into 'hum history'.
        Without sounds: the setting play.mix if set, else the last mix played, else rain=75 brown=50. Durations:
        90s, 25m, 1h, 1h30m; a bare number is minutes. A machine suspend counts as pause: time asleep is not focus
        time. Defaults come from the settings ('hum config list': focus.length, focus.rounds, ...), then from
        --profile NAME (options saved with 'hum config set profile.NAME'); an option given here wins over both.

        Keys on a terminal: ↑/↓ select a sound, ←/→ its volume, m mute, +/- master, space pause/resume,
        s skip to the next phase, e extend by 5 minutes, q (or Ctrl-C) stop (the round is recorded as interrupted).
        Not on a terminal, hum prints one line per phase change: time, event, phase, round n/N, remaining.

        --on-event runs a command (split into words as a shell would, quotes kept; run directly, no shell, nothing
        expanded) at every phase change, with
        HUM_EVENT, HUM_PHASE, HUM_ROUND, HUM_ROUNDS, HUM_REMAINING_SECONDS and HUM_SESSION_ID set; it is
        killed after 10 s.

        On a desktop, a notification (one per session, replaced in place) says what comes next when a phase runs
        out, with Skip and +5 min buttons; media keys and playerctl steer the rounds (next skips, previous starts
        the focus round again). --inhibit keeps the machine from suspending or going idle while a focus round
        runs.

        A contract (--done-when, with --goal): written before the first round, it shows what it can earn; when its
        rounds end the reward waits for proof ('hum proof'), reviewed against the files changed under --watch
        (default: this git repository) and the commits made meanwhile. --strict refuses what loosens the rules
        while it runs. See 'hum contract --help' and docs/contracts.md.
        """
    static let examples = [
        "hum focus",
        "hum focus rain=70 brown=40 --focus 50m --short-break 10m --rounds 3 --goal \"draft chapter 2\"",
        "hum focus --no-sound --auto-advance none --tag writing",
        "hum focus --goal \"draft the intro\" --done-when \"intro.md has three paragraphs\" --first-step \"outline\" "
            + "--strict",
        "hum focus --profile deep",
    ]

    static let sounds = PlayCommand.sounds
    static let focus = Option("focus", .positiveDuration, help: "length of a focus round (setting focus.length, 25m)")
    static let shortBreak = Option(
        "short-break", .positiveDuration, help: "length of a short break (setting focus.short-break, 5m)")
    static let longBreak = Option(
        "long-break", .positiveDuration, help: "length of a long break (setting focus.long-break, 15m)")
    static let longEvery = Option(
        "long-every", .count(FocusPlan.longBreakEveryRange),
        help: "a long break after every Nth focus round; 0: never (setting focus.long-every, 4)")
    static let rounds = Option(
        "rounds", .count(FocusPlan.roundsRange), help: "number of focus rounds (setting focus.rounds, 4)")
    static let fade = Option(
        "fade", .duration,
        help: "fade out over the end of each focus round, in over its start (setting focus.fade, 10s)")
    static let autoAdvance = Option(
        "auto-advance", ValueKind<FocusPlan.AutoAdvance>.choice("MODE"),
        help: "which phases start by themselves: all, none, to-break or to-focus (setting focus.auto-advance, all)")
    static let goal = Option("goal", .words("TEXT"), help: "what this session is for (kept in the history)")
    static let tag = Option("tag", .words("TAG"), repeatable: true, help: "a tag for the history (repeatable)")
    static let noSound = Flag("no-sound", help: "no mix, no chime: the timer alone")
    static let quiet = Flag(
        "quiet", short: "q", help: "no terminal bell and no desktop notification (settings notify.bell, notify.desktop)"
    )
    static let inhibit = Flag(
        "inhibit", help: "keep the machine from suspending or going idle while a focus round runs (logind)")
    static let onEvent = Option(
        "on-event", .command, help: "run CMD at every phase change (see below; setting focus.on-event)")
    static let profile = Option(
        "profile",
        ValueKind<String>("NAME") { text in
            SettingCatalog.isProfileName(text)
                ? .success(text) : .failure(.init("is not a profile name: use 1 to 64 letters, digits, '-' or '_'"))
        }, help: "use the options saved as profile.NAME ('hum config set profile.NAME \"--focus 50m ...\"')")
    static let arguments: [any Declared] = [
        sounds, focus, shortBreak, longBreak, longEvery, rounds, fade, autoAdvance, goal, tag, noSound, quiet, inhibit,
        onEvent, profile, PlayCommand.master, PlayCommand.device, PlayCommand.raw, PlayCommand.verbose,
        ContractSetup.doneWhen, ContractSetup.firstStep, ContractSetup.watch, ContractSetup.strict,
    ]

    /// The options as given on the command line; `FocusOptions.resolve(settings:)` layers them over the profile,
    /// the settings and hum's defaults.
    var options: FocusOptions
    var master: Double?
    var device: String?
    var raw: Bool
    var verbose: Bool
    var contract: ContractSetup.Asked?

    init(_ arguments: ParsedArguments) throws {
        /// Seconds as parsed, to the millisecond.
        func duration(_ option: Option<Double>) throws -> Duration? {
            try arguments.value(option).map { .milliseconds(Int64(($0 * 1000).rounded())) }
        }
        // Read in this order, so that of several bad values the same one is named first as before.
        var options = FocusOptions()
        options.focus = try duration(Self.focus)
        options.shortBreak = try duration(Self.shortBreak)
        options.longBreak = try duration(Self.longBreak)
        options.longEvery = try arguments.value(Self.longEvery)
        options.rounds = try arguments.value(Self.rounds)
        options.fade = try duration(Self.fade)
        options.autoAdvance = try arguments.value(Self.autoAdvance)
        options.noSound = arguments.flag(Self.noSound)
        options.quiet = arguments.flag(Self.quiet)
        options.inhibit = arguments.flag(Self.inhibit)
        options.goal = try arguments.value(Self.goal)
        options.tags = try arguments.values(Self.tag)
        options.profile = try arguments.value(Self.profile)
        master = try arguments.value(PlayCommand.master)
        device = try arguments.value(PlayCommand.device)
        raw = arguments.flag(PlayCommand.raw)
        verbose = arguments.flag(PlayCommand.verbose)
        options.onEvent = try arguments.value(Self.onEvent)
        contract = try ContractSetup.read(arguments, goal: options.goal)
        options.words = try arguments.positionals(Self.sounds)
        self.options = options
        if options.noSound, !options.words.isEmpty {
            throw HumError.usage("--no-sound plays nothing; leave out the sounds or drop --no-sound")
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        let settings = try SettingsReader.read(context.runtime, required: true)
        let resolved = try options.resolve(settings: settings)
        var request = resolved.request
        if let contract, let goal = request.goal {
            let start = try ContractSetup.start(contract, goal: goal, context: context)
            try ContractSetup.announce(start, plan: resolved.plan, context: context)
            request.contract = start
        }
        let code = try play(request, resolved, settings: settings, context: context)
        if let contract = request.contract { ProofPrompt.offer(contractID: contract.id, context: context) }
        return code
    }

    /// Starts the rounds: on the running player, or on a player of this process.
    func play(_ request: FocusRequest, _ resolved: FocusResolution, settings: Settings, context: CommandContext) throws
        -> Int32
    {
        let words = resolved.words
        let noSound = resolved.noSound
        let catalog = MixSetup.catalog(context.runtime)
        // A mix that cannot be read is a usage error, said before anything looks for a player or takes the claim.
        if !words.isEmpty { _ = try MixSetup.resolve(words: words, catalog: catalog, environment: context.runtime) }
        // A player already runs (or another hum is starting one): the rounds start on it (on the sounds given, if
        // any). Else this process holds the claim to be the player, before it opens anything.
        let claim: PlayerClaim
        switch try PlayerLink.seat(context) {
        case .mine(let mine): claim = mine
        case .theirs(let client):
            if !words.isEmpty {
                let requested = try MixSetup.resolve(words: words, catalog: catalog, environment: context.runtime)
                let mix = Mix(
                    tokens: requested.entries.map(\.token), master: master ?? requested.master ?? 100,
                    name: requested.name)
                _ = try PlayerLink.send(.play(mix), to: client)
            }
            _ = try PlayerLink.send(.focus(request), to: client)
            guard context.stdinIsTerminal && context.stdoutIsTerminal else { return ExitCode.success }
            return try RemoteLine.attach(client, context: context)
        }
        var requested = MixSetup.Requested(entries: [])
        if !noSound {
            requested =
                words.isEmpty
                ? try MixSetup.defaultMix(settings, catalog: catalog, environment: context.runtime)
                : try MixSetup.resolve(words: words, catalog: catalog, environment: context.runtime)
        }
        let mix = Mix(
            tokens: requested.entries.map(\.token), master: master ?? requested.master ?? 100, name: requested.name)
        let loop = EventLoop()
        let player = try Player(
            environment: context.runtime, loop: loop, mix: mix, entries: requested.entries,
            options: .init(
                device: PlaybackSession.device(
                    option: device ?? settings.text(SettingCatalog.playDevice), environment: context.runtime),
                raw: raw, fadeSeconds: 1, endAfter: nil, silent: noSound, startSilent: true))
        try player.listen(claim: claim)
        if verbose { player.describeAudio() }
        if !noSound { MixSetup.remember(player.mix.tokens, environment: context.runtime) }
        if context.stdinIsTerminal && context.stdoutIsTerminal {
            player.screen = try LineScreen(
                loop: loop, terminal: Terminal(), color: context.useColor, player: player
            ) {
                _ = try? player.handle(player.hasFocus ? .endFocus : .stop)
            }
        }
        try player.startFocus(request, stopsPlayer: true)
        return player.run { loop.run() }
    }
}
