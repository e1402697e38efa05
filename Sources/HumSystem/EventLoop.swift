import CLinux
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why the event loop could not be set up: the call that failed and its errno.
public struct EventLoopError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var code: Int32
    public var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
}

/// One `poll(2)` loop over everything a hum process waits for: descriptors (the terminal, sockets, a bus), timers
/// (timerfd), signals (signalfd) and wake-ups from other threads (eventfd). It sleeps in `poll` until one of them
/// is ready, and runs the handlers on its own thread; nothing wakes it without a reason.
///
/// Not thread-safe: everything but `Notifier.notify()` is called on the loop's thread. Conforms to HumCore's
/// `EventLoopProtocol` (EventLoop+Protocol.swift), so what takes a loop can be driven by a test's instead.
public final class EventLoop {
    public typealias Handler = (_ revents: Int16) -> Void

    /// A registered descriptor; keep it to change its events or remove it. HumCore's, so code written against
    /// `EventLoopProtocol` holds the same tokens.
    public typealias Token = LoopToken

    private struct Source {
        var fd: Int32
        var events: Int16
        var handler: Handler
    }

    private var sources: [Int: Source] = [:]
    private var order: [Int] = []
    private var nextID = 0
    private var stopping = false
    /// What `poll` is given, in `order`: built again only when a source comes or goes, so a turn costs little
    /// however busy the loop is (a flood of connections makes many turns).
    private var polled: [pollfd] = []
    private var polledIDs: [Int] = []
    private var stale = true

    public init() {}

    /// Calls `handler` whenever `fd` is ready for `events` (POLLIN by default; POLLHUP and POLLERR always come).
    @discardableResult
    public func watch(_ fd: Int32, events: Int16 = Int16(POLLIN), handler: @escaping Handler) -> Token {
        let id = nextID
        nextID += 1
        sources[id] = Source(fd: fd, events: events, handler: handler)
        order.append(id)
        stale = true
        return Token(id: id)
    }

    /// Changes what a descriptor is watched for (add POLLOUT while a queue waits to be written).
    public func update(_ token: Token, events: Int16) {
        guard sources[token.id]?.events != events else { return }
        sources[token.id]?.events = events
        if !stale, let i = polledIDs.firstIndex(of: token.id) { polled[i].events = events }
    }

    /// Stops watching; the descriptor is not closed.
    public func remove(_ token: Token) {
        guard sources.removeValue(forKey: token.id) != nil else { return }
        order.removeAll { $0 == token.id }
        stale = true
    }

    /// Makes `run` return after the handlers of this turn.
    public func stop() { stopping = true }

    /// Waits and dispatches until `stop()`. A handler may add and remove sources.
    public func run() {
        stopping = false
        while !stopping, !sources.isEmpty {
            turn(timeoutMilliseconds: -1)
        }
    }

    /// One wait and dispatch; returns the number of ready sources (0 on timeout).
    @discardableResult
    public func turn(timeoutMilliseconds: Int32) -> Int {
        if stale {
            polledIDs = order
            polled = order.map { pollfd(fd: sources[$0]!.fd, events: sources[$0]!.events, revents: 0) }
            stale = false
        }
        let ready = poll(&polled, nfds_t(polled.count), timeoutMilliseconds)
        guard ready > 0 else { return 0 }
        // This turn's results: the handlers may add, change and remove sources, which rebuilds `polled`.
        let ids = polledIDs
        let results = polled
        for i in results.indices where results[i].revents != 0 {
            // A handler earlier in this turn may have removed this source.
            guard let source = sources[ids[i]] else { continue }
            source.handler(results[i].revents)
            if stopping { break }
        }
        return Int(ready)
    }

    // MARK: Timers

    /// A deadline on a clock, as a descriptor of the loop: armed for a delay or disarmed; fires once per arming.
    public final class Timer {
        public let fd: Int32
        private var token: Token?
        private let loop: EventLoop  // kept alive: its handler is what reads this descriptor
        private let clock: Int32

        init(loop: EventLoop, clock: Int32, handler: @escaping () -> Void) throws(EventLoopError) {
            let fd = timerfd_create(clock, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
            guard fd >= 0 else { throw EventLoopError(call: "timerfd_create", code: errno) }
            self.fd = fd
            self.clock = clock
            self.loop = loop
            token = loop.watch(fd) { _ in
                var expirations: UInt64 = 0
                let n = read(fd, &expirations, 8)
                if n == 8 { handler() }
            }
        }

        deinit {
            if let token { loop.remove(token) }
            close(fd)
        }

        /// Fires once, `seconds` from now (at least a microsecond). A new arming replaces the old one.
        public func arm(after seconds: Double) {
            let delay = max(seconds, 1e-6)
            var spec = itimerspec()
            spec.it_value.tv_sec = Int(delay)
            spec.it_value.tv_nsec = Int((delay - Double(Int(delay))) * 1e9)
            if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1000 }
            timerfd_settime(fd, 0, &spec, nil)
        }

        /// Fires every `seconds`, the first time `seconds` from now.
        public func repeating(every seconds: Double) {
            arm(after: seconds)
            var spec = itimerspec()
            timerfd_gettime(fd, &spec)
            spec.it_interval = spec.it_value
            timerfd_settime(fd, 0, &spec, nil)
        }

        /// Fires once, at the next whole multiple of `seconds` on the timer's clock: on CLOCK_REALTIME, the next
        /// turn of the wall clock's second (1) or minute (60), so a clock shown on screen changes when it should.
        public func armAtNextMultiple(of seconds: Int) {
            let step = max(seconds, 1)
            var now = timespec()
            clock_gettime(clock, &now)
            var spec = itimerspec()
            spec.it_value.tv_sec = (now.tv_sec / step + 1) * step
            timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        }

        public func disarm() {
            var spec = itimerspec()
            timerfd_settime(fd, 0, &spec, nil)
        }
    }

    /// A timer on CLOCK_MONOTONIC (stops during suspend) or CLOCK_BOOTTIME (counts it).
    public func timer(clock: Int32 = CLOCK_MONOTONIC, handler: @escaping () -> Void) throws(EventLoopError) -> Timer {
        try Timer(loop: self, clock: clock, handler: handler)
    }

    // MARK: Signals

    /// Takes `signals` out of asynchronous delivery (blocked in this thread, and in every thread started after, so
    /// call it before starting any) and hands each to `handler` on the loop. Returns the signalfd's token.
    @discardableResult
    public func signals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws(EventLoopError) -> Token {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let fd = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw EventLoopError(call: "signalfd", code: errno) }
        return watch(fd) { _ in
            var info = signalfd_siginfo()
            while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                handler(Int32(info.ssi_signo))
            }
        }
    }

    /// Signals taken as events for as long as the source is open, then given back: they are blocked in this thread
    /// (and every thread started after, so open it before starting any) and read from a signalfd on the loop. A
    /// signal that arrives before `handler` is set, or while the loop is not running, waits in the signalfd for the
    /// next turn. `close()` (or the end of the source) stops watching, drops what was not taken, and restores the
    /// signal mask it found. How a command that supervises a child (a pass) takes SIGCHLD, SIGTERM, SIGHUP and
    /// SIGINT.
    public final class SignalSource {
        public let fd: Int32
        /// Called on the loop with each signal taken.
        public var handler: ((Int32) -> Void)?
        private var token: Token?
        private let loop: EventLoop  // kept alive: its handler is what reads this descriptor
        private var previous = sigset_t()

        init(loop: EventLoop, signals: [Int32]) throws(EventLoopError) {
            var set = sigset_t()
            sigemptyset(&set)
            for s in signals { sigaddset(&set, s) }
            var old = sigset_t()
            let code = pthread_sigmask(SIG_BLOCK, &set, &old)
            guard code == 0 else { throw EventLoopError(call: "pthread_sigmask", code: code) }
            let fd = signalfd(-1, &set, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
            guard fd >= 0 else {
                let error = EventLoopError(call: "signalfd", code: errno)
                pthread_sigmask(SIG_SETMASK, &old, nil)
                throw error
            }
            self.fd = fd
            self.loop = loop
            previous = old
            token = loop.watch(fd) { [unowned self] _ in
                var info = signalfd_siginfo()
                while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                    self.handler?(Int32(info.ssi_signo))
                }
            }
        }

        /// Stops watching, drops the signals not taken and unblocks them again. Called again, it does nothing.
        public func close() {
            guard let token else { return }
            loop.remove(token)
            self.token = nil
            handler = nil
            var info = signalfd_siginfo()
            while read(fd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {}
            Glibc.close(fd)
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }

        deinit { close() }
    }

    /// A signal source for `signals`, open until closed (see `SignalSource`).
    public func signalSource(_ signals: [Int32]) throws(EventLoopError) -> SignalSource {
        try SignalSource(loop: self, signals: signals)
    }

    // MARK: Wake-ups from other threads

    /// An eventfd another thread pokes (`notify()`, safe from any thread, no allocation, one write) to have
    /// `handler` run on the loop: how the audio engine and loader threads report without being polled.
    public final class Notifier: @unchecked Sendable {
        // @unchecked: `notify` only writes to an eventfd, which the kernel makes thread-safe.
        public let fd: Int32
        private var token: Token?
        private let loop: EventLoop  // kept alive: its handler is what reads this descriptor

        init(loop: EventLoop, handler: @escaping () -> Void) throws(EventLoopError) {
            let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
            guard fd >= 0 else { throw EventLoopError(call: "eventfd", code: errno) }
            self.fd = fd
            self.loop = loop
            token = loop.watch(fd) { _ in
                var count: UInt64 = 0
                if read(fd, &count, 8) == 8 { handler() }
            }
        }

        deinit {
            if let token { loop.remove(token) }
            close(fd)
        }

        public func notify() {
            var one: UInt64 = 1
            _ = write(fd, &one, 8)
        }
    }

    public func notifier(handler: @escaping () -> Void) throws(EventLoopError) -> Notifier {
        try Notifier(loop: self, handler: handler)
    }
}
