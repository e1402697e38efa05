import CLinux
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// A command run for its output (git, an external reviewer): started through `ChildProcess` (no shell, a process
/// group of its own), given `input` on its stdin, its stdout read up to a limit, within a time limit. Its stderr goes
/// to hum's, or to /dev/null when `quiet`.
///
/// The answer is what it wrote by the time **it** exits (the leader of its group, the process started): what is in
/// its stdout then, and what arrives within a short grace after, is read; the end of its stdout is not awaited, since
/// a process it left in the background may hold it open. Whatever it leaves in its group is then stopped (SIGTERM,
/// SIGKILL a second later), as is the whole group when the time is up or the output too long.
public enum CapturedCommand {
    public struct Result {
        /// The exit code (128 + signal), when it ended by itself in time.
        public var exitCode: Int32
        public var output: [UInt8]
        /// It had not exited when the time was up: stopped, its output not to be used.
        public var timedOut: Bool
        /// It wrote more than the limit: stopped, its output not to be used.
        public var tooLong: Bool
    }

    /// How long output is still read after the command exited, for what its last writes left in flight.
    public static let exitGrace = 0.2

    public static func run(
        _ argv: [String], input: [UInt8] = [], timeout: Double, limit: Int = 1 << 20, quiet: Bool = false,
        environment: [String] = [], removing: Set<String> = []
    ) throws -> Result {
        var stdinPipe: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        try ProcessCall.check(hum_pipe_cloexec(&stdinPipe), "pipe2", doing: "cannot run \(argv[0])")
        defer { for fd in stdinPipe where fd >= 0 { close(fd) } }
        try ProcessCall.check(hum_pipe_cloexec(&stdoutPipe), "pipe2", doing: "cannot run \(argv[0])")
        defer { for fd in stdoutPipe where fd >= 0 { close(fd) } }
        var descriptors = [(stdinPipe[0], Int32(0)), (stdoutPipe[1], Int32(1))]
        let null = quiet ? open("/dev/null", O_WRONLY | O_CLOEXEC) : -1
        defer { if null >= 0 { close(null) } }
        if null >= 0 { descriptors.append((null, 2)) }
        let child = try ChildProcess(
            argv: argv, options: .init(environment: environment, removing: removing, descriptors: descriptors))
        close(stdinPipe[0])
        stdinPipe[0] = -1
        close(stdoutPipe[1])
        stdoutPipe[1] = -1
        let writer = stdinPipe[1]
        let reader = stdoutPipe[0]
        _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
        // Readable when the command exits (Linux 5.3); without it, its exit is looked for every 50 ms.
        let pidfd = hum_pidfd_open(child.pid)
        defer { if pidfd >= 0 { close(pidfd) } }

        let start = monotonicSeconds()
        var output: [UInt8] = []
        var written = 0
        var writing = !input.isEmpty
        if !writing {
            close(writer)
            stdinPipe[1] = -1
        }
        var reading = true
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        /// Stops what is left of its group (all of it, when it had not exited) and gives the result.
        func ended(timedOut: Bool = false, tooLong: Bool = false) -> Result {
            child.finish(within: 0, grace: 1)
            return Result(exitCode: child.exitCode, output: output, timedOut: timedOut, tooLong: tooLong)
        }
        /// Reads once from its stdout: false at its end (or an error).
        func readSome() -> Bool {
            let n = buffer.withUnsafeMutableBytes { raw in
                retrying { Glibc.read(reader, raw.baseAddress!, raw.count) }
            }
            if n <= 0 { return false }
            output.append(contentsOf: buffer[0..<n])
            return true
        }
        while !child.hasExited() {
            let left = timeout - (monotonicSeconds() - start)
            guard left > 0 else { return ended(timedOut: true) }
            var fds: [pollfd] = []
            if reading { fds.append(pollfd(fd: reader, events: Int16(POLLIN), revents: 0)) }
            if writing { fds.append(pollfd(fd: writer, events: Int16(POLLOUT), revents: 0)) }
            if pidfd >= 0 { fds.append(pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)) }
            let wait = pidfd >= 0 ? min(left, 60) : min(left, 0.05)
            let ready = ProcessCall.tolerate { poll(&fds, nfds_t(fds.count), Int32((wait * 1000).rounded(.up))) }
            if ready < 0 { usleep(10_000) }
            for fd in fds where fd.revents != 0 {
                if fd.fd == writer, writing {
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
                } else if fd.fd == reader, reading {
                    reading = readSome()  // at its end, its exit is still awaited
                    if output.count > limit { return ended(tooLong: true) }
                }
            }
        }
        // It exited: its answer is what its stdout holds now, and what comes within the grace (from a process of
        // its own that is finishing). A process left in the background holding its stdout is not waited for.
        let graceEnd = monotonicSeconds() + exitGrace
        // (What it wrote before exiting is all in the pipe already: read at once, whatever its size.)
        while reading {
            let left = graceEnd - monotonicSeconds()
            guard left > 0 else { break }  // a process still writing is not read for ever
            var fd = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            let ready = ProcessCall.tolerate { poll(&fd, 1, Int32((left * 1000).rounded(.up))) }
            guard ready > 0 else { break }
            reading = readSome()
            if output.count > limit { return ended(tooLong: true) }
        }
        return ended()
    }

    /// A read or a write, again while a signal interrupts it.
    public static func retrying(_ body: () -> Int) -> Int {
        while true {
            let n = body()
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }
}
