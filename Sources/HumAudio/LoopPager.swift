import Dispatch
import HumCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Keeps resident the pages of mapped loops (`LoopCache`) that the playing voices will read soon, and gives back
/// the others, so a mix's memory is a few seconds per voice instead of its whole loops, while the audio thread
/// never waits for a page.
///
/// Once a second (on a thread of its own, `hum-pager`, at a lowered priority; never the audio thread) it reads
/// where each voice reads (`MixerControls.readings()`, published by the audio thread through atomics after each
/// block) and, for every mapped loop that a voice plays, wants the next `aheadSeconds` from each place the voice
/// reads from: where it is, the stretch coming in during a crossfade, and the place its next join will read from
/// (drawn one join ahead). Wanted pages are locked (`mlock`: a locked page is never reclaimed, so the audio thread
/// cannot meet a page the kernel dropped under memory pressure and must read from the disk); when the lock is
/// refused (`RLIMIT_MEMLOCK`, 8 MiB by default), they are touched instead, which maps them but leaves them
/// reclaimable. Every other page of that loop is unlocked and given back (`MADV_DONTNEED`: unmapped from hum, left
/// in the page cache). A mapped loop no voice plays yet (just loaded, waiting to enter) keeps what its loader
/// made resident, its first seconds.
public final class LoopPager: @unchecked Sendable {
    // @unchecked: `stopped` and the semaphore are thread-safe; the rest is immutable.

    /// How far ahead of each reading place pages are kept; how often they are brought up to date.
    public static let aheadSeconds = 4.0
    public static let periodSeconds = 1.0

    private let controls: MixerControls
    private let aheadFrames: Int
    private let horizonFrames: Int
    private let stopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let listener = Atomic<Int>(-1)

    public init(controls: MixerControls, sampleRate: Int) {
        self.controls = controls
        aheadFrames = Int(LoopPager.aheadSeconds * Double(sampleRate))
        // What may be read between two passes: a period, late by up to as much again.
        horizonFrames = Int(2 * LoopPager.periodSeconds * Double(sampleRate))
    }

    /// Starts the thread: a pass at once, then one a second while any loop is mapped (it sleeps otherwise, so a
    /// mix held in memory costs no wake-up).
    public func start() {
        let wake = self.wake
        listener.store(MappedLoops.shared.onRegister { wake.signal() }, ordering: .relaxed)
        NamedThread.start("hum-pager") { [self] in
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)  // this thread only, on Linux
            while !stopped.load(ordering: .acquiring) {
                pass()
                if MappedLoops.shared.isEmpty {
                    wake.wait()
                } else {
                    _ = wake.wait(timeout: .now() + LoopPager.periodSeconds)
                }
            }
        }
    }

    /// Ends the thread (within a pass).
    public func stop() {
        stopped.store(true, ordering: .releasing)
        MappedLoops.shared.removeListener(listener.load(ordering: .relaxed))
        wake.signal()
    }

    /// Why pages are touched rather than locked (the last `mlock` refused), nil when none was.
    public static var lockRefusal: String? {
        let code = MappedLoops.shared.lockRefused
        return code == 0 ? nil : "mlock: \(String(cString: strerror(code)))"
    }

    /// One pass: what the voices will read soon is made resident, what they will not is given back. Returns the
    /// pages kept resident (for tests).
    @discardableResult
    public func pass() -> Int {
        let readings = controls.readings()
        var kept = 0
        for loop in MappedLoops.shared.live() {
            let mine = readings.filter { loop.mapped.contains($0.address) }
            guard !mine.isEmpty else { continue }  // no voice plays it (yet): it keeps what it has
            var wanted = [Bool](repeating: false, count: loop.mapped.pages)
            for reading in mine {
                let frameBytes = reading.channels * 2
                let offset = Int(reading.address) - Int(bitPattern: loop.mapped.base)
                for window in reading.windows(ahead: aheadFrames, horizon: horizonFrames) {
                    loop.mapped.mark(
                        &wanted,
                        bytes: (offset + window.lowerBound * frameBytes)..<(offset + window.upperBound * frameBytes))
                }
            }
            kept += loop.mapped.keep(wanted)
            withExtendedLifetime(loop.storage) {}
        }
        return kept
    }
}

/// A loop's file mapping (`LoopCache`): its pages, which of them are kept resident and how.
final class MappedLoop: @unchecked Sendable {
    // @unchecked: `base`, `bytes` are immutable; the page states are behind `state`.
    let base: UnsafeMutableRawPointer
    let bytes: Int
    let pages: Int
    private let state: Mutex<[PageState]>

    enum PageState: UInt8 {
        case given, touched, locked
    }

    static let pageBytes = SampleMemory.pageBytes
    /// Added to by the pager's touching, so the compiler keeps the reads.
    static let touchSum = Atomic<UInt>(0)

    init(base: UnsafeMutableRawPointer, bytes: Int) {
        self.base = base
        self.bytes = bytes
        pages = (bytes + MappedLoop.pageBytes - 1) / MappedLoop.pageBytes
        state = Mutex([PageState](repeating: .given, count: pages))
    }

    /// Forgets the mapping and unmaps it (when its storage is freed: the pager holds no reference to it then).
    func unmap() {
        MappedLoops.shared.unregister(self)
        munmap(base, bytes)
    }

    func contains(_ address: UInt) -> Bool {
        let start = UInt(bitPattern: base)
        return address >= start && address < start + UInt(bytes)
    }

    /// Marks the pages holding bytes `range` of the mapping.
    func mark(_ wanted: inout [Bool], bytes range: Range<Int>) {
        let first = max(0, range.lowerBound / MappedLoop.pageBytes)
        let end = min(pages, (range.upperBound + MappedLoop.pageBytes - 1) / MappedLoop.pageBytes)
        guard first < end else { return }
        for p in first..<end { wanted[p] = true }
    }

    /// Makes the wanted pages resident (locked, else touched) and gives the others back. Returns the wanted count.
    @discardableResult
    func keep(_ wanted: [Bool]) -> Int {
        state.withLock { states in
            var count = 0
            var p = 0
            while p < pages {
                // A run of pages that are all wanted, or all not.
                let want = wanted[p]
                var end = p + 1
                while end < pages, wanted[end] == want { end += 1 }
                if want {
                    count += end - p
                    var q = p
                    while q < end {
                        var r = q + 1
                        while r < end, (states[r] == .locked) == (states[q] == .locked) { r += 1 }
                        if states[q] != .locked { resident(&states, q..<r) }
                        q = r
                    }
                } else {
                    let range = pointer(p)
                    if states[p..<end].contains(.locked) { munlock(range, (end - p) * MappedLoop.pageBytes) }
                    // Also pages the audio thread itself faulted in: every page not wanted goes.
                    madvise(range, (end - p) * MappedLoop.pageBytes, MADV_DONTNEED)
                    for i in p..<end { states[i] = .given }
                }
                p = end
            }
            return count
        }
    }

    /// Locks pages `range`, or touches them when the lock is refused.
    private func resident(_ states: inout [PageState], _ range: Range<Int>) {
        let length = min(range.count * MappedLoop.pageBytes, bytes - range.lowerBound * MappedLoop.pageBytes)
        if mlock(pointer(range.lowerBound), length) == 0 {
            for i in range { states[i] = .locked }
            return
        }
        MappedLoops.shared.noteLockRefused(errno)
        // Touched again at every pass: a touched page may have been reclaimed since (one read each, no fault when
        // it is still mapped).
        var sum: UInt = 0
        for i in range {
            sum &+= UInt(UnsafeRawPointer(pointer(i)).load(as: UInt8.self))
            states[i] = .touched
        }
        MappedLoop.touchSum.wrappingAdd(sum, ordering: .relaxed)
    }

    /// Makes the first `length` bytes resident now (the loader does, for the start of a loop no voice plays yet).
    func keepStart(bytes length: Int) {
        var wanted = [Bool](repeating: false, count: pages)
        mark(&wanted, bytes: 0..<length)
        state.withLock { states in
            var p = 0
            while p < pages, wanted[p] { p += 1 }
            if p > 0 { resident(&states, 0..<p) }
        }
    }

    private func pointer(_ page: Int) -> UnsafeMutableRawPointer { base + page * MappedLoop.pageBytes }
}

/// Every loop mapped from the cache in this process, for the pager. Weak: a loop is unmapped when its storage is
/// freed, which unregisters it first.
final class MappedLoops: @unchecked Sendable {
    // @unchecked: all state is behind `state`.
    static let shared = MappedLoops()

    private struct Entry {
        let mapped: MappedLoop
        weak var storage: SampleStorage?
    }

    private struct State {
        var entries: [Entry] = []
        var listeners: [Int: @Sendable () -> Void] = [:]
        var nextListener = 0
        var lockRefused: Int32 = 0
    }

    private let state = Mutex(State())

    func register(_ mapped: MappedLoop, storage: SampleStorage) {
        let listeners = state.withLock {
            $0.entries.append(Entry(mapped: mapped, storage: storage))
            return Array($0.listeners.values)
        }
        for listener in listeners { listener() }
    }

    func unregister(_ mapped: MappedLoop) {
        state.withLock { $0.entries.removeAll { $0.mapped === mapped } }
    }

    var isEmpty: Bool { state.withLock { $0.entries.isEmpty } }

    /// The mapped loops whose storage is alive, each with a strong reference that keeps it mapped while used.
    func live() -> [(mapped: MappedLoop, storage: SampleStorage)] {
        state.withLock { s in s.entries.compactMap { e in e.storage.map { (e.mapped, $0) } } }
    }

    /// Calls `listener` after each loop registered; returns its number, for `removeListener`.
    func onRegister(_ listener: @escaping @Sendable () -> Void) -> Int {
        state.withLock {
            $0.nextListener += 1
            $0.listeners[$0.nextListener] = listener
            return $0.nextListener
        }
    }

    func removeListener(_ number: Int) { _ = state.withLock { $0.listeners.removeValue(forKey: number) } }

    func noteLockRefused(_ code: Int32) { state.withLock { $0.lockRefused = code } }

    /// The errno of the last refused `mlock` (0: none refused): pages are then touched, not locked.
    var lockRefused: Int32 { state.withLock { $0.lockRefused } }
}
