import CLinux
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// The right to be this user's player: an exclusive lock (an open file description lock) on `player.lock` beside the
/// control socket, taken before the player opens its audio and held until it stops listening.
///
/// The socket alone cannot decide who plays: hums started together all find no player answering, and then the later
/// ones either fail to bind or unlink the first one's socket (two players, one unreachable). With the claim one of
/// them wins; the others know a player is starting, wait for its socket (`PlayerClaim.isHeld` says whether it still
/// is) and send it their request.
public final class PlayerClaim {
    public let path: ControlSocketPath
    private var fd: Int32

    public static func lockPath(_ path: ControlSocketPath) -> String { path.directory + "/player.lock" }

    /// Takes the claim; `.alreadyRunning` when another process (or another claim of this one) holds it.
    public init(_ path: ControlSocketPath) throws(ControlServer.Problem) {
        self.path = path
        do { try path.prepare() } catch { throw .path(error) }
        let file = Self.lockPath(path)
        let fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .system(call: "open", path: file, code: errno) }
        if hum_ofd_trylock(fd) != 0 {
            let code = errno
            Glibc.close(fd)
            if code == EAGAIN || code == EACCES { throw .alreadyRunning(path.socket) }
            throw .system(call: "fcntl(F_OFD_SETLK)", path: file, code: code)
        }
        self.fd = fd
    }

    /// Lets the claim go (a new player may start); also when the claim is dropped.
    public func release() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    deinit { release() }

    /// Whether a process holds the claim now: a player runs, or is starting. Looking does not take it.
    public static func isHeld(_ path: ControlSocketPath) -> Bool {
        let fd = open(lockPath(path), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        return hum_ofd_held(fd) == 1
    }
}
