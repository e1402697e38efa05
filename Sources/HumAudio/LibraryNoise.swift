import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Decoder libraries (mpg123 inside libsndfile) print notes straight to stderr. hum reports problems itself, so
/// while files are opened and decoded, file descriptor 2 points at /dev/null.
public enum LibraryNoise {
    private static let stderr = DescriptorSilencer(STDERR_FILENO)

    /// Runs `body` with descriptor 2 at /dev/null when `silencing` (in hum's own process, as its frontend says);
    /// else runs it as it is (hum inside another program, such as a test runner, whose stderr is not hum's).
    public static func silenced<T>(if silencing: Bool, _ body: () throws -> T) rethrows -> T {
        guard silencing else { return try body() }
        return try stderr.silenced(body)
    }
}

/// Points a descriptor at /dev/null around a body, on any threads at once. The descriptor belongs to the whole
/// process, so the redirection is counted: the first of overlapping callers points it at /dev/null, the last puts
/// back what it pointed at. Uncounted, two overlapping calls could each save the other's /dev/null and leave the
/// descriptor silenced for good.
public final class DescriptorSilencer: Sendable {
    private struct State: ~Copyable {
        var depth = 0
        var saved: Int32 = -1
    }

    public let descriptor: Int32
    private let state = Mutex(State())

    public init(_ descriptor: Int32) { self.descriptor = descriptor }

    public func silenced<T>(_ body: () throws -> T) rethrows -> T {
        let descriptor = descriptor
        state.withLock { state in
            if state.depth == 0 {
                fflush(nil)  // all C streams, stderr among them
                let saved = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
                let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
                if saved >= 0, null >= 0, dup2(null, descriptor) >= 0 {
                    state.saved = saved
                } else if saved >= 0 {
                    close(saved)
                }
                if null >= 0 { close(null) }
            }
            state.depth += 1
        }
        defer {
            state.withLock { state in
                state.depth -= 1
                if state.depth == 0, state.saved >= 0 {
                    dup2(state.saved, descriptor)
                    close(state.saved)
                    state.saved = -1
                }
            }
        }
        return try body()
    }
}
