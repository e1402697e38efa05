import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the command of a pass or an emergency for at most its time, as the hum that started it: the command leads a
/// process group of its own and gets the terminal; hum is its child subreaper, so nothing the command starts can
/// leave hum's sight while hum lives. The pass lasts while anything of the command lives (a launcher that starts a
/// game and exits does not end it). When the time is up, or hum is asked to stop, the whole tree gets SIGTERM, and
/// SIGKILL `grace` seconds later.
///
/// It is work on the caller's `EventLoop`, the one signal path of the process: the loop's `SignalSource` (SIGCHLD,
/// SIGTERM, SIGHUP, SIGINT) and a timer for the next heartbeat, the deadline or the SIGKILL wake it; nothing is polled.
public final class Supervisor {
    public enum StopReason { case timeUp, asked, settledElsewhere }

    public struct Outcome {
        /// Seconds from the start to the end of the command's tree, or to the first stop signal if that came first.
        public var elapsed: Double
        public var reason: StopReason?
        /// The command's exit code (the shell's convention: 128 + signal).
        public var exitCode: Int32
        /// Processes still there 5 s after SIGKILL (stuck in the kernel), left behind.
        public var leftBehind: Int
    }

    public let child: ChildProcess
    public let start: Double
    private let loop: EventLoop
    private let signals: EventLoop.SignalSource
    private let terminal: Int32?
    private var modes: termios? = nil
    public private(set) var tree: ProcessTree

    /// Starts `argv` (see `ChildProcess`); `start` (monotonic seconds) is the pass's zero. `signals`, a source of
    /// `loop`, must take SIGCHLD, SIGTERM, SIGHUP and SIGINT; opened before the command is started (and before hum
    /// starts any thread), it keeps a stop signal that comes early for `run`.
    public init(
        argv: [String], environment: [String], removing: Set<String>, start: Double, loop: EventLoop,
        signals: EventLoop.SignalSource
    ) throws(ProcessError) {
        self.loop = loop
        self.signals = signals
        // Orphans of the command come to hum, not to init: found, stopped and reaped here.
        try ProcessCall.check("prctl(PR_SET_CHILD_SUBREAPER)") { hum_become_subreaper() }
        terminal = ForegroundTerminal.lendable()
        if let terminal {
            var saved = termios()
            if tcgetattr(terminal, &saved) == 0 { modes = saved }
        }
        self.start = start
        child = try ChildProcess(
            argv: argv,
            options: .init(environment: environment, removing: removing, foreground: terminal))
        tree = ProcessTree(group: child.group, ancestor: getpid())
    }

    /// Processes of hum's that are not the command's (the watchdog): neither counted nor signalled.
    public func spare(_ pid: pid_t) { tree.spared.insert(pid) }

    /// Supervises until the command's tree is gone, running the loop. `heartbeat` is called every `interval` seconds
    /// with the seconds elapsed, and returns false when the pass was settled elsewhere; `onStop` is told why the
    /// command is stopped.
    public func run(
        limit: Double, grace: Double, interval: Double, heartbeat: (Double) -> Bool,
        onStop: (StopReason) -> Void
    ) -> Outcome {
        withoutActuallyEscaping(heartbeat) { heartbeat in
            withoutActuallyEscaping(onStop) { onStop in
                Run(
                    supervisor: self, limit: limit, grace: grace, interval: interval, heartbeat: heartbeat,
                    onStop: onStop
                ).outcome()
            }
        }
    }

    /// One supervision: its state, and `step`, which the loop runs at each signal and when the timer is due.
    private final class Run {
        let supervisor: Supervisor
        let limit: Double
        let grace: Double
        let interval: Double
        let heartbeat: (Double) -> Bool
        let onStop: (StopReason) -> Void
        var stoppedAt: Double? = nil
        var killedAt: Double? = nil
        var reason: StopReason? = nil
        var nextBeat: Double
        var leftBehind = 0
        var end = 0.0
        var taken: [Int32] = []
        var done = false
        var timer: EventLoop.Timer? = nil

        init(
            supervisor: Supervisor, limit: Double, grace: Double, interval: Double,
            heartbeat: @escaping (Double) -> Bool, onStop: @escaping (StopReason) -> Void
        ) {
            self.supervisor = supervisor
            self.limit = limit
            self.grace = grace
            self.interval = interval
            self.heartbeat = heartbeat
            self.onStop = onStop
            nextBeat = interval
        }

        func outcome() -> Outcome {
            let s = supervisor
            do {
                timer = try s.loop.timer { [unowned self] in step() }
            } catch {
                // No timerfd (out of descriptors): the deadline is looked at on every signal and every 50 ms.
                timer = nil
            }
            s.signals.handler = { [unowned self] signal in
                taken.append(signal)
                step()
            }
            step()
            while !done {
                if timer == nil {
                    s.loop.turn(timeoutMilliseconds: 50)
                    step()
                } else {
                    s.loop.run()
                }
            }
            s.signals.handler = nil
            timer = nil
            s.child.reap()
            s.reapAdopted()
            s.giveBackTerminal()
            return Outcome(
                elapsed: min(end, stoppedAt ?? end), reason: reason, exitCode: s.child.exitCode,
                leftBehind: leftBehind)
        }

        private func stop(_ why: StopReason, at now: Double) {
            reason = why
            stoppedAt = now
            onStop(why)
            supervisor.tree.signal(SIGTERM)
        }

        private func finish() {
            done = true
            supervisor.loop.stop()
        }

        /// What the old loop did once a turn: the signals taken, a stop of the command, the zombies, the end of the
        /// tree, the deadline and the heartbeat, the SIGKILL; then the timer is armed for the next moment due.
        func step() {
            guard !done else { return }
            let s = supervisor
            let now = monotonicSeconds() - s.start
            end = now
            let signals = taken
            taken = []
            for signal in signals {
                switch signal {
                case SIGTERM, SIGHUP: if stoppedAt == nil { stop(.asked, at: now) }
                // Ctrl-C reaches the command from the terminal; one sent to hum is passed on: the command decides.
                case SIGINT: s.child.signalGroup(SIGINT)
                default: break  // SIGCHLD: looked at below
                }
            }
            if let stopSignal = s.child.takeStop() { s.suspend(stoppedBy: stopSignal) }
            s.reapAdopted()
            // While the leader runs the tree lives; after, /proc says whether anything of it is left.
            var members: [ProcessTable.Entry]? = nil
            if s.child.hasExited() {
                members = s.tree.members()
                if members!.isEmpty { return finish() }
            }
            if stoppedAt == nil, now >= limit {
                stop(.timeUp, at: now)
            } else if stoppedAt == nil, now >= nextBeat {
                while nextBeat <= now { nextBeat += interval }
                if !heartbeat(now) { stop(.settledElsewhere, at: now) }
            }
            if let stoppedAt, killedAt == nil, now >= stoppedAt + grace {
                killedAt = now
            }
            if let killedAt {
                // Until none is left: a process may fork between a look and the signal.
                let left = members ?? s.tree.members()
                if now >= killedAt + 5 {
                    leftBehind = left.count
                    return finish()
                }
                s.tree.signal(SIGKILL, members: left)
            }
            var due: [Double] = []
            if stoppedAt == nil { due += [limit, nextBeat] }
            if let stoppedAt, killedAt == nil { due.append(stoppedAt + grace) }
            if killedAt != nil { due.append(now + 0.05) }
            // Stragglers need no looking at: hum is their subreaper, so the death of the last one is a SIGCHLD here.
            let wait = (due.min() ?? now + 1) - (monotonicSeconds() - s.start)
            timer?.arm(after: max(0, wait))
        }
    }

    /// Reaps the zombies of processes that were re-parented to hum (never the leader: its pid keeps the group's id
    /// ours until the end).
    fileprivate func reapAdopted() {
        var info = siginfo_t()
        while true {
            info = siginfo_t()
            let r = ProcessCall.tolerate { waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) }
            let pid = info._sifields._sigchld.si_pid
            guard r == 0, pid != 0 else { return }
            if pid == child.pid {
                // The leader is first in line; look for the others in /proc.
                let me = getpid()
                for zombie in ProcessTable.snapshot().entries
                where zombie.parent == me && zombie.isDead && zombie.pid != child.pid {
                    var status: Int32 = 0
                    _ = ProcessCall.tolerate { waitpid(zombie.pid, &status, WNOHANG) }
                }
                return
            }
            var status: Int32 = 0
            _ = ProcessCall.tolerate { waitpid(pid, &status, WNOHANG) }
        }
    }

    /// Ctrl-Z (or SIGTTIN, SIGTTOU, SIGSTOP) stopped the command. With a terminal lent: hum takes it back and stops
    /// itself, so the shell sees the job stopped and gives the prompt back; on `fg` hum lends the terminal again
    /// and wakes the command. The pass's time runs on meanwhile. A SIGTTIN or SIGTTOU while the command already
    /// has the terminal is the moment before the hand-over (older glibc): it is simply woken.
    fileprivate func suspend(stoppedBy signal: Int32) {
        guard let terminal else { return }
        if signal == SIGTTIN || signal == SIGTTOU, tcgetpgrp(terminal) == child.group {
            child.signalGroup(SIGCONT)
            return
        }
        giveBackTerminal()
        // SIGSTOP, not SIGTSTP: hum may have been started with SIGTSTP ignored, and must stop all the same.
        ProcessCall.tolerate { kill(getpid(), SIGSTOP) }
        // Continued: in the foreground (`fg`) the command gets the terminal again; in the background (`bg`) not.
        if tcgetpgrp(terminal) == getpgrp() { ForegroundTerminal.hand(terminal, to: child.group) }
        child.signalGroup(SIGCONT)
    }

    fileprivate func giveBackTerminal() {
        guard let terminal else { return }
        ForegroundTerminal.hand(terminal, to: getpgrp())
        if var modes {
            var block = sigset_t()
            sigemptyset(&block)
            sigaddset(&block, SIGTTOU)
            var old = sigset_t()
            pthread_sigmask(SIG_BLOCK, &block, &old)
            ProcessCall.tolerate { tcsetattr(terminal, TCSADRAIN, &modes) }
            pthread_sigmask(SIG_SETMASK, &old, nil)
        }
    }
}
