import Foundation
import HumAudio
import HumControl
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The one running session of a hum process: a mix playing (or the timer alone), maybe carrying focus rounds,
/// steered by its own terminal, by `hum ctl`, by other hums and by the desktop. It owns the mix (a `Mix` value
/// the audio is set from and every view renders), runs every request through one interpreter (`handle`), and
/// lives on one event loop that sleeps until a key, a client, a signal, a deadline or the audio engine has
/// something to say.
final class Player {
    struct Options {
        var device: String
        var raw: Bool
        /// Fade in at the start and out at a stop (`--fade`).
        var fadeSeconds: Double
        /// A timed play (`--for`).
        var endAfter: Double?
        /// The timer alone: no audio at all.
        var silent: Bool
        /// Start silent: focus rounds fade the mix in themselves.
        var startSilent = false
    }

    let context: CommandContext
    let loop = EventLoop()
    let sessionID = UUID().uuidString.lowercased()
    let options: Options
    private(set) var mix: Mix
    private(set) var audio: PlaybackSession?
    var focus: FocusRun?
    private(set) var state: PlayerStatus.State = .playing
    private(set) var note: String?
    private var server: ControlServer?
    var screen: LineScreen?
    private let started = monotonicSeconds()
    private var stopRequests = 0
    private var engineWatch: EventLoop.Notifier?
    private var endTimer: EventLoop.Timer?
    private var reportedLost = false
    /// Whether the mix changed by request since it started (what to remember for the next bare `hum`).
    private var remembered: [MixToken]

    /// Opens the audio (unless silent) and the control socket. The mix's sounds must be resolved (`entries`).
    init(context: CommandContext, mix: Mix, entries: [MixEntry], options: Options) throws {
        self.context = context
        self.options = options
        self.mix = mix
        remembered = mix.tokens
        // Signals become events of the loop; they are blocked here, before the audio thread starts, so every
        // thread inherits the mask and none is interrupted by them.
        try loop.signals([SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGWINCH]) { [unowned self] signal in
            self.signalled(signal)
        }
        let watch = try loop.notifier { [unowned self] in self.engineChanged() }
        engineWatch = watch
        if !options.silent, !entries.isEmpty {
            let audio = try PlaybackSession(
                entries: entries, device: options.device, master: mix.master,
                fadeSeconds: options.endAfter.map { min(options.fadeSeconds, $0 / 2) } ?? options.fadeSeconds,
                raw: options.raw, context: context, startSilent: options.startSilent,
                chime: { rate in
                    FocusCommand.chime(
                        rate: rate,
                        targetLUFS: MixSetup.catalog(context).manifest?.targetLUFS ?? ReferenceLevel.loudnessLUFS)
                }, endAfter: options.endAfter, onEngineChange: { watch.notify() })
            self.audio = audio
            // The sounds that could not be loaded were reported and left out: the mix is what plays.
            let playing = Set(audio.entries.map(\.token.name))
            self.mix.tracks.removeAll { !playing.contains($0.sound) }
        }
        if let endAfter = options.endAfter {
            endTimer = try loop.timer { [unowned self] in self.changed([.state]) }
            endTimer?.arm(after: endAfter)
        }
    }

    // MARK: The interpreter

    /// Runs one request, from whoever sent it, and returns the status after it.
    @discardableResult
    func handle(_ command: PlayerCommand) throws -> PlayerStatus {
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
            guard let focus else { throw HumError.usage("no focus rounds are running; nothing to skip") }
            try focus.input(.skip)
        case .extend(let seconds):
            guard let focus else { throw HumError.usage("no focus rounds are running; nothing to extend") }
            try focus.extend(seconds: seconds)
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
        case .add, .remove, .play:
            throw HumError.failure(
                "changing the sounds of a playing mix is not possible yet; stop it and start another")
        case .focus(let request):
            if let running = focus?.status {
                throw HumError.failure(
                    "focus rounds are already running (pid \(getpid()), \(running.phase.rawValue) \(running.round)/\(running.rounds)); end them first with 'hum ctl end-focus' or q in their screen"
                )
            }
            if pendingFocus != nil { throw HumError.failure("focus rounds are about to start (pid \(getpid()))") }
            try startFocus(request, stopsPlayer: false)
        case .endFocus:
            guard let focus else { throw HumError.usage("no focus rounds are running") }
            try focus.input(.stop)
        }
        return status
    }

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
            if finished, !hooksRunning { loop.stop() }
        case SIGWINCH:
            screen?.show(status)
        default:
            stop()
        }
    }

    /// The mix changed by request: the audio follows, the focus machine learns the user took over, views redraw.
    private func mixChanged() {
        audio?.apply(mix)
        remembered = mix.tokens
        try? focus?.input(.userChangedMix)
        changed([.mix])
    }

    var isPaused: Bool { focus.map(\.isPaused) ?? (state == .paused) }

    private func setPaused(_ paused: Bool) throws {
        if let focus {
            try focus.input(paused ? .pause : (focus.isWaiting ? .start : .resume))
            return
        }
        guard state != .stopping, paused != (state == .paused) else { return }
        state = paused ? .paused : .playing
        if let audio {
            let ramp = max(audio.sink.sampleRate / 2, 1)
            if paused { audio.controls.fadeOut(frames: ramp) } else { audio.controls.fadeIn(frames: ramp) }
        }
        changed([.state])
    }

    // MARK: Focus rounds

    /// The rounds that ended, for their hooks still running.
    private var endedFocus: FocusRun?

    /// Rounds asked for before the first period reached the device: they start when it does, so the first
    /// round's audio lasts as long as the round.
    private var pendingFocus: FocusRun?

    /// Starts focus rounds on this player; `stopsPlayer` when the player exists for them (`hum focus`).
    func startFocus(_ request: FocusRequest, stopsPlayer: Bool) throws {
        let run = try FocusRun(player: self, plan: try request.plan(), request: request)
        run.stopsPlayer = stopsPlayer
        if let audio, !audio.engine.hasStarted {
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

    var status: PlayerStatus {
        let elapsed = Int64(monotonicSeconds() - started)
        var left: Int64? = nil
        if let end = options.endAfter { left = max(0, Int64((end - (monotonicSeconds() - started)).rounded(.up))) }
        return PlayerStatus(
            pid: getpid(), session: sessionID, state: state, mix: mix, focus: focus?.status, elapsedSeconds: elapsed,
            endsInSeconds: left, note: note)
    }

    /// Tells every view and subscriber what changed.
    func changed(_ what: [ControlEvent.Subsystem]) {
        let status = status
        server?.broadcast(ControlEvent(what: what, status: status))
        screen?.show(status)
    }

    /// A line for people and scripts reading this player's stdout (one per focus phase change, or a warning).
    func say(_ line: String) {
        screen?.interrupt()
        context.stdout.write(line + "\n")
        screen?.show(status)
    }

    // MARK: Lifecycle

    /// Opens the control socket; another player already running is an error for the caller to act on.
    func listen() throws {
        server = try ControlServer(path: PlayerLink.socketPath(context), loop: loop) { [unowned self] request in
            do {
                return ControlReply(id: request.id, status: try self.handle(request.command))
            } catch let error as any UserFacingError {
                return ControlReply(id: request.id, error: error.message, kind: error.kind)
            } catch {
                return ControlReply(id: request.id, error: "\(error)", kind: .failure)
            }
        }
    }

    /// Fades out and ends the player; a second stop (a second Ctrl-C) ends it at once. Audio that cannot play (the
    /// device went away) is not waited for.
    func stop(fadeSeconds: Double? = nil) {
        stopRequests += 1
        // Rounds under way end now (recorded as interrupted), not when the fade is over.
        focus?.abandon()
        if stopRequests > 1 || audio == nil || audio?.engine.state == .deviceLost {
            audio?.engine.abort()
            finish()
            return
        }
        guard state != .stopping else { return }
        state = .stopping
        if let audio {
            let frames = Int((fadeSeconds ?? options.fadeSeconds) * Double(audio.sink.sampleRate))
            audio.controls.stop(fadeFrames: max(frames, audio.sink.sampleRate / 20))
        }
        changed([.state])
    }

    /// The audio engine said something: it started, finished, lost its device, got it back.
    private func engineChanged() {
        guard let audio else { return }
        if audio.engine.hasStarted, let run = pendingFocus {
            pendingFocus = nil
            focus = run
            do {
                try run.begin()
            } catch let error as any UserFacingError {
                context.warn(error.message)
                stop()
            } catch {
                stop()
            }
            changed([.focus])
        }
        switch audio.engine.state {
        case .finished:
            finish()
        case .deviceLost:
            if state == .stopping {
                audio.engine.abort()
                finish()
                return
            }
            if !reportedLost {
                reportedLost = true
                note = "waiting for the audio device"
                let code = audio.engine.lostErrorCode
                let reason = code == 0 ? "" : " (\(AlsaSink.describeWrite(code)))"
                context.warn(
                    "the audio device \"\(audio.sink.device)\" went away\(reason); the mix is kept and plays again when it returns"
                )
                changed([.note])
            }
        case .playing:
            if reportedLost {
                reportedLost = false
                note = nil
                context.warn("the audio device \"\(audio.sink.device)\" is back")
                changed([.note])
            }
        case .idle:
            break
        }
    }

    private var finished = false
    private var hookDeadline: EventLoop.Timer?

    /// The player is over: remember the mix for the next bare `hum`, close the socket, and leave the loop once
    /// the hooks still running have had their time.
    private func finish() {
        guard !finished else { return }
        finished = true
        if audio != nil { MixSetup.remember(remembered, context: context) }
        focus?.abandon()
        server?.close()
        server = nil
        screen?.close()
        screen = nil
        guard hooksRunning else {
            loop.stop()
            return
        }
        hookDeadline = try? loop.timer { [unowned self] in
            self.focus?.stopHooks()
            self.endedFocus?.stopHooks()
            self.loop.stop()
        }
        hookDeadline?.arm(after: 10)
        if hookDeadline == nil { loop.stop() }
    }

    private var hooksRunning: Bool { focus?.hasHooks == true || endedFocus?.hasHooks == true }

    /// Runs until the player ends. Returns the exit code.
    func run() -> Int32 {
        if audio?.engine.state == .finished { finish() }
        if !finished { loop.run() }
        audio?.engine.wait(timeout: 1)
        return ExitCode.success
    }
}
