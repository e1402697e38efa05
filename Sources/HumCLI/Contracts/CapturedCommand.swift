import CLinux
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A command run for its output (git, an external reviewer): started through `ChildProcess` (no shell, a process
/// group of its own, stopped as a whole), given `input` on its stdin, its stdout read up to a limit, within a time
/// limit. Its stderr goes to hum's, or to /dev/null when `quiet`.
enum CapturedCommand {
    struct Result {
        /// The exit code (128 + signal), when it ended by itself in time.
        var exitCode: Int32
        var output: [UInt8]
        /// It had not finished (or kept its stdout open) when the time was up: stopped, its output not to be used.
        var timedOut: Bool
        /// It wrote more than the limit: stopped, its output not to be used.
        var tooLong: Bool
    }

    static func run(
        _ argv: [String], input: [UInt8] = [], timeout: Double, limit: Int = 1 << 20, quiet: Bool = false
    ) throws -> Result {
        var stdinPipe: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        try SystemCall.check(hum_pipe_cloexec(&stdinPipe), "pipe2", doing: "cannot run \(argv[0])")
        defer { for fd in stdinPipe where fd >= 0 { close(fd) } }
        try SystemCall.check(hum_pipe_cloexec(&stdoutPipe), "pipe2", doing: "cannot run \(argv[0])")
        defer { for fd in stdoutPipe where fd >= 0 { close(fd) } }
        var descriptors = [(stdinPipe[0], Int32(0)), (stdoutPipe[1], Int32(1))]
        let null = quiet ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1
        defer { if null >= 0 { close(null) } }
        if null >= 0 { descriptors.append((null, 2)) }
        let child = try ChildProcess(argv: argv, options: .init(descriptors: descriptors))
        close(stdinPipe[0])
        stdinPipe[0] = -1
        close(stdoutPipe[1])
        stdoutPipe[1] = -1
        let writer = stdinPipe[1]
        let reader = stdoutPipe[0]
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)

        let start = monotonicSeconds()
        var output: [UInt8] = []
        var written = 0
        var writing = !input.isEmpty
        if !writing {
            close(writer)
            stdinPipe[1] = -1
        }
        var timedOut = false
        var tooLong = false
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let left = timeout - (monotonicSeconds() - start)
            if left <= 0 {
                timedOut = true
                break
            }
            var fds = [pollfd(fd: reader, events: Int16(POLLIN), revents: 0)]
            if writing { fds.append(pollfd(fd: writer, events: Int16(POLLOUT), revents: 0)) }
            let ready = SystemCall.tolerate {
                poll(&fds, nfds_t(fds.count), Int32(min(left * 1000, 60_000).rounded(.up)))
            }
            if ready < 0 { break }
            if writing, fds.count > 1, fds[1].revents != 0 {
                let n = input.withUnsafeBytes { bytes in
                    retrying { Glibc.write(writer, bytes.baseAddress! + written, bytes.count - written) }
                }
                if n > 0 { written += n }
                if n < 0 && errno != EAGAIN || written >= input.count {
                    // All given, or the command closed its stdin (EPIPE): it reads no more.
                    writing = false
                    close(writer)
                    stdinPipe[1] = -1
                }
            }
            if fds[0].revents != 0 {
                let n = buffer.withUnsafeMutableBytes { raw in
                    retrying { Glibc.read(reader, raw.baseAddress!, raw.count) }
                }
                if n <= 0 { break }  // the end of its output
                output.append(contentsOf: buffer[0..<n])
                if output.count > limit {
                    tooLong = true
                    break
                }
            }
        }
        if timedOut || tooLong {
            child.signalGroup(SIGTERM)
            child.finish(within: 0, grace: 1)
            return Result(exitCode: child.exitCode, output: output, timedOut: timedOut, tooLong: tooLong)
        }
        child.finish(within: max(0.5, timeout - (monotonicSeconds() - start)), grace: 1)
        // A command that closed its stdout but did not end in time was stopped: late all the same.
        let late = monotonicSeconds() - start > timeout + 0.25
        return Result(exitCode: child.exitCode, output: output, timedOut: late, tooLong: false)
    }

    /// A read or a write, again while a signal interrupts it.
    static func retrying(_ body: () -> Int) -> Int {
        while true {
            let n = body()
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }
}
