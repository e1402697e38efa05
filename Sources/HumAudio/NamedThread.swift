#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A thread of its own, named as `ps -L` and the tests see it: what Foundation's `Thread` gave, on pthreads, so
/// that hum does not need the full Foundation (whose ICU data is most of a static binary's size).
public enum NamedThread {
    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new detached thread named `name` (at most 15 bytes are kept, as the kernel keeps them).
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let code = pthread_create(
            &thread, &attributes,
            { raw in
                guard let raw else { return nil }
                let start = Unmanaged<Start>.fromOpaque(raw).takeRetainedValue()
                NamedThread.nameCurrent(start.name)
                start.body()
                return nil
            }, start)
        precondition(code == 0, "cannot start the thread \(name): \(String(cString: strerror(code)))")
    }

    /// Names the calling thread through /proc (pthread_setname_np does not reach Swift here). Only a name: a
    /// failure changes nothing else.
    public static func nameCurrent(_ name: String) {
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard comm >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
        close(comm)
    }
}

/// What a file operation's error says to a person: the system's words for an errno (as Foundation's
/// `localizedDescription` gave them), else the error as Swift prints it.
public func fileErrorText(_ error: any Error) -> String {
    let posix = (error as? CocoaError)?.underlying as? POSIXError ?? error as? POSIXError
    if let posix { return String(cString: strerror(posix.code.rawValue)) }
    return "\(error)"
}
