#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT, SIGTERM and SIGHUP, taken out of the default "die at once" path so the mix can fade out.
///
/// `block()` must run before any thread is started, so every thread inherits the mask; the main loop then asks
/// `pending()` each tick. The signals are never delivered asynchronously, so no handler runs in a strange context.
struct SignalWatch {
    private var set = sigset_t()

    init() {
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGHUP)
    }

    func block() {
        var set = self.set
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Takes one pending signal, if any, without waiting.
    func pending() -> Int32? {
        var set = self.set
        var timeout = timespec(tv_sec: 0, tv_nsec: 0)
        let signal = sigtimedwait(&set, nil, &timeout)
        return signal > 0 ? signal : nil
    }
}
