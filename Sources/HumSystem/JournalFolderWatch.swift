import CLinux
import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Wakes an event loop when a device's journal in a synced folder may have changed, through inotify (no polling):
/// it watches the `devices` folder for device folders made or moved in, and each device folder for its journal
/// written, closed after writing or moved in (Syncthing writes a temporary and renames it over the journal). The
/// handler is told "look now" once per batch of events; it reads for itself (the merge is cheap when nothing
/// changed).
public final class JournalFolderWatch {
    public let folder: String
    private let fd: Int32
    private var token: LoopToken?
    private unowned let loop: any EventLoopProtocol
    private let handler: () -> Void
    private var devicesWatch: Int32 = -1
    private var deviceWatches: Set<Int32> = []

    private static let folderEvents = UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)
    private static let journalEvents = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MODIFY | IN_CREATE)

    /// Starts watching `folder` (the synced folder's `hum-sync/v1/devices`, which must exist); `handler` runs on
    /// the loop.
    public init(loop: any EventLoopProtocol, folder: String, handler: @escaping () -> Void) throws(EventLoopError) {
        self.folder = folder
        self.loop = loop
        self.handler = handler
        fd = hum_inotify_init()
        guard fd >= 0 else { throw EventLoopError(call: "inotify_init1", code: errno) }
        devicesWatch = inotify_add_watch(fd, folder, Self.folderEvents)
        guard devicesWatch >= 0 else { throw EventLoopError(call: "inotify_add_watch \(folder)", code: errno) }
        watchDevices()
        token = loop.watch(fd) { [unowned self] _ in self.readEvents() }
    }

    deinit {
        if let token { loop.remove(token) }
        close(fd)
    }

    /// Watches every device folder there (adding a watch twice gives the same descriptor).
    private func watchDevices() {
        guard let handle = opendir(folder) else { return }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            let wd = inotify_add_watch(fd, folder + "/" + name, Self.journalEvents | UInt32(IN_ONLYDIR))
            if wd >= 0 { deviceWatches.insert(wd) }
        }
    }

    private func readEvents() {
        var buffer = [UInt8](repeating: 0, count: 8192)
        var look = false
        var newFolder = false
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n <= 0 { break }  // EAGAIN: all read
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let (wd, length) = buffer.withUnsafeBytes { raw in
                    (
                        raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                        Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    )
                }
                let nameBytes = buffer[(offset + header)..<min(offset + header + length, n)].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                offset += header + length
                if wd == devicesWatch {
                    newFolder = true
                    look = true
                } else if deviceWatches.contains(wd), name == "journal.jsonl" {
                    look = true
                }
            }
            if n < buffer.count { break }
        }
        if newFolder { watchDevices() }
        if look { handler() }
    }
}
