import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The process frontend: owns stdout, stderr, the TTY and the exit code. `main.swift` calls only this.
public enum Frontend {
    public static func main() -> Never {
        signal(SIGPIPE, SIG_IGN)  // a reader that went away is a failed write (EPIPE), reported like any other
        let closed = StandardStreams.reserveClosed()
        var environment: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let pair = String(cString: entry)
            if let eq = pair.firstIndex(of: "=") {
                environment[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            pointer += 1
        }
        let stdout = DescriptorOutput(
            STDOUT_FILENO, closedAtStart: closed.contains(STDOUT_FILENO))
        let stderr = DescriptorOutput(STDERR_FILENO)
        var context = CommandContext(
            environment: environment, stdout: stdout, stderr: stderr,
            stdoutIsTerminal: isatty(STDOUT_FILENO) == 1,
            stdinIsTerminal: isatty(STDIN_FILENO) == 1,
            accountHome: environment["HOME"]?.hasPrefix("/") == true ? nil : AccountHome.lookup(),
            closedDescriptors: closed)
        context.silencesLibraryNoise = true
        let code = HumMain.run(arguments: CommandLine.arguments, context: context)
        exit(StandardStreams.exitCode(code, stdout: stdout, stderr: stderr, made: context.changes.change))
    }
}
