import HumCore

#if canImport(Glibc)
    import Glibc
#endif

/// Memory for the samples of a loop while it is being built, mapped from the kernel and handed over to a
/// `SampleStorage` when done.
///
/// Mapped rather than allocated with malloc because loops are large and few: the memory goes back to the system
/// the moment a loop is freed (malloc may keep it, and does after its mmap threshold has grown). A large one is
/// aligned and advised to use 2 MB pages (where the system allows them on request): one page fault per 2 MB
/// instead of one per 4 KB while the decoder first writes them, and fewer TLB misses while the mixer reads them.
/// Anonymous memory while the loop is built. A finished loop may then move to a file mapping (`LoopCache`): there
/// the audio thread could meet a page that is not mapped, and wait for it (from the disk if the kernel dropped it),
/// so a mapped loop is only read behind `LoopPager`, which keeps the next seconds of every voice locked in (or at
/// least touched) from another thread and gives the rest back. Without the cache the loop stays here, anonymous
/// and whole: nothing can wait on a disk, at the price of all its pages counted as the player's memory.
final class SampleMemory {
    private(set) var base: UnsafeMutablePointer<Int16>
    /// Capacity in samples.
    private(set) var capacity: Int
    private var mappedBytes: Int
    private let path: String

    static let pageBytes = Int(sysconf(Int32(_SC_PAGESIZE)))
    static let hugePageBytes = 2 << 20

    /// - Parameter path: the file being loaded, named if memory runs out.
    init(samples: Int, path: String) throws(AudioFileError) {
        self.path = path
        (base, mappedBytes) = try Self.map(samples: samples, path: path)
        capacity = mappedBytes / 2
    }

    deinit {
        if mappedBytes > 0 { munmap(base, mappedBytes) }
    }

    /// Makes room for `samples` samples, keeping what was written: a new mapping, at least `growingBy` larger.
    func reserve(_ samples: Int, growingBy step: Int = 0) throws(AudioFileError) {
        guard samples > capacity else { return }
        let (newBase, newBytes) = try Self.map(samples: max(samples, capacity + step), path: path)
        newBase.update(from: base, count: capacity)
        munmap(base, mappedBytes)
        base = newBase
        mappedBytes = newBytes
        capacity = newBytes / 2
    }

    /// Hands the first `count` samples over to a storage object (which unmaps them when freed); the pages past
    /// them are given back now.
    func finish(count: Int) -> SampleStorage {
        let used = Self.roundUp(max(count * 2, 1), to: Self.pageBytes)
        if used < mappedBytes {
            munmap(UnsafeMutableRawPointer(base) + used, mappedBytes - used)
        }
        let bytes = min(used, mappedBytes)
        mappedBytes = 0
        return SampleStorage(adopting: base, count: count) { base, _ in munmap(base, bytes) }
    }

    /// Gives the pages that lie wholly within samples [from, to) of a storage made by `finish` back to the system
    /// (reading them afterwards gives zeros): for parts of a decoded sound that are no longer needed while the rest
    /// of it is still in use.
    static func discard(_ storage: SampleStorage, from: Int, to: Int) {
        let base = Int(bitPattern: storage.base)
        let start = roundUp(base + max(0, from) * 2, to: pageBytes)
        let end = (base + min(to, storage.count) * 2) / pageBytes * pageBytes
        if end > start { madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_DONTNEED) }
    }

    private static func roundUp(_ n: Int, to unit: Int) -> Int { (n + unit - 1) / unit * unit }

    private static func map(samples: Int, path: String) throws(AudioFileError) -> (UnsafeMutablePointer<Int16>, Int) {
        let bytes = roundUp(max(samples * 2, 1), to: pageBytes)
        // Large mappings start on a 2 MB boundary (over-map, then unmap the slack), so huge pages can back them.
        let huge = bytes >= hugePageBytes
        let request = huge ? bytes + hugePageBytes : bytes
        let raw = mmap(nil, request, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let raw, raw != MAP_FAILED else {
            throw AudioFileError(path: path, reason: "not enough memory to load it (\(bytes >> 20) MB)")
        }
        var start = raw
        if huge {
            let address = Int(bitPattern: raw)
            let aligned = roundUp(address, to: hugePageBytes)
            if aligned > address { munmap(raw, aligned - address) }
            let end = address + request
            let used = aligned + bytes
            if end > used { munmap(UnsafeMutableRawPointer(bitPattern: used), end - used) }
            start = UnsafeMutableRawPointer(bitPattern: aligned)!
            madvise(start, bytes, MADV_HUGEPAGE)
        }
        return (start.bindMemory(to: Int16.self, capacity: bytes / 2), bytes)
    }
}
