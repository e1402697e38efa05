import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Where the player's control socket lives, and the checks that make it private, as tmux does: one socket per
/// user, in a directory only that user can enter.
public struct ControlSocketPath: Sendable, Equatable {
    public var directory: String
    public var socket: String { directory + "/control.sock" }

    /// Why no private place for the socket could be had.
    public struct Problem: UserFacingError, Equatable {
        public var message: String
    }

    /// `$XDG_RUNTIME_DIR/hum`, or without XDG_RUNTIME_DIR `/tmp/hum-UID` (refused when another user owns it or it
    /// is open to others).
    public init(environment: [String: String], uid: uid_t = getuid()) {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            directory = runtime + "/hum"
        } else {
            directory = "/tmp/hum-\(uid)"
        }
    }

    public init(directory: String) { self.directory = directory }

    /// Makes the directory (0700) when it is missing, and checks it: a directory (not a link), owned by this user,
    /// open to no one else. A directory someone else made first is never used.
    public func prepare(uid: uid_t = getuid()) throws(Problem) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw Problem(
                message: "cannot create \(directory): \(String(cString: strerror(errno))); check XDG_RUNTIME_DIR")
        }
        try check(uid: uid)
    }

    /// The checks of `prepare`, for a client that must not create anything.
    public func check(uid: uid_t = getuid()) throws(Problem) {
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw Problem(message: "cannot use \(directory): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw Problem(message: "\(directory) is not a directory; remove it so hum can make its own")
        }
        guard info.st_uid == uid else {
            throw Problem(
                message:
                    "\(directory) belongs to another user (uid \(info.st_uid)); hum will not use it: remove it, or "
                    + "set XDG_RUNTIME_DIR"
            )
        }
        guard info.st_mode & 0o077 == 0 else {
            throw Problem(
                message:
                    "\(directory) is open to other users (mode \(String(info.st_mode & 0o777, radix: 8))); run 'chmod "
                    + "700 \(directory)'"
            )
        }
    }
}
