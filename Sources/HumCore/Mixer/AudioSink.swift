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
