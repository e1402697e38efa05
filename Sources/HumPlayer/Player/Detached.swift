import CLinux
import HumCore
import HumSystem

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#endif

/// `hum play --detach`: the player started as `hum daemon` in a session of its own (no terminal, stdin and stdout
/// on /dev/null, stderr appended to `$XDG_STATE_HOME/hum/player.log`), and this process waits until it says it
/// plays, or why it could not, before returning.
public enum Detached {
    /// The log is started afresh when it has grown past this.
    public static let logLimit = 1 << 20
    /// How long to wait for the player to play (loading a long user file can take a while).
    public static let patience: Int32 = 30_000

    /// Set in the started player's environment: the descriptor on which it says `ready` (or why it could not
    /// start). `hum daemon` reads it.
    public static let readyVariable = "HUM_READY_FD"

    public static func logPath(_ environment: PlayerEnvironment) -> String {
        environment.paths.stateDirectory + "/player.log"
    }

    /// The player started here found another hum's player starting (that hum took the claim first): the caller
    /// sends its request there (`PlayerLink.awaitStarting`).
    public struct AnotherPlayerStarting: UserFacingError {
        public init() {}
        public var message: String { "another hum is starting a player at the same moment; try again" }
    }

    /// What the player says on its ready descriptor when it lost the claim to another.
    public static let anotherPlayerAnswer = "another-player\n"

    /// Starts `hum` with `daemonWords` (`daemon` and the player's options: the caller checked them) and waits for it
    /// to play. `announce`: say on stderr that the player plays in the background (not when a screen attaches to it
    /// at once).
    public static func start(daemonWords: [String], environment: PlayerEnvironment, announce: Bool = true) throws
        -> Int32
    {
        let log = try openLog(environment)
        defer { close(log) }
        var ends: [Int32] = [0, 0]
        guard hum_pipe_cloexec(&ends) == 0 else {
            throw PlayerError.failure(
                "cannot start a player in the background: pipe2: \(String(cString: strerror(errno)))")
        }
        defer { close(ends[0]) }
        let child: ChildProcess
        do {
            child = try ChildProcess(
                argv: ["hum"] + daemonWords,
                options: .init(
                    environment: ["\(readyVariable)=3"], newSession: true,
                    descriptors: [(log, Int32(2)), (ends[1], Int32(3))], quiet: true, program: "/proc/self/exe"))
        } catch {
            close(ends[1])
            throw error
        }
        close(ends[1])
        let answer = read(ends[0], timeout: patience, clock: environment.monotonic)
        if answer == "ready\n" {
            guard announce else { return ExitCode.success }
            environment.stderr.write(
                "hum: playing in the background (pid \(child.pid)); 'hum status' shows it, 'hum ctl stop' stops it\n")
            return ExitCode.success
        }
        if answer == anotherPlayerAnswer { throw AnotherPlayerStarting() }
        if answer.hasPrefix("hum: ") {
            throw PlayerError.failure(String(answer.dropFirst(5).prefix { $0 != "\n" }))
        }
        throw PlayerError.failure("the background player did not start; see \(logPath(environment))")
    }

    /// The log, created 0600 in the private state directory, started afresh past its limit.
    static func openLog(_ environment: PlayerEnvironment) throws -> Int32 {
        let directory = environment.paths.stateDirectory
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = logPath(environment)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw PlayerError.failure("cannot open the player's log \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_size > logLimit { _ = ftruncate(fd, 0) }
        return fd
    }

    /// What the player wrote before closing its end (or nothing in time).
    private static func read(_ fd: Int32, timeout: Int32, clock: () -> Double) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        let deadline = clock() + Double(timeout) / 1000
        while bytes.count < 4096 {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, (deadline - clock()) * 1000))
            let ready = poll(&p, 1, left)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { break }
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
