#if canImport(Glibc)
    import Glibc
#endif

/// The checker every C call of the process supervision goes through: a failure becomes one line that names the
/// call and the system's reason.
enum SystemCall {
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
