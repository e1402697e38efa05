import Dispatch
import HumCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Finished loops kept as files, `$XDG_CACHE_HOME/hum/loops/<key>.pcm`, and played mapped from them: a loop is
/// built once (decoded, seamed, resampled, filtered, exactly as `TrackLoader` builds it), written, and from then on
/// only mapped. Mapped, its pages count as hum's memory only while they are mapped into hum, and `LoopPager` keeps
/// just the next seconds of each voice mapped; a second play of the same sounds does not decode at all.
///
/// The key (in the file name as a hash, and in the header in full, compared on open) is everything that decides
/// the samples: the sound file (path, size, modification time to the nanosecond, inode and device), built in or
/// not, its loop mode, the output rate, the speakers, the loudness target if any, the cache's format version, and
/// the hum executable itself (its size, modification time and inode: a new build may build loops differently).
/// A file whose header does not match (short, foreign, another version or key) is never trusted: it is rebuilt.
///
/// Written to a temporary file in the same directory, synced, then renamed over the final name, so a load killed
/// half way leaves no half file under it (the temporary ones are swept up after an hour). The directory is kept
/// under `budgetBytes`, oldest used first, and a file unused for `maximumAgeDays` goes. When the directory cannot
/// be written, the loop plays from memory as before (`problem` says why, for `--verbose`).
public final class LoopCache: Sendable {
    /// Raised whenever what a cached loop holds, or how, changes.
    public static let formatVersion: UInt32 = 1
    public static let budgetBytes: Int64 = 512 << 20
    public static let maximumAgeDays = 30
    static let headerBytes = 4096
    static let magic: [UInt8] = Array("HUMLOOP\0".utf8)

    /// The directory, e.g. `~/.cache/hum/loops`.
    public let directory: String
    private let counts = Mutex(Counts())
    /// Where stores that do not wait for the disk finish (`store(…, syncLater: true)`), one after another.
    private let syncing = DispatchQueue(label: "hum-loop-sync")
    private let syncs = DispatchGroup()

    /// What this cache did so far: loops found, loops built and stored, and the last reason one could not be.
    public struct Counts: Equatable, Sendable {
        public var found = 0
        public var stored = 0
        public var problem: String?
    }

    public init(cacheDirectory: String) {
        directory = cacheDirectory + "/loops"
    }

    public var report: Counts { counts.withLock { $0 } }

    // MARK: The key

    /// The key of a loop, or nil when the sound file cannot be looked at (the load reports that).
    func key(_ sound: SoundReference, outputRate: Int, matching: LoudnessMatching?, speakers: SpeakerSize) -> String? {
        guard let file = LoopCache.identity(sound.path), let executable = LoopCache.identity("/proc/self/exe") else {
            return nil
        }
        let loudness = matching.map { "\($0.targetLUFS)" } ?? "raw"
        return
            "hum-loop \(LoopCache.formatVersion)\nexe \(executable)\nsource \(sound.source)\nloop \(sound.loop.map { "\($0)" } ?? "-")\n"
            + "rate \(outputRate)\nspeakers \(speakers.rawValue)\nloudness \(loudness)\nfile \(file)\npath \(sound.path)\n"
    }

    /// Size, modification time (ns), inode and device of a file, as text.
    static func identity(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return "\(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) \(st.st_ino) \(st.st_dev)"
    }

    /// The file name of a key: 64-bit FNV-1a of its text, twice with two offsets (a collision only costs a
    /// rebuild: the header holds the whole key).
    static func fileName(_ key: String) -> String {
        let bytes = Array(key.utf8)
        func fnv(_ basis: UInt64) -> UInt64 {
            var h = basis
            for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            return h
        }
        func hex(_ v: UInt64) -> String {
            let digits = String(v, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(fnv(0xcbf2_9ce4_8422_2325)) + hex(fnv(0x8422_2325_cbf2_9ce4)) + ".pcm"
    }

    func path(_ key: String) -> String { directory + "/" + LoopCache.fileName(key) }

    // MARK: Reading

    /// The loop stored under `key`, mapped, and its normalization; nil when there is none or it is not sound.
    func open(key: String, outputRate: Int) -> (loop: LoopBuffer, normalization: Float)? {
        let path = self.path(key)
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        var header = [UInt8](repeating: 0, count: LoopCache.headerBytes)
        guard pread(fd, &header, header.count, 0) == header.count,
            let fields = Header(header), fields.key == key, fields.sampleRate == outputRate,
            Int(st.st_size) == LoopCache.headerBytes + fields.frames * fields.channels * 2
        else { return nil }
        guard
            let loop = LoopCache.map(
                fd: fd, bytes: Int(st.st_size), frames: fields.frames, channels: fields.channels, rate: outputRate)
        else { return nil }
        // UTIME_NOW and UTIME_OMIT (macros Swift does not import).
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)]
        _ = futimens(fd, &times)  // the access time says it was used: pruning goes oldest used first
        counts.withLock { $0.found += 1 }
        return (loop, fields.normalization)
    }

    /// Maps a cache file read-only and shared: its header page, then the samples.
    private static func map(fd: Int32, bytes: Int, frames: Int, channels: Int, rate: Int) -> LoopBuffer? {
        guard let raw = mmap(nil, bytes, PROT_READ, MAP_SHARED, fd, 0), raw != MAP_FAILED else { return nil }
        let samples = (raw + headerBytes).assumingMemoryBound(to: Int16.self)
        let mapped = MappedLoop(base: raw, bytes: bytes)
        let storage = SampleStorage(adopting: samples, count: frames * channels) { _, _ in mapped.unmap() }
        // The start of the loop now, before any voice reads it; the pager keeps it from then on.
        mapped.keepStart(bytes: headerBytes + Int(LoopPager.aheadSeconds * Double(rate)) * channels * 2)
        MappedLoops.shared.register(mapped, storage: storage)
        return LoopBuffer(storage: storage, startFrame: 0, frames: frames, channels: channels)
    }

    // MARK: Writing

    /// Stores a loop just built and returns it mapped from its file; nil (the caller keeps the loop it has) when it
    /// cannot be stored.
    ///
    /// With `syncLater` (a render, which must not spend its time waiting for the disk), the file is written and
    /// mapped at once, and synced and renamed over its name on a thread of the cache's own; `waitForStores`
    /// waits for those. The loop is played from the temporary file meanwhile: the same file, renamed or not.
    func store(_ loop: LoopBuffer, normalization: Float, key: String, outputRate: Int, syncLater: Bool = false)
        -> LoopBuffer?
    {
        let header = Header(
            key: key, channels: loop.channels, frames: loop.frames, sampleRate: outputRate,
            normalization: normalization)
        guard let bytes = header.bytes else { return nil }
        let final = path(key)
        let temporary = final + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        if let problem = LoopCache.makeDirectory(directory) {
            noteProblem(problem)
            return nil
        }
        let fd = Glibc.open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            noteProblem("cannot write \(directory): \(String(cString: strerror(errno)))")
            return nil
        }
        defer { close(fd) }
        let sampleBytes = loop.frames * loop.channels * 2
        let written = loop.withSamples { samples in
            LoopCache.writeAll(fd, bytes, count: bytes.count)
                && LoopCache.writeAll(fd, UnsafeRawPointer(samples.baseAddress!), count: sampleBytes)
        }
        let later = syncLater && written ? dup(fd) : -1
        guard written, later >= 0 || (!syncLater && finishStore(fd, temporary, final)) else {
            noteProblem("cannot write \(directory): \(String(cString: strerror(errno)))")
            unlink(temporary)
            return nil
        }
        if later >= 0 {
            syncing.async(group: syncs) { [self] in
                if !finishStore(later, temporary, final) {
                    noteProblem("cannot write \(directory): \(String(cString: strerror(errno)))")
                    unlink(temporary)
                }
                close(later)
            }
        }
        return LoopCache.map(
            fd: fd, bytes: LoopCache.headerBytes + sampleBytes, frames: loop.frames, channels: loop.channels,
            rate: outputRate)
    }

    /// Syncs a written file, renames it over its name and keeps the directory in its budget; false (errno set)
    /// when it cannot be synced or renamed.
    private func finishStore(_ fd: Int32, _ temporary: String, _ final: String) -> Bool {
        guard fsync(fd) == 0, rename(temporary, final) == 0 else { return false }
        counts.withLock { $0.stored += 1 }
        prune(keeping: final)
        return true
    }

    /// Waits until every store made with `syncLater` is synced and renamed (or has failed to be).
    public func waitForStores() { syncs.wait() }

    private func noteProblem(_ text: String) { counts.withLock { $0.problem = text } }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawPointer, count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = write(fd, bytes + done, count - done)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], count: Int) -> Bool {
        bytes.withUnsafeBytes { writeAll(fd, $0.baseAddress!, count: count) }
    }

    /// Creates the directory and its parents (0700); the reason when it cannot.
    static func makeDirectory(_ path: String) -> String? {
        var st = stat()
        if stat(path, &st) == 0 { return (st.st_mode & S_IFMT) == S_IFDIR ? nil : "\(path) is not a directory" }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            if let problem = makeDirectory(String(path[..<slash])) { return problem }
        }
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return nil }
        return "cannot create \(path): \(String(cString: strerror(errno)))"
    }

    // MARK: Pruning

    /// Keeps the directory under the budget, oldest used first; drops what was unused for the maximum age, and
    /// temporary files older than an hour (a load that was killed). Never the file just stored.
    func prune(keeping kept: String, now: Int = time(nil), budget: Int64 = LoopCache.budgetBytes) {
        guard let dir = opendir(directory) else { return }
        var files: [(path: String, used: Int, bytes: Int64)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".pcm") || name.hasSuffix(".tmp") else { continue }
            let path = directory + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, path != kept else { continue }
            let used = max(st.st_atim.tv_sec, st.st_mtim.tv_sec)
            if name.hasSuffix(".tmp") {
                if now - used > 3600 { unlink(path) }
                continue
            }
            if now - used > LoopCache.maximumAgeDays * 86_400 {
                unlink(path)
                continue
            }
            files.append((path, used, Int64(st.st_size)))
        }
        closedir(dir)
        var st = stat()
        var total = (stat(kept, &st) == 0 ? Int64(st.st_size) : 0) + files.reduce(0) { $0 + $1.bytes }
        for file in files.sorted(by: { $0.used < $1.used }) where total > budget {
            unlink(file.path)
            total -= file.bytes
        }
    }

    // MARK: The header

    /// The first page of a cache file: magic, format version, channels, frames, rate, normalization, the key's
    /// length and the key; the samples start at the next page.
    struct Header: Equatable {
        var key: String
        var channels: Int
        var frames: Int
        var sampleRate: Int
        var normalization: Float
        var version = LoopCache.formatVersion

        init(key: String, channels: Int, frames: Int, sampleRate: Int, normalization: Float) {
            self.key = key
            self.channels = channels
            self.frames = frames
            self.sampleRate = sampleRate
            self.normalization = normalization
        }

        /// Reads a header; nil when it is not one of this version.
        init?(_ bytes: [UInt8]) {
            guard bytes.count >= LoopCache.headerBytes, Array(bytes[0..<8]) == LoopCache.magic else { return nil }
            func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
            func u32(_ at: Int) -> UInt32 { UInt32(truncatingIfNeeded: u64(at) & 0xFFFF_FFFF) }
            version = u32(8)
            channels = Int(u32(12))
            frames = Int(truncatingIfNeeded: u64(16))
            sampleRate = Int(truncatingIfNeeded: u64(24))
            normalization = Float(bitPattern: u32(32))
            let keyLength = Int(u32(36))
            guard version == LoopCache.formatVersion, channels == 1 || channels == 2, frames > 0,
                frames < 1 << 40, sampleRate > 0, normalization.isFinite, keyLength > 0,
                keyLength <= LoopCache.headerBytes - 40
            else { return nil }
            guard let text = String(validating: bytes[40..<(40 + keyLength)], as: UTF8.self) else { return nil }
            key = text
        }

        /// The page as written; nil when the key does not fit in it.
        var bytes: [UInt8]? {
            let keyBytes = Array(key.utf8)
            guard keyBytes.count <= LoopCache.headerBytes - 40 else { return nil }
            var out = [UInt8](repeating: 0, count: LoopCache.headerBytes)
            out.replaceSubrange(0..<8, with: LoopCache.magic)
            func put(_ value: UInt64, at: Int, bytes n: Int) {
                for i in 0..<n { out[at + i] = UInt8(truncatingIfNeeded: value >> (8 * i)) }
            }
            put(UInt64(version), at: 8, bytes: 4)
            put(UInt64(channels), at: 12, bytes: 4)
            put(UInt64(frames), at: 16, bytes: 8)
            put(UInt64(sampleRate), at: 24, bytes: 8)
            put(UInt64(normalization.bitPattern), at: 32, bytes: 4)
            put(UInt64(keyBytes.count), at: 36, bytes: 4)
            out.replaceSubrange(40..<(40 + keyBytes.count), with: keyBytes)
            return out
        }
    }
}
