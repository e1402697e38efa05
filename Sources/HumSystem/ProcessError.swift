import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why a process could not be started or supervised (a spawn, a signalfd, a pipe that failed): one line for people,
/// like `cannot run "make": No such file or directory`. A failure (exit 1) when it reaches the frontend.
public enum ProcessError: UserFacingError, Equatable, Sendable {
    case failure(String)

    public var message: String {
        switch self {
        case .failure(let m): return m
        }
    }

    public var kind: FailureKind { .failure }
}

/// How the process machinery makes a system call whose failure matters: the result is checked, and a failure
/// becomes a `ProcessError` naming what hum was doing (where that is known), why (the system's words), and which
/// call failed.
enum ProcessCall {
    /// Passes a result of 0 or more through; for a negative one, throws the failure with `errno`.
    @discardableResult
    static func check(_ result: Int32, _ call: String, doing: @autoclosure () -> String) throws(ProcessError) -> Int32 {
        guard result < 0 else { return result }
        throw .failure("\(doing()): \(String(cString: strerror(errno))) (\(call))")
    }

    /// For calls that return -1 and set errno. Returns the result otherwise; EINTR is retried.
    @discardableResult
    static func check(_ call: String, _ body: () -> Int32) throws(ProcessError) -> Int32 {
        while true {
            let result = body()
            if result >= 0 { return result }
            if errno == EINTR { continue }
            throw .failure("\(call) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// For calls that return an error number (0 for success), as posix_spawn does.
    static func checkCode(_ call: String, _ code: Int32) throws(ProcessError) {
        guard code != 0 else { return }
        throw .failure("\(call) failed: \(String(cString: strerror(code)))")
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
