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
        """
    static let examples = [
        "hum focus",
        "hum focus rain=40 brown=20 --focus 50m --short-break 10m --rounds 3 --goal \"draft chapter 2\"",
        "hum focus --no-sound --auto-advance none --tag writing",
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
    static let onEvent = Option(
        "on-event", .words("CMD"), help: "run CMD at every phase change (see below)")
    static let arguments: [any Declared] = [
        sounds, focus, shortBreak, longBreak, longEvery, rounds, fade, autoAdvance, goal, tag, noSound, quiet, onEvent,
        PlayCommand.master, PlayCommand.device, MixSetup.raw,
    ]

    var plan: FocusPlan
    var words: [String]
    var noSound: Bool
    var quiet: Bool
    var goal: String?
    var tags: [String]
    var onEvent: [String]?
    var master: Double
    var device: String?
    var raw: Bool

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
        goal = try arguments.value(Self.goal)
        tags = try arguments.values(Self.tag)
        master = try arguments.value(PlayCommand.master) ?? 100
        device = try arguments.value(PlayCommand.device)
        raw = arguments.flag(MixSetup.raw)
        if let command = try arguments.value(Self.onEvent) {
            onEvent = command.split(separator: " ").map(String.init)
        }
        words = try arguments.positionals(Self.sounds)
        if noSound, !words.isEmpty {
            throw HumError.usage("--no-sound plays nothing; leave out the sounds or drop --no-sound")
        }
    }

    func run(context: CommandContext) throws -> Int32 {
        var entries: [MixEntry] = []
        if !noSound {
            let catalog = MixSetup.catalog(context)
            entries =
                words.isEmpty
                ? try MixSetup.remembered(context, catalog: catalog)
                : try MixSetup.resolve(words: words, catalog: catalog, command: Self.name)
        }
        let device = PlaybackSession.device(option: device, context: context)
        let database = try LedgerCLI.open(context)
        let calendar = database.calendar
        let startedAt = calendar.now()
        let lock = try FocusLock(paths: context.paths, startedAt: startedAt)
        defer { withExtendedLifetime(lock) {} }
        let signals = SignalWatch()
        signals.block()  // before any thread starts

        let session: PlaybackSession? =
            noSound
            ? nil
            : try PlaybackSession(
                entries: entries, device: device, master: master, fadeSeconds: 0, raw: raw, context: context,
                startSilent: true,
                chime: { rate in
                    FocusCommand.chime(rate: rate, targetLUFS: MixSetup.catalog(context).manifest?.targetLUFS ?? -27)
                })
        if let session { MixSetup.remember(session.entries.map(\.token), context: context) }
        let runner = FocusRunner(
            plan: plan, session: session, database: database, calendar: calendar, startedAt: startedAt,
            context: context, goal: goal, tags: tags, quiet: quiet, onEvent: onEvent)
        return try runner.run(signals: signals)
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

/// The running session: the machine, the clocks, the mixer, the history and the hooks.
final class FocusRunner {
    var machine: FocusMachine
    let session: PlaybackSession?
    let database: HumDatabase
    let calendar: LocalCalendar
    let startedAt: Timestamp
    let context: CommandContext
    let goal: String?
    let tags: [String]
    let quiet: Bool
    let onEvent: [String]?
    let sessionID = UUID().uuidString.lowercased()
    let terminal: Terminal?
    var view: MixerView
    var decoder = KeyDecoder()
    /// The mix to bring back at the next focus round (set when a round's fade starts).
    var resumeMix: MixerView?
    /// The round being recorded: its id and what it is.
    var current: (id: String, kind: FocusPhase, round: Int)?
    var lastHeartbeat = 0.0
    var hooks: [(child: ChildProcess, started: Double)] = []
    var notifyAfterChime = false
    var lastLine = ""

    init(
        plan: FocusPlan, session: PlaybackSession?, database: HumDatabase, calendar: LocalCalendar,
        startedAt: Timestamp,
        context: CommandContext, goal: String?, tags: [String], quiet: Bool, onEvent: [String]?
    ) {
        machine = FocusMachine(plan: plan)
        self.session = session
        self.database = database
        self.calendar = calendar
        self.startedAt = startedAt
        self.context = context
        self.goal = goal
        self.tags = tags
        self.quiet = quiet
        self.onEvent = onEvent
        terminal = context.stdoutIsTerminal && context.stdinIsTerminal ? Terminal() : nil
        view = MixerView(
            tracks: (session?.entries ?? []).map { .init(name: $0.displayName, volume: $0.token.volume) },
            master: Double(session?.controls.masterVolume ?? 100))
    }

    /// Both clocks, read back to back: boot time counts a suspend, monotonic time does not.
    static func reading() -> MonotonicInstant {
        var boot = timespec()
        var mono = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        func ns(_ t: timespec) -> UInt64 { UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec) }
        return MonotonicInstant(boottime: ns(boot), monotonic: ns(mono))
    }

    static func seconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    func run(signals: SignalWatch) throws -> Int32 {
        terminal?.enterRawMode()
        defer {
            terminal?.endStatusLine()
            terminal?.restore()
        }
        try handle(.start)
        var stopping = false
        while !machine.isFinished {
            let wait = min(FocusTime.seconds(machine.nextWakeup ?? .seconds(1)), terminal == nil ? 1 : 0.1)
            var inputs: [FocusInput] = []
            if let terminal {
                for key in terminal.keys(waiting: Int32(wait * 1000), decoder: &decoder) {
                    if let input = input(for: key) { inputs.append(input) }
                }
            } else {
                usleep(UInt32(max(1000, wait * 1_000_000)))
            }
            if signals.pending() != nil {
                if stopping {
                    session?.engine.abort()
                    break
                }
                stopping = true
                inputs.append(.stop)
            }
            if inputs.isEmpty { inputs = [.tick] }
            for input in inputs { try handle(input) }
            heartbeat()
            reapHooks()
            draw()
        }
        // The machine ended the session; let the fade and a ringing chime finish, within reason.
        if let session {
            let deadline = FocusRunner.seconds() + 15
            while session.engine.state != .finished, FocusRunner.seconds() < deadline {
                if signals.pending() != nil { session.engine.abort() }
                usleep(20_000)
            }
            session.engine.wait(timeout: 2)
        }
        for hook in hooks {
            hook.child.finish(within: max(0, 10 - (FocusRunner.seconds() - hook.started)), grace: 2)
        }
        return ExitCode.success
    }

    /// What a key means: mixer keys change the mix (and tell the machine), the others drive the timer.
    func input(for key: Key) -> FocusInput? {
        switch key {
        case .character(" "): return .togglePause
        case .character("s"), .character("S"): return .skip
        case .character("e"), .character("E"): return .extend(by: machine.plan.extendStep)
        case .character("q"), .character("Q"), .interrupt: return .stop
        default:
            guard let session, session.apply(view.handle(key)) else { return nil }
            return .userChangedMix
        }
    }

    func handle(_ input: FocusInput) throws {
        let effects = machine.handle(input, at: FocusRunner.reading())
        for effect in effects { try carryOut(effect) }
        try startRoundIfNew()
    }

    func frames(_ d: Duration) -> Int {
        guard let session else { return 0 }
        return Int(FocusTime.seconds(d) * Double(session.sink.sampleRate))
    }

    /// "At once" still means a 20 ms ramp: a jump of the whole mix would click.
    func quick(_ d: Duration) -> Int { max(frames(d), (session?.sink.sampleRate ?? 48000) / 50) }

    func carryOut(_ effect: FocusEffect) throws {
        let controls = session?.controls
        switch effect {
        case .fadeIn(let d):
            if let saved = resumeMix, let controls {
                for (i, track) in saved.tracks.enumerated() {
                    controls.setVolume(Float(track.volume), track: i)
                    controls.setMuted(track.muted, track: i)
                }
                controls.masterVolume = Float(saved.master)
                view.tracks = saved.tracks
                view.master = saved.master
            }
            controls?.fadeIn(frames: quick(d))
        case .saveResumeMix:
            resumeMix = view
        case .startFadeOut(let d):
            controls?.fadeOut(frames: quick(d))
        case .reverseFadeOut(let d):
            controls?.fadeIn(frames: quick(d))
        case .keepUserMix(let audible):
            resumeMix = nil
            if audible { controls?.fadeIn(frames: quick(.zero)) }
        case .pauseFadeOut(let d):
            controls?.fadeOut(frames: quick(d))
        case .resumeFadeIn(let d, let level):
            controls?.fade(toLevel: level, frames: quick(d))
        case .chime:
            controls?.ringChime()
            if terminal != nil, !quiet { terminal?.write("\u{7}") }
            notifyAfterChime = !quiet
        case .phaseChanged(let notice):
            announce(notice)
        case .recordRound(let record):
            try finish(record)
        case .endSession(let d):
            controls?.stop(fadeFrames: frames(d))
        }
    }

    // MARK: the history

    /// The mix for the history: each sound as it was named on the command line, at its volume as a fraction of
    /// 100 (0 when muted).
    var currentMix: [MixItem] {
        zip(session?.entries ?? [], view.tracks).map { entry, track in
            MixItem(sound: entry.token.name, volume: track.muted ? 0 : track.volume / 100)
        }
    }

    func wall(_ offset: Duration) -> Timestamp {
        calendar.stamp(startedAt.epochSeconds + Int64(FocusTime.seconds(offset).rounded()))
    }

    static func kind(_ phase: FocusPhase) -> RoundKind {
        switch phase {
        case .focus: .focus
        case .shortBreak: .shortBreak
        case .longBreak: .longBreak
        }
    }

    /// Records a phase that has just begun, with its start and deadline, so a killed process leaves a record.
    func startRoundIfNew() throws {
        guard let phase = machine.currentPhase else { return }
        if let current, current.kind == phase.kind, current.round == phase.round { return }
        let id = UUID().uuidString.lowercased()
        let start = wall(machine.phaseStart ?? .zero)
        let planned = Int64(FocusTime.seconds(machine.countdown.planned).rounded())
        try database.startRound(
            RoundStart(
                id: id, kind: FocusRunner.kind(phase.kind), start: start, plannedSeconds: planned,
                deadline: machine.deadline.map(wall), mix: phase.kind == .focus ? currentMix : [],
                goal: goal, tags: tags))
        current = (id, phase.kind, phase.round)
        lastHeartbeat = FocusRunner.seconds()
    }

    func finish(_ record: FocusRoundRecord) throws {
        guard let current, current.kind == record.phase, current.round == record.round else { return }
        let status: RoundStatus =
            switch record.status {
            case .completed: .completed
            case .interrupted: .interrupted
            case .skipped: .skipped
            }
        let outcome = try database.finishRound(
            id: current.id, status: status,
            activeSeconds: Int64(FocusTime.seconds(record.active).rounded()),
            pausedSeconds: Int64(FocusTime.seconds(record.paused).rounded()),
            end: wall(record.end))
        self.current = nil
        // On a terminal only: a script reading stdout gets exactly one line per phase change.
        if terminal != nil, outcome.round.earnedSeconds > 0 {
            say("earned \(DurationText.format(seconds: outcome.round.earnedSeconds)) of leisure time (see 'hum bank')")
        }
    }

    /// Every few seconds, the running round's active and paused time, so a dead process is reconciled with its
    /// real active time.
    func heartbeat() {
        guard let current, let progress = machine.phaseProgress, FocusRunner.seconds() - lastHeartbeat >= 5 else {
            return
        }
        lastHeartbeat = FocusRunner.seconds()
        _ = try? database.heartbeatRound(
            id: current.id, activeSeconds: Int64(FocusTime.seconds(progress.active)),
            pausedSeconds: Int64(FocusTime.seconds(progress.paused)),
            mix: current.kind == .focus ? currentMix : nil)
    }

    // MARK: telling people and scripts

    func clockText() -> String {
        let now = calendar.now()
        let s = Int(now.localSecondOfDay)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(s / 3600)):\(two(s % 3600 / 60)):\(two(s % 60))"
    }

    func say(_ line: String) {
        terminal?.endStatusLine()
        context.stdout.write(line + "\n")
        lastLine = ""
    }

    func announce(_ notice: FocusNotice) {
        say(FocusOutput.line(time: clockText(), notice: notice))
        if let onEvent {
            let environment = FocusOutput.environment(for: notice, sessionID: sessionID).map { "\($0.key)=\($0.value)" }
            do {
                // In a process group of its own (never the terminal's): stopped as a whole at its time limit.
                hooks.append(
                    (try ChildProcess(argv: onEvent, options: .init(environment: environment)), FocusRunner.seconds()))
            } catch {
                context.warn("--on-event: \(error.message)")
            }
        }
        if notifyAfterChime {
            notifyAfterChime = false
            notify(notice)
        }
    }

    /// A desktop notification through notify-send, when it exists.
    func notify(_ notice: FocusNotice) {
        guard ChildProcess.resolve("notify-send", path: context.environment["PATH"]) != nil else { return }
        let text = notice.phase.map { "\($0.rawValue) \(notice.round)/\(notice.rounds)" } ?? "session complete"
        if let child = try? ChildProcess(argv: ["notify-send", "--app-name=hum", "hum", text]) {
            hooks.append((child, FocusRunner.seconds()))
        }
    }

    /// Reaps finished hooks (the command and what it started in its group) and stops the group of those past
    /// their 10 seconds: SIGTERM, then SIGKILL from 12 s.
    func reapHooks() {
        let now = FocusRunner.seconds()
        hooks.removeAll { hook in
            if hook.child.finished() { return true }
            if now - hook.started > 10 { hook.child.signalGroup(now - hook.started > 12 ? SIGKILL : SIGTERM) }
            return false
        }
    }

    func draw() {
        guard let terminal else { return }
        let c = machine.countdown
        let phase = c.phase?.rawValue ?? "done"
        var state = ""
        if case .paused = c.state { state = " (paused)" }
        if case .waiting = c.state { state = " (press space to start)" }
        let width = 20
        let filled = Int((c.progress * Double(width)).rounded())
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        var line = "\(phase) \(c.roundText) \(c.clockText) \(bar)\(state)"
        if session != nil {
            line +=
                "  "
                + view.line(elapsedSeconds: 0, color: context.useColor).replacingOccurrences(of: " │ 00:00", with: "")
        }
        if line != lastLine {
            terminal.statusLine(line)
            lastLine = line
        }
    }
}
