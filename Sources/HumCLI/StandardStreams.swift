import HumCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A write to stdout that failed (a full disk, a reader that went away, a closed stdout): the first one, which
/// ends the command with exit 1 and this one line.
public struct OutputFailure: UserFacingError, Equatable, Sendable {
    /// The `errno` of the failed write.
    public var code: Int32

    public var message: String { "cannot write the output: \(String(cString: strerror(code)))" }
}

/// Writes straight to a file descriptor, unbuffered, so output and the exit code arrive in order.
///
/// Every write is checked. The first failure is kept (`failure`) and every later write is dropped, so a command
/// need not check each line: the frontend looks at `failure` before exiting, and long outputs ask for it as they
/// go (`CommandContext.checkOutput`) to stop early.
final class DescriptorOutput: TextOutput, Sendable {
    let descriptor: Int32
    let closedAtStart: Bool
    private let state: Mutex<OutputFailure?>

    /// - Parameter closedAtStart: the descriptor was closed when hum started (and now holds /dev/null, so that no
    ///   file hum opens takes its number): every write fails with EBADF, as it would have.
    init(_ descriptor: Int32, closedAtStart: Bool = false) {
        self.descriptor = descriptor
        self.closedAtStart = closedAtStart
        state = Mutex(nil)
    }

    var failure: OutputFailure? { state.withLock { $0 } }

    /// Writes `text` and returns the failure, if this or an earlier write failed (a command that runs on, like
    /// `hum status --follow`, stops when its reader has gone).
    @discardableResult
    func writeChecked(_ text: String) -> OutputFailure? {
        write(text)
        return failure
    }

    func write(_ text: String) {
        // The lock keeps lines whole when two threads write, and orders them after a failure.
        state.withLock { failure in
            guard failure == nil, !text.isEmpty else { return }
            guard !closedAtStart else {
                failure = OutputFailure(code: EBADF)
                return
            }
            var text = text
            text.withUTF8 { bytes in
                guard let base = bytes.baseAddress else { return }
                if let code = StandardStreams.writeAll(descriptor, base, bytes.count) {
                    failure = OutputFailure(code: code)
                }
            }
        }
    }
}

/// stdin, stdout and stderr as hum finds them at start, and the check of stdout before exiting.
enum StandardStreams {
    /// Puts /dev/null on every standard descriptor that is closed, so that no file hum opens (a database, an
    /// export) gets number 1 and receives what was meant for stdout. Returns which were closed (the frontend hands
    /// that to the command through its context).
    static func reserveClosed() -> Set<Int32> {
        var closedAtStart: Set<Int32> = []
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            // The lowest free number is `fd`, since the lower ones are open (or were just filled).
            let null = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != fd {
                dup2(null, fd)
                close(null)
            }
            closedAtStart.insert(fd)
        }
        return closedAtStart
    }

    /// Writes all of `count` bytes, waiting when the descriptor is non-blocking and full. Returns the `errno` of a
    /// failure, nil when all was written.
    static func writeAll(_ fd: Int32, _ base: UnsafeRawPointer, _ count: Int) -> Int32? {
        var offset = 0
        while offset < count {
            let n = Glibc.write(fd, base + offset, count - offset)
            if n > 0 {
                offset += n
                continue
            }
            if n == 0 { return EIO }  // no progress and no error: never loop on it
            switch errno {
            case EINTR: continue
            case EAGAIN:
                // A descriptor someone else made non-blocking (a shared terminal or pipe): wait until it drains.
                var poll = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = Glibc.poll(&poll, 1, -1)
            case let code: return code
            }
        }
        return nil
    }

    /// What the process exits with, once the command has returned `code`. A command that succeeded but whose
    /// output could not all be written fails (exit 1) with one line saying why. When stdout is a regular file it is
    /// synced first, so a full disk or an I/O error the kernel reports late is caught here rather than never.
    ///
    /// A command that `made` a lasting change (a spend recorded, a setting stored) is not run again by a script
    /// that sees it fail, so it still exits 0: the one line says the change was made, that only its report was
    /// lost, and how to see it.
    static func exitCode(
        _ code: Int32, stdout: DescriptorOutput, stderr: DescriptorOutput, made change: LastingChange? = nil
    ) -> Int32 {
        var failure = stdout.failure
        if failure == nil {
            var info = stat()
            if fstat(stdout.descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                !stdout.closedAtStart, fsync(stdout.descriptor) != 0,
                errno != EINVAL && errno != EROFS
            {
                failure = OutputFailure(code: errno)
            }
        }
        guard let failure, code == ExitCode.success else { return code }
        if let change {
            stderr.write(
                "hum: \(change.done), but what hum printed about it could not be written "
                    + "(\(String(cString: strerror(failure.code)))); '\(change.see)' shows it\n")
            return ExitCode.success
        }
        // A command that failed has said why already; this is for one that believed it had succeeded.
        stderr.write("hum: \(failure.message)\n")
        return ExitCode.failure
    }
}
