import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// How HumCLI makes a system call whose failure matters: the result is checked, and a failure becomes one line for
/// people saying what hum was doing (where that is known), why (the system's words), and which call failed, like
/// `cannot write backup.json: No space left on device (fsync)`. The one checker of the CLI's C calls: files and the
/// player's descriptors (the process machinery in HumSystem has its own, `ProcessCall`, throwing `ProcessError`).
enum SystemCall {
    /// Passes a result of 0 or more through; for a negative one, throws the failure with `errno`.
    @discardableResult
    static func check(_ result: Int32, _ call: String, doing: @autoclosure () -> String) throws(HumError) -> Int32 {
        guard result < 0 else { return result }
        throw failure(errno, call, doing: doing())
    }

    /// The failure of `call` with the error `code`.
    static func failure(_ code: Int32, _ call: String, doing: String) -> HumError {
        .failure("\(doing): \(String(cString: strerror(code))) (\(call))")
    }

    /// For calls that return -1 and set errno. Returns the result otherwise; EINTR is retried.
    @discardableResult
    static func check(_ call: String, _ body: () -> Int32) throws(HumError) -> Int32 {
        while true {
            let result = body()
            if result >= 0 { return result }
            if errno == EINTR { continue }
            throw HumError.failure("\(call) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// For calls that return an error number (0 for success), as posix_spawn does.
    static func checkCode(_ call: String, _ code: Int32) throws(HumError) {
        guard code != 0 else { return }
        throw HumError.failure("\(call) failed: \(String(cString: strerror(code)))")
    }

    /// For calls whose failure is expected and harmless (a process that is already gone, a terminal that was
    /// closed): the result, with errno for the caller to look at.
    @discardableResult
    static func tolerate(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }
}
