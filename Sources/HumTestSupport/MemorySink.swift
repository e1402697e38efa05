import HumCore

/// An in-memory sink for tests: keeps what it is given, and can be told to fail on chosen writes.
public final class MemorySink: AudioSink, @unchecked Sendable {
    // @unchecked: used from one thread at a time (the engine's), then read after the engine stopped.
    public let sampleRate: Int
    public let periodFrames: Int
    public private(set) var samples: [Float] = []
    public private(set) var opens = 0
    public private(set) var finished = false
    /// Write numbers (counted from 0) that report `.lost`; and that report `.recovered`, with how many underruns.
    public var loseOnWrites: Set<Int> = []
    public var underrunOnWrites: [Int: Int] = [:]
    /// Opens (counted from 0) that fail, to simulate a device that is not back yet.
    public var failOpens: Set<Int> = []
    private var writes = 0

    public init(sampleRate: Int = 48000, periodFrames: Int = 960, capacityFrames: Int = 0) {
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        samples.reserveCapacity(capacityFrames * 2)
    }

    public func open() throws(AudioSinkError) {
        defer { opens += 1 }
        if failOpens.contains(opens) { throw AudioSinkError("memory sink: open \(opens) fails by request") }
    }

    public func write(_ frames: UnsafePointer<Float>, count: Int) -> AudioSinkWriteResult {
        defer { writes += 1 }
        if loseOnWrites.contains(writes) { return .lost(code: -19) }
        samples.append(contentsOf: UnsafeBufferPointer(start: frames, count: count * 2))
        return underrunOnWrites[writes].map { .recovered(underruns: $0) } ?? .written
    }

    public func finish() { finished = true }
    public func close() {}
}
