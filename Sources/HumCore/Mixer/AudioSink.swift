/// Where the engine sends the mix: an audio device, or a memory buffer in tests.
///
/// Contract:
/// - `open()` negotiates the format and fixes `sampleRate` and `periodFrames`; it may be called again after
///   `close()` (the engine reopens a device that went away). It throws `AudioSinkError` with a message for people.
/// - `awaitRoom()` waits until the device has room for a period (pacing playback), so the engine mixes a period
///   only when it can go out at once: a control read by that mix is heard after what is queued, not after that
///   plus a period held back by a blocked write. It returns `.written` when there is room (or a recoverable
///   underrun that `write` will recover), `.interrupted` or `.lost`, as `write` would. It must not allocate or lock.
/// - `write` takes interleaved stereo float and blocks until the device accepted it (pacing playback). It must not
///   allocate or lock: it runs on the audio thread. It recovers from an underrun by itself and says so. A device
///   that takes nothing for seconds is reported lost, so nothing waits for ever on audio that cannot play.
/// - `interrupt()` may be called from any thread: a `write` or `finish` under way (or the next) returns at once,
///   `write` with `.interrupted`. The engine calls it to abort.
/// - `hasBegunPlaying` says whether the device has started to consume what was written (not merely buffered it).
/// - `finish()` lets what was written play out (bounded in time), then stops the device. `close()` releases it.
public protocol AudioSink: AnyObject, SendableMetatype {
    var sampleRate: Int { get }
    var periodFrames: Int { get }
    func open() throws(AudioSinkError)
    func awaitRoom() -> AudioSinkWriteResult
    func write(_ frames: UnsafePointer<Float>, count: Int) -> AudioSinkWriteResult
    func finish()
    func close()
    func interrupt()
    var hasBegunPlaying: Bool { get }
}

extension AudioSink {
    /// A sink whose writes never wait always has room.
    public func awaitRoom() -> AudioSinkWriteResult { .written }
    /// A sink whose writes never wait has nothing to interrupt.
    public func interrupt() {}
    /// A sink that plays what it is given at once (a memory buffer) has begun as soon as it was written to.
    public var hasBegunPlaying: Bool { true }
}

public enum AudioSinkWriteResult: Equatable, Sendable {
    case written
    /// The device had run dry `underruns` times (or was suspended) since the last write; it was recovered and the
    /// frames were written. A sound server reports each time its stream ran dry, however close together.
    case recovered(underruns: Int)
    /// The device went away; `code` is the negative errno of the failed call (−ETIMEDOUT: it took nothing for
    /// seconds).
    case lost(code: Int32)
    /// `interrupt()` was called: the frames may be partly written, and the caller is stopping.
    case interrupted
}

public struct AudioSinkError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
