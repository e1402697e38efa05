import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Writes straight to a file descriptor, unbuffered, so output and the exit code arrive in order.
final class DescriptorOutput: TextOutput, @unchecked Sendable {
    // @unchecked: the descriptor is immutable and write(2) is safe to call from any thread.
    let descriptor: Int32

    init(_ descriptor: Int32) { self.descriptor = descriptor }

    func write(_ text: String) {
        // EPIPE and friends: the reader went away; nothing useful to do for a command that ends anyway.
        _ = writeChecked(text)
    }

    /// Writes all of `text`; returns 0, or the errno that stopped it (a command that runs on, like
    /// `hum status --follow`, stops when its reader has gone).
    func writeChecked(_ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return 0
        }
    }
}

/// The process frontend: owns stdout, stderr, the TTY and the exit code. `main.swift` calls only this.
public enum Frontend {
    public static func main() -> Never {
        signal(SIGPIPE, SIG_IGN)
        var environment: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let pair = String(cString: entry)
            if let eq = pair.firstIndex(of: "=") {
                environment[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            pointer += 1
        }
        let context = CommandContext(
            environment: environment,
            stdout: DescriptorOutput(STDOUT_FILENO),
            stderr: DescriptorOutput(STDERR_FILENO),
            stdoutIsTerminal: isatty(STDOUT_FILENO) == 1,
            stdinIsTerminal: isatty(STDIN_FILENO) == 1,
            accountHome: environment["HOME"]?.hasPrefix("/") == true ? nil : AccountHome.lookup())
        exit(HumMain.run(arguments: CommandLine.arguments, context: context))
    }
}
