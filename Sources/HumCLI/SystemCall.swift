import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// How HumCLI makes a system call whose failure matters: the result is checked, and a failure becomes one line for
/// people saying what hum was doing, why (the system's words), and which call failed, like
/// `cannot write backup.json: No space left on device (fsync)`.
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
}
