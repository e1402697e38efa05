import Dispatch

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Two blocks of samples handed back and forth between the thread that produces them and one that writes them:
/// one fills while the other is written.
final class WritePipeline: @unchecked Sendable {
    // @unchecked: each block belongs to one side at a time, handed over through the semaphores (which order the
    // memory accesses); the file is used only by the writing thread until `finish` has waited for it; `failure`
    // is written by the writing thread before it signals, and read by the producer after waiting.
    private let blocks: [UnsafeMutablePointer<Float>]
    /// Samples in each handed-over block; -1 tells the writing thread to stop.
    private let counts: UnsafeMutablePointer<Int>
    private let capacity: Int
    private let filled = DispatchSemaphore(value: 0)
    private let free = DispatchSemaphore(value: 1)
    private let stopped = DispatchSemaphore(value: 0)
    private let consume: (UnsafePointer<Float>, Int) -> AudioFileError?
    private var failure: AudioFileError?
    // The producer's side.
    private var current = 0
    private var fill = 0
    private var finished = false

    /// - Parameter consume: writes `count` samples; runs on the pipeline's thread.
    init(capacity: Int, consume: @escaping (UnsafePointer<Float>, Int) -> AudioFileError?) {
        self.capacity = capacity
        blocks = [.allocate(capacity: capacity), .allocate(capacity: capacity)]
        counts = .allocate(capacity: 2)
        counts.initialize(repeating: 0, count: 2)
        self.consume = consume
        NamedThread.start("hum-writer") { [self] in run() }
    }

    deinit {
        for block in blocks { block.deallocate() }
        counts.deallocate()
    }

    private func run() {
        var index = 0
        while true {
            filled.wait()
            let count = counts[index]
            if count < 0 { break }
            if failure == nil { failure = consume(blocks[index], count) }
            index ^= 1
            free.signal()
        }
        stopped.signal()
    }

    func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioFileError) {
        guard let base = samples.baseAddress else { return }
        var offset = 0
        while offset < samples.count {
            let n = min(capacity - fill, samples.count - offset)
            (blocks[current] + fill).update(from: base + offset, count: n)
            fill += n
            offset += n
            if fill == capacity { try handOver() }
        }
    }

    /// Lets the producer write in place, without a copy: `fill` gets the free part of the block being filled (at
    /// least `minimum` samples: a block with less left is handed over first) and returns how many samples it
    /// wrote there.
    func writeInPlace(minimum: Int, _ fill: (UnsafeMutablePointer<Float>, Int) -> Int) throws(AudioFileError) -> Int {
        precondition(minimum <= capacity)
        if capacity - self.fill < minimum { try handOver() }
        let n = fill(blocks[current] + self.fill, capacity - self.fill)
        self.fill += n
        if self.fill == capacity { try handOver() }
        return n
    }

    private func handOver() throws(AudioFileError) {
        counts[current] = fill
        filled.signal()
        current ^= 1
        fill = 0
        free.wait()  // the other block is written
        if let failure { throw failure }
    }

    /// Writes what is pending and stops the thread. Returns the first failure.
    func finish() -> AudioFileError? {
        guard !finished else { return failure }
        finished = true
        if fill > 0 {
            counts[current] = fill
            filled.signal()
            current ^= 1
            free.wait()
        }
        counts[current] = -1
        filled.signal()
        stopped.wait()
        return failure
    }
}
