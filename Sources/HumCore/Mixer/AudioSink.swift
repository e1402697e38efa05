/// Where the engine sends the mix: an audio device, or a memory buffer in tests.
///
/// Contract:
/// - `open()` negotiates the format and fixes `sampleRate` and `periodFrames`; it may be called again after
///   `close()` (the engine reopens a device that went away). It throws `AudioSinkError` with a message for people.
/// - `write` takes interleaved stereo float and blocks until the device accepted it (pacing playback). It must not
///   allocate or lock: it runs on the audio thread. It recovers from an underrun by itself and says so.
/// - `finish()` lets what was written play out (bounded in time), then stops the device. `close()` releases it.
public protocol AudioSink: AnyObject, SendableMetatype {
    var sampleRate: Int { get }
    var periodFrames: Int { get }
    func open() throws(AudioSinkError)
    func write(_ frames: UnsafePointer<Float>, count: Int) -> AudioSinkWriteResult
    func finish()
    func close()
}

public enum AudioSinkWriteResult: Equatable, Sendable {
    case written
    /// The device had run dry (or was suspended); it was recovered and the frames were written.
    case recovered
    /// The device went away; `code` is the negative errno of the failed call.
    case lost(code: Int32)
}

public struct AudioSinkError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// An in-memory sink for tests: keeps what it is given, and can be told to fail on chosen writes.
public final class MemorySink: AudioSink, @unchecked Sendable {
    // @unchecked: used from one thread at a time (the engine's), then read after the engine stopped.
    public let sampleRate: Int
    public let periodFrames: Int
    public private(set) var samples: [Float] = []
    public private(set) var opens = 0
    public private(set) var finished = false
    /// Write numbers (counted from 0) that report `.lost`, and that report `.recovered`.
    public var loseOnWrites: Set<Int> = []
    public var underrunOnWrites: Set<Int> = []
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
        return underrunOnWrites.contains(writes) ? .recovered : .written
    }

    public func finish() { finished = true }
    public func close() {}
}
