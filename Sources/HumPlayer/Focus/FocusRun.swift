import HumAudio
import HumCore
import HumStore
import HumSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// Focus rounds carried by a player: HumCore's `FocusMachine` decides; this feeds it the clocks and the user's
/// requests, and carries out its effects on the player's audio and mix, the history, the hooks and the lines
/// scripts read. It wakes only at the machine's next deadline (a timer), at a heartbeat while a round runs, and
/// when a hook ends.
final class FocusRun {
    unowned let player: Player
    var machine: FocusMachine
    let request: FocusRequest
    let database: HumDatabase
    let calendar: LocalCalendar
    let startedAt: Timestamp
    /// One round-runner per user: held while the rounds run, let go when they end.
    private var lock: FocusLock?
    /// The contract these rounds work toward, if any (docs/contracts.md); written last, once nothing else can fail.
    private(set) var contract: ContractRun?
    /// Whether the player exists for these rounds (`hum focus`): then it stops with them.
    var stopsPlayer = false
    private var deadlineTimer: (any LoopTimer)!
    private var heartbeatTimer: (any LoopTimer)!
    /// The mix the next focus round brings back (saved when a round's fade starts).
    private var resumeMix: Mix?
    /// The round being recorded: its id and what it is.
    private(set) var current: (id: String, kind: FocusPhase, round: Int)?
    /// The session's presence during the rounds (FocusRun+Away.swift).
    var away = AwayTracking()
    private var hooks: [Hook] = []
    private var notifyAfterChime = false
    private var ended = false

    /// A command run at a phase change, stopped after 10 seconds.
    final class Hook {
        let child: ChildProcess
        var timer: (any LoopTimer)?
        var signalled = false
        init(child: ChildProcess) { self.child = child }
    }

    init(player: Player, plan: FocusPlan, request: FocusRequest) throws {
        self.player = player
        self.request = request
        machine = FocusMachine(plan: plan)
        database = try LedgerAccess.open(player.environment)
        calendar = database.calendar
        startedAt = calendar.now()
        lock = try FocusLock(paths: player.environment.paths, startedAt: startedAt)
        deadlineTimer = try player.loop.makeTimer { [unowned self] in try? self.input(.tick) }
        heartbeatTimer = try player.loop.makeTimer { [unowned self] in self.heartbeat() }
        contract = try request.contract.map {
            try ContractRun(start: $0, plan: plan, database: database, searchPath: player.environment.variables["PATH"])
        }
        away.policy =
            (try? database.settings(environment: player.environment.variables)).flatMap {
                AwayPolicy(rawValue: $0.text(SettingCatalog.focusWhenAway))
            } ?? .pause
    }

    func begin() throws {
        try input(.start)
        heartbeatTimer.repeating(every: 5)
    }

    var isPaused: Bool {
        if case .paused = machine.state { return true }
        return false
    }

    var isWaiting: Bool {
        if case .waiting = machine.state { return true }
        return false
    }

    /// Hands an input to the machine and carries out what it says, then sets the timer for its next wake-up.
    func input(_ input: FocusInput) throws {
        guard !ended else { return }
        let effects = machine.handle(input, at: player.loop.instant)
        var changes: Set<ControlEvent.Subsystem> = []
        for effect in effects { try carryOut(effect, &changes) }
        try startRoundIfNew()
        if let next = machine.nextWakeup {
            deadlineTimer.arm(after: FocusTime.seconds(next))
        } else {
            deadlineTimer.disarm()
        }
        if input != .tick || !effects.isEmpty { changes.insert(.focus) }
        if !changes.isEmpty, !ended { player.changed(Array(changes)) }
    }

    func extend(seconds: Int64?) throws {
        // A client's request was checked where it entered (ControlRequest); keys and the bus send nil.
        let range = PlayerCommand.extendSeconds
        let step =
            seconds.map { Duration.seconds(min(max($0, range.lowerBound), range.upperBound)) }
            ?? machine.plan.extendStep
        try input(.extend(by: step))
    }

    /// The rounds as of now. The machine's own clock moves only when it is told the time (at its wake-ups and
    /// heartbeats), so the time left in a running phase is read from its deadline and the clock now.
    var status: PlayerStatus.Focus {
        let c = machine.countdown
        var remaining = c.remainingSeconds
        var deadline: Timestamp? = nil
        if case .running = machine.state {
            if let end = machine.deadline, let origin = machine.sessionStart {
                let now = player.loop.instant
                let elapsed = now.boottime >= origin.boottime ? Int64(clamping: now.boottime - origin.boottime) : 0
                let left = max(0, FocusTime.nanoseconds(end) - elapsed)
                remaining = min(remaining, (left + 999_999_999) / 1_000_000_000)
            }
            deadline = calendar.stamp(calendar.clock.nowEpochSeconds() + remaining)
        }
        return PlayerStatus.Focus(
            phase: c.phase ?? .focus, round: c.round, rounds: c.rounds, remainingSeconds: remaining,
            plannedSeconds: Int64(FocusTime.seconds(c.planned).rounded()), deadline: deadline, paused: isPaused,
            waiting: isWaiting, goal: request.goal, tags: request.tags,
            fadeSeconds: Int64(request.fadeSeconds.isFinite ? request.fadeSeconds.rounded() : 0))
    }

    // MARK: Effects

    private var audio: (any PlayerAudio)? { player.audio }

    private func frames(_ d: Duration) -> Int {
        guard let audio else { return 0 }
        return Int(FocusTime.seconds(d) * Double(audio.sampleRate))
    }

    /// "At once" still means a 20 ms ramp: a jump of the whole mix would click.
    private func quick(_ d: Duration) -> Int { max(frames(d), (audio?.sampleRate ?? 48000) / 50) }

    private func carryOut(_ effect: FocusEffect, _ changes: inout Set<ControlEvent.Subsystem>) throws {
        let controls = audio
        switch effect {
        case .fadeIn(let d):
            if let saved = resumeMix {
                player.restore(saved)
                changes.insert(.mix)
            }
            controls?.fadeIn(frames: quick(d))
        case .saveResumeMix:
            resumeMix = player.mix
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
            if player.screen != nil, request.bell { player.screen?.bell() }
            notifyAfterChime = request.notify
        case .phaseChanged(let notice):
            announce(notice)
        case .recordRound(let record):
            try finish(record)
        case .endSession(let d):
            end(fadeOut: FocusTime.seconds(d))
        }
    }

    private func end(fadeOut: Double) {
        guard !ended else { return }
        ended = true
        lock = nil
        contract?.roundsEnded(completed: machine.state == .finished(.completed))
        if unrecorded.isEmpty { sayContract(contract?.roundsWritten()) }
        deadlineTimer.disarm()
        if unrecorded.isEmpty { heartbeatTimer.disarm() }
        if abandoning { return }  // the player is stopping: it needs no word back
        if !stopsPlayer, let audio, !player.isPaused {
            // The rounds are over; the mix plays on.
            if let saved = resumeMix { player.restore(saved) }
            audio.fadeIn(frames: quick(.seconds(1)))
        }
        player.focusEnded(stopPlayer: stopsPlayer, fadeOut: fadeOut)
    }

    private var abandoning = false

    /// The player is going away while rounds run: the round under way is recorded as interrupted, now.
    func abandon() {
        guard !ended else { return }
        abandoning = true
        do {
            try input(.stop)
        } catch let error as any UserFacingError {
            player.environment.warn(error.message)
        } catch {}
        ended = true
        lock = nil
        deadlineTimer.disarm()
        heartbeatTimer.disarm()
    }

    // MARK: The history

    private func wall(_ offset: Duration) -> Timestamp {
        calendar.stamp(startedAt.epochSeconds + Int64(FocusTime.seconds(offset).rounded()))
    }

    private static func kind(_ phase: FocusPhase) -> RoundKind {
        switch phase {
        case .focus: .focus
        case .shortBreak: .shortBreak
        case .longBreak: .longBreak
        }
    }

    /// The mix for the history: each sound at its volume as a fraction of 100 (0 when muted).
    private var currentMix: [MixItem] {
        player.mix.tracks.map { MixItem(sound: $0.sound, volume: $0.audibleVolume / 100) }
    }

    /// Records a phase that has just begun, with its start and deadline, so a killed process leaves a record.
    private func startRoundIfNew() throws {
        guard let phase = machine.currentPhase else { return }
        if let current, current.kind == phase.kind, current.round == phase.round { return }
        let id = UUID().uuidString.lowercased()
        let start = wall(machine.phaseStart ?? .zero)
        let planned = Int64(FocusTime.seconds(machine.countdown.planned).rounded())
        try database.startRound(
            RoundStart(
                id: id, kind: FocusRun.kind(phase.kind), start: start, plannedSeconds: planned,
                deadline: machine.deadline.map(wall), mix: phase.kind == .focus ? currentMix : [],
                goal: request.goal, tags: request.tags, contractID: contract?.id))
        current = (id, phase.kind, phase.round)
        contract?.phaseStarted(phase, deadline: machine.deadline.map(wall))
    }

    private func finish(_ record: FocusRoundRecord) throws {
        guard let current, current.kind == record.phase, current.round == record.round else { return }
        let status: RoundStatus =
            switch record.status {
            case .completed: .completed
            case .interrupted: .interrupted
            case .skipped: .skipped
            }
        self.current = nil
        // Away time goes on the record first: the round's row takes it while it runs.
        _ = try? database.addAway(roundID: current.id, seconds: takeRoundAway())
        unrecorded.append(
            Ending(
                id: current.id, status: status, active: Int64(FocusTime.seconds(record.active).rounded()),
                paused: Int64(FocusTime.seconds(record.paused).rounded()),
                planned: Int64(FocusTime.seconds(record.planned).rounded()), end: wall(record.end),
                focus: current.kind == .focus))
        recordEndings()
    }

    /// A round's end, kept until it is written: a full disk must not turn a completed round into an interrupted
    /// one with nothing active, so hum keeps trying (at every heartbeat, and once more as the player ends).
    struct Ending {
        var id: String
        var status: RoundStatus
        var active: Int64
        var paused: Int64
        var planned: Int64
        var end: Timestamp
        var focus: Bool
    }

    /// Achievements the rounds written earned, until a notification announces them (docs/rules.md, "Achievements").
    private(set) var earned: [Achievement] = []

    private var unrecorded: [Ending] = []
    private var reportedTrouble = false

    /// Writes the round ends still waiting. Returns whether none is left.
    @discardableResult
    func recordEndings() -> Bool {
        while let ending = unrecorded.first {
            let outcome: RoundOutcome
            do {
                outcome = try database.finishRound(
                    id: ending.id, status: ending.status, activeSeconds: ending.active, pausedSeconds: ending.paused,
                    plannedSeconds: ending.planned, end: ending.end)
            } catch let error as any UserFacingError {
                if !reportedTrouble {
                    reportedTrouble = true
                    player.environment.warn("cannot record the round yet (\(error.message)); hum keeps trying")
                }
                heartbeatTimer.repeating(every: 5)
                return false
            } catch {
                return false
            }
            unrecorded.removeFirst()
            if ending.focus { achievements(of: ending.id) }
            if reportedTrouble {
                reportedTrouble = false
                player.environment.warn("the round is recorded now")
            }
            // On a terminal only: a script reading stdout gets exactly one line per phase change.
            if player.screen != nil, outcome.round.earnedSeconds > 0 {
                player.say(
                    "earned \(DurationText.format(seconds: outcome.round.earnedSeconds)) of leisure time (see "
                        + "'hum bank')"
                )
            }
        }
        if ended { sayContract(contract?.roundsWritten()) }
        return true
    }

    /// The achievements round `id` earned, now that it is written: the history with it against the history without
    /// it, so nothing is stored and a restart computes the same. Said on a terminal, and kept for the notification.
    private func achievements(of id: String) {
        let goal = (try? database.settings(environment: player.environment.variables))?.dailyGoalSeconds ?? 0
        guard let history = try? database.achievementHistory(goalSeconds: goal) else { return }
        let new = Achievements.earned(by: id, in: history)
        for achievement in new where player.screen != nil {
            player.say("achievement: \(achievement.title) (\(achievement.rule))")
        }
        earned += new
    }

    /// A line about the contract: on the terminal's screen, or on stderr (stdout keeps one line per phase change).
    private func sayContract(_ line: String?) {
        guard let line else { return }
        if player.screen != nil { player.say(line) } else { player.environment.stderr.write("hum: \(line)\n") }
    }

    /// The player's last chance to write what is waiting; says what could not be.
    func flushEndings() {
        guard !unrecorded.isEmpty, !recordEndings() else { return }
        player.environment.warn(
            "\(unrecorded.count) round\(unrecorded.count == 1 ? "" : "s") could not be recorded; the next hum command "
                + "records \(unrecorded.count == 1 ? "it" : "them") as interrupted"
        )
    }

    /// While a round runs, its active and paused time every few seconds, so a dead process is reconciled with its
    /// real active time.
    private func heartbeat() {
        if !unrecorded.isEmpty, recordEndings(), ended {
            heartbeatTimer.disarm()
            player.leaveWhenDone()
        }
        try? input(.tick)  // the machine's clock moves only when it is told the time
        guard let current, let progress = machine.phaseProgress else { return }
        _ = try? database.heartbeatRound(
            id: current.id, activeSeconds: Int64(FocusTime.seconds(progress.active)),
            pausedSeconds: Int64(FocusTime.seconds(progress.paused)),
            plannedSeconds: Int64(FocusTime.seconds(machine.countdown.planned).rounded()),
            mix: current.kind == .focus ? currentMix : nil)
    }

    // MARK: Telling people and scripts

    private func clockText() -> String {
        let s = Int(calendar.now().localSecondOfDay)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(two(s / 3600)):\(two(s % 3600 / 60)):\(two(s % 60))"
    }

    private func announce(_ notice: FocusNotice) {
        player.say(FocusOutput.line(time: clockText(), notice: notice))
        if notice.event == .wait, player.screen == nil {
            // No keys here: say how the next phase is started.
            player.environment.warn(
                "\(notice.phaseName) \(notice.round)/\(notice.rounds) waits to start: run 'hum ctl resume' (or 'hum "
                    + "ctl skip')"
            )
        }
        if let onEvent = request.onEvent {
            let environment = FocusOutput.environment(for: notice, sessionID: player.sessionID).map {
                "\($0.key)=\($0.value)"
            }
            do {
                // In a process group of its own (never the terminal's): stopped as a whole at its time limit.
                start(try ChildProcess(argv: onEvent, options: .init(environment: environment)))
            } catch let error as any UserFacingError {
                player.environment.warn("--on-event: \(error.message)")
            } catch {
                player.environment.warn("--on-event: cannot run \(onEvent[0])")
            }
        }
        if notifyAfterChime {
            notifyAfterChime = false
            notify(notice)
        }
    }

    /// The session's desktop notification, replaced in place at each phase that ran out (Player+Desktop.swift).
    private func notify(_ notice: FocusNotice) {
        guard var notification = FocusNotification(after: notice, plan: machine.plan, goal: request.goal) else {
            return
        }
        // A new achievement is announced once, in the notification that follows the round that earned it.
        if !earned.isEmpty {
            notification.announce(earned)
            earned = []
        }
        player.notifyDesktop(notification)
    }

    /// Watches a hook: reaped when SIGCHLD says it ended, stopped when its 10 seconds are up.
    private func start(_ child: ChildProcess) {
        let hook = Hook(child: child)
        hook.timer = try? player.loop.makeTimer { [unowned self, unowned hook] in
            if hook.signalled {
                hook.child.signalGroup(SIGKILL)
            } else {
                hook.signalled = true
                hook.child.signalGroup(SIGTERM)
                hook.timer?.arm(after: 2)
            }
            self.reapHooks()
        }
        hook.timer?.arm(after: 10)
        hooks.append(hook)
    }

    /// Reaps the hooks that ended (on SIGCHLD).
    func reapHooks() {
        hooks.removeAll { $0.child.finished() }
    }

    var hasHooks: Bool { !hooks.isEmpty }

    /// Stops the hooks still running (the player's last moment).
    func stopHooks() {
        for hook in hooks where !hook.child.finished() { hook.child.signalGroup(SIGKILL) }
        reapHooks()
    }
}
