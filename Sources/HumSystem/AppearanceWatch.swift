import CLinux
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Wakes an event loop when a file may have appeared at a path, through inotify: how `hum status --follow` waits
/// for a player's socket without looking again and again. It watches the file's directory for the name being
/// created or moved in; while the directory does not exist, its parent, for the directory being made; a
/// directory removed later is followed the same way. The handler is told "look now"; it checks for itself.
public final class AppearanceWatch {
    public let path: String
    private let directory: String
    private let name: String
    private let parent: String
    private let directoryName: String
    private let fd: Int32
    private var token: LoopToken?
    private unowned let loop: any EventLoopProtocol
    private let handler: () -> Void
    private var directoryWatch: Int32 = -1
    private var parentWatch: Int32 = -1

    /// Starts watching; `handler` runs on the loop. Fails when neither the directory nor its parent can be
    /// watched (the parent does not exist).
    public init(loop: any EventLoopProtocol, path: String, handler: @escaping () -> Void) throws(EventLoopError) {
        self.path = path
        self.loop = loop
        self.handler = handler
        (directory, name) = AppearanceWatch.split(path)
        (parent, directoryName) = AppearanceWatch.split(directory)
        fd = hum_inotify_init()
        guard fd >= 0 else { throw EventLoopError(call: "inotify_init1", code: errno) }
        // A failed arm leaves the closing to deinit (which runs for an object whose properties were all set).
        try arm()
        token = loop.watch(fd) { [unowned self] _ in self.readEvents() }
    }

    deinit {
        if let token { loop.remove(token) }
        close(fd)
    }

    static func split(_ path: String) -> (String, String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let head = String(path[..<slash])
        return (head.isEmpty ? "/" : head, String(path[path.index(after: slash)...]))
    }

    private static let directoryEvents = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
    private static let parentEvents = UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

    /// Watches the directory, or while it is missing its parent. Returns whether the directory is watched.
    @discardableResult
    private func arm() throws(EventLoopError) -> Bool {
        directoryWatch = inotify_add_watch(fd, directory, AppearanceWatch.directoryEvents)
        if directoryWatch >= 0 { return true }
        guard errno == ENOENT || errno == ENOTDIR else {
            throw EventLoopError(call: "inotify_add_watch \(directory)", code: errno)
        }
        if parentWatch < 0 {
            parentWatch = inotify_add_watch(fd, parent, AppearanceWatch.parentEvents)
            guard parentWatch >= 0 else { throw EventLoopError(call: "inotify_add_watch \(parent)", code: errno) }
        }
        // The directory may have been made between the two calls.
        directoryWatch = inotify_add_watch(fd, directory, AppearanceWatch.directoryEvents)
        if directoryWatch >= 0 {
            dropParentWatch()
            return true
        }
        return false
    }

    private func dropParentWatch() {
        if parentWatch >= 0 { inotify_rm_watch(fd, parentWatch) }
        parentWatch = -1
    }

    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var look = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n <= 0 { break }  // EAGAIN: all read
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw in
                    (
                        raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                        raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                        Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    )
                }
                let nameBytes = buffer[(offset + header)..<min(offset + header + length, n)].prefix { $0 != 0 }
                let eventName = String(decoding: nameBytes, as: UTF8.self)
                offset += header + length
                if wd == directoryWatch {
                    if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                        // The directory went away: watch for it to come back.
                        if mask & UInt32(IN_IGNORED) == 0 { inotify_rm_watch(fd, directoryWatch) }
                        directoryWatch = -1
                        if (try? arm()) == true { look = true }
                    } else if eventName == name {
                        look = true
                    }
                } else if wd == parentWatch, eventName == directoryName {
                    if (try? arm()) == true { look = true }
                }
            }
            if n < buffer.count { break }
        }
        if look { handler() }
    }
}
