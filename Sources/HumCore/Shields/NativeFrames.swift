/// The browsers' native messaging framing (`hum shield-host`, docs/shields.md "Sites"): each message is UTF-8 JSON
/// after its length, a 32-bit unsigned integer in the machine's own byte order. Pure: bytes in, frames out.
public enum NativeFrames {
    /// The largest message either side takes: the browsers refuse a host's message over 1 MB, and hum refuses the
    /// same from the browser (its own messages are tiny).
    public static let limit = 1024 * 1024

    /// `payload` with its length before it, or nil when it is over the limit.
    public static func encode(_ payload: [UInt8]) -> [UInt8]? {
        guard payload.count <= limit else { return nil }
        return withUnsafeBytes(of: UInt32(payload.count)) { Array($0) } + payload
    }

    /// What the reader found in the bytes fed to it so far.
    public enum Event: Equatable, Sendable {
        /// A whole message's payload.
        case message([UInt8])
        /// A message announced with this many bytes, over the limit: its bytes are skipped as they come, unread.
        case tooLarge(UInt32)
    }

    /// Cuts a byte stream into messages. Never buffers more than the limit: an oversized message is reported once,
    /// at its header, and its bytes are dropped as they arrive, so the next frame is read as it should be.
    public struct Reader: Sendable {
        private var buffer: [UInt8] = []
        private var skipping = 0
        public init() {}

        /// True when the stream stopped inside a frame (a header or payload not whole).
        public var isMidFrame: Bool { !buffer.isEmpty || skipping > 0 }

        public mutating func feed(_ bytes: some Collection<UInt8>) -> [Event] {
            var events: [Event] = []
            var input = ArraySlice(bytes)
            while !input.isEmpty {
                if skipping > 0 {
                    let n = min(skipping, input.count)
                    input = input.dropFirst(n)
                    skipping -= n
                    continue
                }
                buffer.append(contentsOf: input)
                input = []
                while buffer.count >= 4 {
                    let length = buffer.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                    if Int(length) > NativeFrames.limit {
                        events.append(.tooLarge(length))
                        let rest = buffer.dropFirst(4)
                        buffer = []
                        skipping = Int(length)
                        input = rest
                        break
                    }
                    guard buffer.count >= 4 + Int(length) else { break }
                    events.append(.message(Array(buffer[4..<(4 + Int(length))])))
                    buffer.removeFirst(4 + Int(length))
                }
            }
            return events
        }
    }
}
