import HumAudio
import HumBus
import HumControl
import HumCore
import HumSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// The one running session of a hum process: a mix playing (or the timer alone), maybe carrying focus rounds,
/// steered by its own terminal, by `hum ctl`, by other hums and by the desktop. It owns the mix (a `Mix` value
/// the audio is set from and every view renders), runs every request through one interpreter (`handle`), and
/// lives on one event loop that sleeps until a key, a client, a signal, a deadline or the audio engine has
/// something to say.
public final class Player {
    public struct Options {
        public var device: String
        public var raw: Bool
        /// Fade in at the start and out at a stop (`--fade`).
        public var fadeSeconds: Double
        /// A timed play (`--for`).
        public var endAfter: Double?
        /// The timer alone: no audio at all.
        public var silent: Bool
        /// Start silent: focus rounds fade the mix in themselves.
        public var startSilent = false
        /// Start paused: the mix loaded and the device open, silent until resumed (`hum daemon --paused`).
        public var startPaused = false
        /// Opens the audio: the ALSA session, unless a test gives its own (PlayerAudio.swift).
        var openAudio: PlayerAudioFactory = PlaybackSession.open
        /// Watches the session's presence: logind's, unless a test gives its own (Player+Away.swift).
        var openPresence: (PlayerEnvironment, any EventLoopProtocol) -> any SessionPresence = Player.logindPresence
        /// Watches the synced folder's journals: inotify, unless a test gives its own (Player+Sync.swift).
        var watchJournals: JournalWatchFactory = Player.journalFolderWatch

        public init(
            device: String, raw: Bool, fadeSeconds: Double, endAfter: Double?, silent: Bool, startSilent: Bool = false
        ) {
            self.device = device
            self.raw = raw
            self.fadeSeconds = fadeSeconds
            self.endAfter = endAfter
            self.silent = silent
            self.startSilent = startSilent
        }
    }

    /// The outside world: variables, paths, output, clocks (given by the caller, never reached for).
    public let environment: PlayerEnvironment
    /// The loop the player lives on: its timers, signals, socket and the engine's wake-ups (given by the caller).
    public let loop: any EventLoopProtocol
    let sessionID = UUID().uuidString.lowercased()
    let options: Options
    public internal(set) var mix: Mix  // set by the requests here and in Player+Sounds.swift
    private(set) var audio: (any PlayerAudio)?
    var focus: FocusRun? {
        didSet { nudges?.rounds(running: focus != nil || pendingFocus != nil) }
    }
    /// The session's presence (logind), watched from the first focus rounds on (Player+Away.swift).
    var presence: (any SessionPresence)?
    var presenceProblem: String?
    var presenceProblemSaid = false
    /// What the presence watches, until `--verbose` has said it.
    var presenceWatching: String?
    var verbosePresence = false
    /// `--verbose` was asked for (`describeAudio`): the end says how the audio went too (Player+Engine.swift).
    var verboseAudio = false
    private(set) var state: PlayerStatus.State = .playing
    /// The audio device's trouble, while it lasts ("waiting for the audio device").
    var deviceNote: String?
    private var server: ControlServer?
    /// The terminal's one-line screen, when this process has one.
    public var screen: (any PlayerView)?
    /// Adapters that watch the player (the session bus, a full screen): told of every change after the views, on
    /// the loop's thread.
    var watchers: [(PlayerStatus, [ControlEvent.Subsystem]) -> Void] = []
    /// The desktop's controls (MPRIS, notifications, the sleep inhibitor): Player+Desktop.swift.
    var desktop: DesktopBus?
    /// The focus rounds' desktop notification sent last (with or without a bus to carry it): what tests read.
    var lastNotification: FocusNotification?
    /// Called once, when the mix reaches the device (at once for the timer alone): `--detach` and systemd wait
    /// for it.
    public var onReady: (() -> Void)?
    let started: Double
    private var stopRequests = 0
    private var engineWatch: (any LoopNotifier)?
    var reportedLost = false
    /// The mix as the user last set it (what the next bare `hum` plays), apart from the focus rounds' own fades.
    var remembered: [MixToken]
    var shieldGuard: ShieldGuard?  // Player+Shields.swift
    var shieldNotices: ShieldNotices?  // Player+Shields.swift
    var nudges: Nudges?  // Player+Nudges.swift
    var journalWatch: AnyObject?  // Player+Sync.swift

    /// Opens the audio (unless silent) and the control socket. The mix's sounds must be resolved (`entries`).
    public init(
        environment: PlayerEnvironment, loop: any EventLoopProtocol, mix: Mix, entries: [MixEntry], options: Options
    ) throws {
        self.environment = environment
        self.loop = loop
        started = loop.monotonicSeconds
        self.options = options
        self.mix = mix
        remembered = mix.tokens
        if options.startPaused { state = .paused }
        // Signals become events of the loop; they are blocked here, before the audio thread starts, so every
        // thread inherits the mask and none is interrupted by them.
        try loop.takeSignals([SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGWINCH]) { [unowned self] signal in
            self.signalled(signal)
        }
        let watch = try loop.makeNotifier { [unowned self] in self.engineChanged() }
        engineWatch = watch
        if !options.silent, !entries.isEmpty {
            let audio = try options.openAudio(
                PlayerAudioSetup(
                    entries: entries, device: options.device, master: mix.master,
                    fadeSeconds: options.endAfter.map { min(options.fadeSeconds, $0 / 2) } ?? options.fadeSeconds,
                    raw: options.raw, environment: environment,
                    startSilent: options.startSilent || options.startPaused,
                    chime: { rate in
                        Chime.matched(
                            rate: rate,
                            targetLUFS: MixSetup.catalog(environment).manifest?.targetLUFS
                                ?? ReferenceLevel.loudnessLUFS)
                    }, endAfter: options.endAfter, onEngineChange: { watch.notify() }))
            self.audio = audio
            // The sounds that could not be loaded were reported and left out: the mix is what plays.
            let playing = Set(audio.entries.map { $0.token.name })
            self.mix.tracks.removeAll { !playing.contains($0.sound) }
        }
        startShields()
        startNudges()
        startSyncWatch()
    }

    // MARK: The interpreter

    /// Runs one request, from whoever sent it, and returns the status after it.
    @discardableResult
    public func handle(_ command: PlayerCommand) throws -> PlayerStatus {
        // A player fading out to stop would drop any change: it says so, and clients wait for it to end and start
        // the next player (PlayerLink.connectLive).
        if state == .stopping, ![.status, .subscribe, .stop].contains(command) {
            throw PlayerError.failure(
                "the player is stopping (it was asked to stop), so '\(command.name)' would be lost; once it has "
                    + "stopped, start a new one with 'hum play'")
        }
        switch command {
        case .status, .subscribe:
            break
        case .pause:
            try setPaused(true)
        case .resume:
            try setPaused(false)
        case .toggle:
            try setPaused(!isPaused)
        case .skip:
            guard let focus else { throw PlayerError.usage("no focus rounds are running; nothing to skip") }
            try focus.input(.skip)
        case .extend(let seconds):
            guard let focus else { throw PlayerError.usage("no focus rounds are running; nothing to extend") }
            try focus.extend(seconds: seconds)
        case .restart:
            guard let focus else { throw PlayerError.usage("no focus rounds are running; nothing to restart") }
            try focus.input(.restart)
        case .stop:
            stop()
        case .volume(let sound, let volume):
            try mix.setVolume(volume, of: sound)
            mixChanged()
        case .mute(let sound, let muted):
            try mix.mute(sound, muted)
            mixChanged()
        case .master(let volume):
            try mix.setMaster(volume)
            mixChanged()
        case .volumeBy(let sound, let step):
            // From where it is now, here in the one place that changes it: no two steps race.
            guard let index = mix.index(of: sound) else {
                throw Mix.Problem.noSuchSound(sound, inMix: mix.tracks.map(\.sound))
            }
            try mix.setVolume(Self.stepped(mix.tracks[index].volume, by: step), of: sound)
            mixChanged()
        case .masterBy(let step):
            try mix.setMaster(Self.stepped(mix.master, by: step))
            mixChanged()
        case .add(let sound, let volume):
            try add(sound, volume: volume)
        case .remove(let sound):
            try remove(sound)
        case .play(let next):
            try play(next)
        case .focus(let request):
            if let running = focus?.status {
                throw PlayerError.failure(
                    "focus rounds are already running (pid \(getpid()), \(running.phase.rawValue) "
                        + "\(running.round)/\(running.rounds)); end them first with 'hum ctl end-focus' or q in "
                        + "their screen"
                )
            }
            if pendingFocus != nil { throw PlayerError.failure("focus rounds are about to start (pid \(getpid()))") }
            try startFocus(request, stopsPlayer: false)
        case .endFocus:
            guard let focus else { throw PlayerError.usage("no focus rounds are running") }
            try focus.input(.stop)
        case .shields:
            nudges?.reread()  // `hum config set nudge.every` tells the running player as a shield change does
            try handleShields(command)
        case .lift, .endLift: try handleShields(command)
        }
        return status
    }

    /// A volume moved by a step, kept within 0–100.
    static func stepped(_ volume: Double, by step: Double) -> Double {
        let moved = min(Volume.range.upperBound, max(Volume.range.lowerBound, volume + step))
        return moved == 0 ? 0 : moved  // never -0
    }

    // MARK: Changing the sounds (the requests themselves: Player+Sounds.swift)

    /// Sounds loading on a thread of their own, for a request already answered: their place in the mix is taken
    /// at once (the status shows them, with a note), and they play once loaded.
    enum Loading {
        /// A sound added; it fades in when loaded.
        case add(SoundLoad, sound: String)
        /// A whole new mix; it crossfades in when every new sound is loaded.
        case replace(SoundLoad, mix: Mix, entries: [MixEntry])
    }

    var loading: [Loading] = []
    var loadsDone: (any LoopNotifier)?

    /// Brings back a mix saved earlier (the focus rounds' resume mix), with the same sounds in the same order.
    func restore(_ saved: Mix) {
        guard saved.tracks.map(\.sound) == mix.tracks.map(\.sound) else { return }
        mix = saved
        audio?.apply(mix)
    }

    /// A signal, as an event: Ctrl-C, SIGTERM and a hang-up stop (a second one at once); SIGCHLD reaps hooks;
    /// SIGWINCH redraws.
    private func signalled(_ signal: Int32) {
        switch signal {
        case SIGCHLD:
            focus?.reapHooks()
            endedFocus?.reapHooks()
            leaveWhenDone()
        case SIGWINCH:
            screen?.show(status)
        default:
            stop()
        }
    }

    /// The mix changed by request: the audio follows, the focus machine learns the user took over, views redraw.
    func mixChanged() {
        audio?.apply(mix)
        remembered = mix.tokens
        try? focus?.input(.userChangedMix)
        changed([.mix])
    }

    /// Whether focus rounds run on this player.
    public var hasFocus: Bool { focus != nil }

    var isPaused: Bool { focus.map(\.isPaused) ?? (state == .paused) }

    private func setPaused(_ paused: Bool) throws {
        if let focus {
            try focus.input(paused ? .pause : (focus.isWaiting ? .start : .resume))
            return
        }
        guard state != .stopping, paused != (state == .paused) else { return }
        state = paused ? .paused : .playing
        if let audio {
            let ramp = max(audio.sampleRate / 2, 1)
            if paused { audio.fadeOut(frames: ramp) } else { audio.fadeIn(frames: ramp) }
        }
        changed([.state])
    }

    // MARK: Focus rounds

    /// The rounds that ended, for their hooks still running.
    private var endedFocus: FocusRun?

    /// Rounds asked for before the first period reached the device: they start when it does, so the first
    /// round's audio lasts as long as the round.
    var pendingFocus: FocusRun? {
        didSet { nudges?.rounds(running: focus != nil || pendingFocus != nil) }
    }

    /// Starts focus rounds on this player; `stopsPlayer` when the player exists for them (`hum focus`).
    public func startFocus(_ request: FocusRequest, stopsPlayer: Bool) throws {
        let run = try FocusRun(player: self, plan: try request.plan(), request: request)
        run.stopsPlayer = stopsPlayer
        watchPresence()
        if let audio, !audio.hasStarted {
            pendingFocus = run
            return
        }
        focus = run
        try run.begin()
        changed([.focus])
    }

    /// Called by the focus run when its session ended: the rounds are over; a player started for them stops.
    func focusEnded(stopPlayer: Bool, fadeOut: Double) {
        endedFocus = focus  // its hooks may still run
        focus = nil
        changed([.focus])
        if stopPlayer { stop(fadeSeconds: fadeOut) }
    }

    // MARK: Status and changes

    public var status: PlayerStatus {
        let now = loop.monotonicSeconds
        let elapsed = Int64(now - started)
        var left: Int64? = nil
        if let end = options.endAfter { left = max(0, Int64((end - (now - started)).rounded(.up))) }
        // A focus round paused (from a key, the socket or the bus) pauses the player: its state says so, for status
        // bars that read only the state.
        var status = PlayerStatus(
            pid: getpid(), session: sessionID, state: state == .playing && isPaused ? .paused : state, mix: mix,
            // Rounds a stop ended are over: a stopping player shows none (they were recorded as interrupted).
            focus: state == .stopping ? nil : focus?.status, elapsedSeconds: elapsed,
            endsInSeconds: left, note: note)
        status.subscribers = server?.subscriberCount
        status.shields = shieldGuard?.lines
        status.underruns = audio?.underruns
        return status
    }

    /// Tells every view and subscriber what changed.
    public func changed(_ what: [ControlEvent.Subsystem]) {
        let status = status
        server?.broadcast(ControlEvent(what: what, status: status))
        screen?.show(status)
        for watcher in watchers { watcher(status, what) }
    }

    /// A line for people and scripts reading this player's stdout (one per focus phase change, or a warning).
    func say(_ line: String) {
        screen?.interrupt()
        environment.stdout.write(line + "\n")
        screen?.show(status)
    }

    // MARK: Lifecycle

    /// `--verbose`: how the audio runs, on stderr.
    public func describeAudio() {
        verbosePresence = true
        verboseAudio = true
        sayPresenceProblem()
        guard let audio else {
            environment.stderr.write("hum: audio: none (the timer alone)\n")
            // A silent player still has the desktop (the shields' notifications of `hum daemon --no-sound`).
            describeDesktop()
            return
        }
        for line in audio.description { environment.stderr.write("hum: audio: \(line)\n") }
        environment.stderr.write("hum: control socket: \(socketPath.socket)\n")
        describeDesktop()
    }

    /// Opens the control socket; another player already running is an error for the caller to act on. `claim`: the
    /// claim to be the player, when it was taken before the audio opened (`PlayerLink.seat`).
    public func listen(claim: PlayerClaim? = nil) throws {
        server = try ControlServer(path: socketPath, loop: loop, claim: claim) {
            [unowned self] request in
            do {
                return ControlReply(id: request.id, status: try self.handle(request.command))
            } catch let error as any UserFacingError {
                return ControlReply(id: request.id, error: error.message, kind: error.kind)
            } catch {
                return ControlReply(id: request.id, error: "\(error)", kind: .failure)
            }
        }
        attachDesktop()
    }

    /// Fades out and ends the player; a second stop (a second Ctrl-C) ends it at once. Audio that cannot play (the
    /// device went away) is not waited for.
    public func stop(fadeSeconds: Double? = nil) {
        stopRequests += 1
        // Rounds under way end now (recorded as interrupted), not when the fade is over.
        focus?.abandon()
        if stopRequests > 1 || audio == nil || audio?.engineState == .deviceLost {
            audio?.abort()
            finish()
            return
        }
        guard state != .stopping else { return }
        state = .stopping
        if let audio {
            let frames = Int((fadeSeconds ?? options.fadeSeconds) * Double(audio.sampleRate))
            audio.stop(fadeFrames: max(frames, audio.sampleRate / 20))
        }
        changed([.state])
    }

    private var finished = false
    private var lingering: (any LoopTimer)?

    /// The player is over: remember the mix for the next bare `hum`, close the socket and the screen, and leave the
    /// loop once nothing is left to wait for.
    func finish() {
        guard !finished else { return }
        finished = true
        if audio != nil { MixSetup.remember(remembered, environment: environment) }
        focus?.abandon()
        shieldGuard?.stop()
        // No new clients; those connected keep their connection until the loop ends, so the request that ended the
        // player (stop, end-focus) still gets its reply.
        server?.stopListening()
        desktop?.close()
        presence?.close()
        presence = nil
        screen?.close()
        screen = nil
        leaveWhenDone()
    }

    /// Leaves the loop once the hooks still running have ended (10 s at most) and every round's end is written
    /// (retried every 5 s for up to 10 minutes: a full disk must not cost a completed round).
    func leaveWhenDone() {
        guard finished else { return }
        let endingsLeft = [focus, endedFocus].compactMap { $0 }.contains { !$0.recordEndings() }
        guard hooksRunning || endingsLeft else {
            loop.stop()
            return
        }
        guard lingering == nil else { return }
        if endingsLeft { environment.warn("hum stays until the round is recorded (10 minutes at most)") }
        lingering = try? loop.makeTimer { [unowned self] in
            self.focus?.stopHooks()
            self.endedFocus?.stopHooks()
            self.focus?.flushEndings()
            self.endedFocus?.flushEndings()
            self.loop.stop()
        }
        lingering?.arm(after: endingsLeft ? 600 : 10)
        if lingering == nil { loop.stop() }
    }

    /// This user's control socket (its directory from `XDG_RUNTIME_DIR`).
    var socketPath: ControlSocketPath { ControlSocketPath(environment: environment.variables) }

    private var hooksRunning: Bool { focus?.hasHooks == true || endedFocus?.hasHooks == true }

    /// Runs until the player ends: `drive` runs the loop (the caller's, which it gave to `init`) until `stop()`.
    /// Returns the exit code.
    public func run(driving drive: () -> Void) -> Int32 {
        if audio == nil || audio?.hasStarted == true, let ready = onReady {
            onReady = nil
            ready()
        }
        if audio?.engineState == .finished { finish() }
        if !finished { drive() }
        server?.close()
        server = nil
        audio?.waitForEnd(timeout: 1)
        sayUnderruns()
        return ExitCode.success
    }
}

extension Player: PlayerHandle {
    public func send(_ command: PlayerCommand) throws -> PlayerStatus { try handle(command) }
}
