import Foundation
import HumAudio
import HumCore
import HumStore
import HumTerminal

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
        Without sounds, the last mix played (or the default mix) is used. Durations: 90s, 25m, 1h, 1h30m; a bare
        number is minutes. A machine suspend counts as pause: time asleep is not focus time.

        Keys on a terminal: ↑/↓ select a sound, ←/→ its volume, m mute, +/- master, space pause/resume,
        s skip to the next phase, e extend by 5 minutes, q (or Ctrl-C) stop (the round is recorded as interrupted).
        Not on a terminal, hum prints one line per phase change: time, event, phase, round n/N, remaining.

        --on-event runs a command (split on spaces, run directly, no shell) at every phase change, with
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
        "hum focus rain=40 brown=20 --focus 50m --short-break 10m --rounds 3 --goal \"draft chapter 2\"",
        "hum focus --no-sound --auto-advance none --tag writing",
        "hum focus --goal \"draft the intro\" --done-when \"intro.md has three paragraphs\" --first-step \"outline\" --strict",
    ]

    static let sounds = PlayCommand.sounds
    static let focus = Option("focus", .positiveDuration, help: "length of a focus round (default 25m)")
    static let shortBreak = Option("short-break", .positiveDuration, help: "length of a short break (default 5m)")
    static let longBreak = Option("long-break", .positiveDuration, help: "length of a long break (default 15m)")
    static let longEvery = Option(
        "long-every", .count(0...1000), help: "a long break after every Nth focus round (default 4; 0: never)")
    static let rounds = Option("rounds", .count(1...1000), help: "number of focus rounds (default 4)")
    static let fade = Option(
        "fade", .duration, help: "fade out over the end of each focus round, in over its start (default 10s)")
    static let autoAdvance = Option(
        "auto-advance", ValueKind<FocusPlan.AutoAdvance>.choice("MODE"),
        help: "which phases start by themselves: all (default), none, to-break or to-focus")
    static let goal = Option("goal", .words("TEXT"), help: "what this session is for (kept in the history)")
    static let tag = Option("tag", .words("TAG"), repeatable: true, help: "a tag for the history (repeatable)")
    static let noSound = Flag("no-sound", help: "no mix, no chime: the timer alone")
    static let quiet = Flag("quiet", short: "q", help: "no terminal bell and no desktop notification")
    static let inhibit = Flag(
        "inhibit", help: "keep the machine from suspending or going idle while a focus round runs (logind)")
    static let onEvent = Option(
        "on-event", .words("CMD"), help: "run CMD at every phase change (see below)")
    static let arguments: [any Declared] = [
        sounds, focus, shortBreak, longBreak, longEvery, rounds, fade, autoAdvance, goal, tag, noSound, quiet, inhibit,
        onEvent, PlayCommand.master, PlayCommand.device, MixSetup.raw, PlayCommand.verbose,
        ContractSetup.doneWhen, ContractSetup.firstStep, ContractSetup.watch, ContractSetup.strict,
    ]

    var plan: FocusPlan
    var words: [String]
    var noSound: Bool
    var quiet: Bool
    var inhibit: Bool
    var goal: String?
    var tags: [String]
    var onEvent: [String]?
    var master: Double?
    var device: String?
    var raw: Bool
    var verbose: Bool
    var contract: ContractSetup.Asked?

    init(_ arguments: ParsedArguments) throws {
        func duration(_ option: Option<Double>) throws(HumError) -> Duration? {
            try arguments.value(option).map { .milliseconds(($0 * 1000).rounded()) }
        }
        let defaults = try FocusPlan()
        plan = try FocusPlan(
            focus: try duration(Self.focus) ?? defaults.focus,
            shortBreak: try duration(Self.shortBreak) ?? defaults.shortBreak,
            longBreak: try duration(Self.longBreak) ?? defaults.longBreak,
            longBreakEvery: try arguments.value(Self.longEvery) ?? defaults.longBreakEvery,
            rounds: try arguments.value(Self.rounds) ?? defaults.rounds,
            fade: try duration(Self.fade) ?? defaults.fade,
            autoAdvance: try arguments.value(Self.autoAdvance) ?? .all)
        noSound = arguments.flag(Self.noSound)
        quiet = arguments.flag(Self.quiet)
        inhibit = arguments.flag(Self.inhibit)
        goal = try arguments.value(Self.goal)
        tags = try arguments.values(Self.tag)
        master = try arguments.value(PlayCommand.master)
        device = try arguments.value(PlayCommand.device)
        raw = arguments.flag(MixSetup.raw)
        verbose = arguments.flag(PlayCommand.verbose)
        if let command = try arguments.value(Self.onEvent) {
            onEvent = command.split(separator: " ").map(String.init)
        }
        contract = try ContractSetup.read(arguments, goal: goal)
        words = try arguments.positionals(Self.sounds)
        if noSound, !words.isEmpty {
            throw HumError.usage("--no-sound plays nothing; leave out the sounds or drop --no-sound")
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        var request = FocusRequest(
            plan: plan, goal: goal, tags: tags, quiet: quiet, onEvent: onEvent, inhibit: inhibit)
        if let contract, let goal {
            let start = try ContractSetup.start(contract, goal: goal, context: context)
            try ContractSetup.announce(start, plan: plan, context: context)
            request.contract = start
        }
        let code = try play(request, context: context)
        if let contract = request.contract { ProofPrompt.offer(contractID: contract.id, context: context) }
        return code
    }

    func play(_ request: FocusRequest, context: CommandContext) throws -> Int32 {
        let catalog = MixSetup.catalog(context)
        // A player already runs: the rounds start on it (on the sounds given, if any).
        if let client = try PlayerLink.connect(context) {
            if !words.isEmpty {
                let requested = try MixSetup.resolve(words: words, catalog: catalog, context: context)
                let mix = Mix(
                    tokens: requested.entries.map(\.token), master: master ?? requested.master ?? 100,
                    name: requested.name)
                _ = try PlayerLink.send(.play(mix), to: client)
            }
            _ = try PlayerLink.send(.focus(request), to: client)
            guard context.stdinIsTerminal && context.stdoutIsTerminal else { return ExitCode.success }
            return try RemoteScreen.attach(client, context: context)
        }
        var requested = MixSetup.Requested(entries: [])
        if !noSound {
            requested =
                words.isEmpty
                ? MixSetup.Requested(entries: try MixSetup.remembered(context, catalog: catalog))
                : try MixSetup.resolve(words: words, catalog: catalog, context: context)
        }
        let mix = Mix(
            tokens: requested.entries.map(\.token), master: master ?? requested.master ?? 100, name: requested.name)
        let player = try Player(
            context: context, mix: mix, entries: requested.entries,
            options: .init(
                device: PlaybackSession.device(option: device, context: context), raw: raw, fadeSeconds: 1,
                endAfter: nil, silent: noSound, startSilent: true))
        try player.listen()
        if verbose { player.describeAudio() }
        if !noSound { MixSetup.remember(player.mix.tokens, context: context) }
        if context.stdinIsTerminal && context.stdoutIsTerminal {
            player.screen = try LineScreen(loop: player.loop, color: context.useColor, player: player) {
                _ = try? player.handle(player.focus == nil ? .stop : .endFocus)
            }
        }
        try player.startFocus(request, stopsPlayer: true)
        return player.run()
    }

    /// The chime at the output rate, matched to the sounds' loudness with libebur128 (as dual mono, as it plays).
    static func chime(rate: Int, targetLUFS: Double) -> LoopBuffer {
        var samples = Chime.render(sampleRate: rate)
        if let meter = try? LoudnessMeter(channels: 2, sampleRate: rate) {
            var stereo = [Float](repeating: 0, count: samples.count * 2)
            for (i, s) in samples.enumerated() {
                stereo[2 * i] = s
                stereo[2 * i + 1] = s
            }
            if (try? meter.add(stereo)) != nil, let m = try? meter.measurement(), m.integratedLUFS.isFinite {
                let gain = Float(pow(10, (targetLUFS - m.integratedLUFS) / 20))
                samples = samples.map { $0 * gain }
            }
        }
        return LoopBuffer(interleaved: samples, channels: 1)
    }
}
