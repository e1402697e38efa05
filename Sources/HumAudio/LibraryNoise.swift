#if canImport(Glibc)
    import Glibc
#endif

/// Decoder libraries (mpg123 inside libsndfile) print notes straight to stderr. hum reports problems itself, so
/// while files are opened and decoded, file descriptor 2 points at /dev/null.
public enum LibraryNoise {
    public static func silenced<T>(_ body: () throws -> T) rethrows -> T {
        fflush(nil)  // all C streams, stderr among them
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY)
        if saved >= 0, null >= 0 { dup2(null, STDERR_FILENO) }
        defer {
            if saved >= 0 {
                dup2(saved, STDERR_FILENO)
                close(saved)
            }
            if null >= 0 { close(null) }
        }
        return try body()
    }
}
