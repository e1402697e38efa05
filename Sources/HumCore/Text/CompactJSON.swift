/// A streaming JSON encoder for `Encodable` values: compact output (no spaces), keys in the order the type encodes
/// them, straight into a byte buffer. It exists for exports of hundreds of thousands of records, where building
/// Foundation's intermediate tree dominates the time; decoding still goes through Foundation's JSONDecoder.
///
/// Supports everything Codable's synthesized conformances use, a type encoding several containers into one encoder
/// (their keys are merged into one object), and nested containers. Non-finite doubles throw.
public struct CompactJSONEncoder: Sendable {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try encode(value, into: &bytes)
        return bytes
    }

    /// Appends the encoding of `value` to `bytes`.
    public func encode<T: Encodable>(_ value: T, into bytes: inout [UInt8]) throws {
        let writer = JSONByteWriter()
        swap(&writer.bytes, &bytes)
        defer { swap(&writer.bytes, &bytes) }
        try writer.encodeValue(value, codingPath: [])
    }
}

final class JSONByteWriter {
    // Unchecked: only the encoder touches it, one call at a time; the dynamic checks cost a fifth of the time.
    @exclusivity(unchecked) var bytes: [UInt8] = []

    @inline(__always) func byte(_ b: UInt8) { bytes.append(b) }

    func string(_ s: String) { Self.appendString(s, to: &bytes) }

    /// Appends `s` as a JSON string, escaped the one way hum escapes: `"`, `\\`, `\n`, `\r`, `\t` by their short
    /// escapes, the other control characters as `\u00xx` (lower-case hex), everything else as its UTF-8 bytes.
    /// The journal's canonical form (`JournalJSON`) is this escaping.
    static func appendString(_ s: String, to bytes: inout [UInt8]) {
        bytes.append(0x22)
        var s = s
        s.withUTF8 { utf8 in
            var start = 0
            for i in 0..<utf8.count {
                let c = utf8[i]
                if c >= 0x20 && c != 0x22 && c != 0x5C { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                switch c {
                case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
                case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
                default:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 15)]])
                }
                start = i + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        bytes.append(0x22)
    }

    func integer<I: BinaryInteger>(_ value: I) { Self.appendInteger(value, to: &bytes) }

    /// Appends an integer as plain decimal digits (a minus sign when negative, no leading zeros).
    static func appendInteger<I: BinaryInteger>(_ value: I, to bytes: inout [UInt8]) {
        if value == 0 {
            bytes.append(0x30)
            return
        }
        var magnitude = UInt64(value.magnitude)
        if value < 0 { bytes.append(0x2D) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { raw in
            while magnitude > 0 {
                raw[23 - count] = 0x30 + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            bytes.append(contentsOf: raw[(24 - count)...])
        }
    }

    func double(_ value: Double, codingPath: [any CodingKey]) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "JSON has no \(value)"))
        }
        if value == value.rounded(), abs(value) < 1e15 {
            integer(Int64(value))
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    /// Encodes any value: primitives directly, everything else through its `encode(to:)`.
    func encodeValue<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
        // Metatype comparisons, not dynamic casts: most values are structs that go straight to `encode(to:)`.
        func read<U>(_ type: U.Type) -> U {
            withUnsafePointer(to: value) { $0.withMemoryRebound(to: U.self, capacity: 1) { $0.pointee } }
        }
        if T.self == String.self {
            string(read(String.self))
        } else if T.self == Int64.self {
            integer(read(Int64.self))
        } else if T.self == Int.self {
            integer(read(Int.self))
        } else if T.self == Int32.self {
            integer(read(Int32.self))
        } else if T.self == UInt64.self {
            integer(read(UInt64.self))
        } else if T.self == Bool.self {
            bytes.append(contentsOf: read(Bool.self) ? Array("true".utf8) : Array("false".utf8))
        } else if T.self == Double.self {
            try double(read(Double.self), codingPath: codingPath)
        } else if T.self == Float.self {
            try double(Double(read(Float.self)), codingPath: codingPath)
        } else {
            let encoder = StreamingEncoder(writer: self, codingPath: codingPath)
            try value.encode(to: encoder)
            encoder.finish()
        }
    }
}

/// One level of the value being written: becomes an object, an array or a single value on first use.
final class StreamingEncoder: Encoder {
    enum State { case empty, object, array, single }
    let writer: JSONByteWriter
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var state: State = .empty
    var count = 0
    /// A nested container still open, closed before this level writes again.
    var openChild: StreamingEncoder? = nil

    init(writer: JSONByteWriter, codingPath: [any CodingKey]) {
        self.writer = writer
        self.codingPath = codingPath
    }

    func closeChild() {
        if let child = openChild {
            child.finish()
            openChild = nil
        }
    }

    /// Ends this level: closes what it opened; a value that encoded nothing is `{}`.
    func finish() {
        closeChild()
        switch state {
        case .empty: writer.bytes.append(contentsOf: [0x7B, 0x7D])
        case .object: writer.byte(0x7D)
        case .array: writer.byte(0x5D)
        case .single: break
        }
    }

    func startElement() {
        closeChild()
        if count > 0 { writer.byte(0x2C) }
        count += 1
    }

    func key(_ key: any CodingKey) {
        if state == .empty {
            state = .object
            writer.byte(0x7B)
        }
        startElement()
        writer.string(key.stringValue)
        writer.byte(0x3A)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedStream<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if state == .empty {
            state = .array
            writer.byte(0x5B)
        }
        return UnkeyedStream(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleStream(encoder: self) }

    func nested(at key: (any CodingKey)?) -> StreamingEncoder {
        if let key { self.key(key) } else { startElement() }
        let child = StreamingEncoder(writer: writer, codingPath: codingPath + (key.map { [$0] } ?? []))
        openChild = child
        return child
    }
}

struct KeyedStream<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: StreamingEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    func encodeNil(forKey key: Key) throws {
        encoder.key(key)
        encoder.writer.bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoder.key(key)
        try encoder.writer.encodeValue(value, codingPath: encoder.codingPath + [key])
    }
    // Concrete overloads: no dynamic cast for the common primitives.
    func encode(_ value: String, forKey key: Key) throws {
        encoder.key(key)
        encoder.writer.string(value)
    }
    func encode(_ value: Int, forKey key: Key) throws {
        encoder.key(key)
        encoder.writer.integer(value)
    }
    func encode(_ value: Int64, forKey key: Key) throws {
        encoder.key(key)
        encoder.writer.integer(value)
    }
    func encode(_ value: Int32, forKey key: Key) throws {
        encoder.key(key)
        encoder.writer.integer(value)
    }
    func encode(_ value: Bool, forKey key: Key) throws {
        encoder.key(key)
        encoder.writer.bytes.append(contentsOf: value ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6C, 0x73, 0x65])
    }
    func encode(_ value: Double, forKey key: Key) throws {
        encoder.key(key)
        try encoder.writer.double(value, codingPath: encoder.codingPath + [key])
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.nested(at: key).container(keyedBy: keyType)
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.nested(at: key).unkeyedContainer()
    }
    func superEncoder() -> any Encoder { encoder.nested(at: Key(stringValue: "super")) }
    func superEncoder(forKey key: Key) -> any Encoder { encoder.nested(at: key) }
}

struct UnkeyedStream: UnkeyedEncodingContainer {
    let encoder: StreamingEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.count }

    func encodeNil() throws {
        encoder.startElement()
        encoder.writer.bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }
    func encode(_ value: String) throws {
        encoder.startElement()
        encoder.writer.string(value)
    }
    func encode(_ value: Int64) throws {
        encoder.startElement()
        encoder.writer.integer(value)
    }
    func encode<T: Encodable>(_ value: T) throws {
        encoder.startElement()
        try encoder.writer.encodeValue(value, codingPath: encoder.codingPath)
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        encoder.nested(at: nil).container(keyedBy: keyType)
    }
    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { encoder.nested(at: nil).unkeyedContainer() }
    func superEncoder() -> any Encoder { encoder.nested(at: nil) }
}

struct SingleStream: SingleValueEncodingContainer {
    let encoder: StreamingEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    func encodeNil() throws {
        encoder.state = .single
        encoder.writer.bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }
    func encode(_ value: String) throws {
        encoder.state = .single
        encoder.writer.string(value)
    }
    func encode(_ value: Int64) throws {
        encoder.state = .single
        encoder.writer.integer(value)
    }
    func encode<T: Encodable>(_ value: T) throws {
        encoder.state = .single
        try encoder.writer.encodeValue(value, codingPath: encoder.codingPath)
    }
}
