/// Reads `Decodable` values out of a `JournalJSON` value, so a journal's payloads reuse the `Codable` conformances
/// (and the checks in them) that exports already use. HumCore has no Foundation, hence no `JSONDecoder`.
struct JournalJSONDecoder: Decoder {
    let value: JournalJSON
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch(_ expected: String) -> DecodingError {
        .typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "expected \(expected)"))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch("an object") }
        return KeyedDecodingContainer(JournalKeyed<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch("an array") }
        return JournalUnkeyed(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { JournalSingle(decoder: self) }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .int(let i) = value, let v = T(exactly: i) else { throw mismatch("an integer for \(T.self)") }
        return v
    }

    func decodeDouble() throws -> Double {
        switch value {
        case .int(let i): return Double(i)
        case .decimal(let text):
            guard let d = Double(text), d.isFinite else { throw mismatch("a finite number") }
            return d
        default: throw mismatch("a number")
        }
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self {
            guard case .string(let s) = value else { throw mismatch("a string") }
            return s as! T
        }
        if T.self == Bool.self {
            guard case .bool(let b) = value else { throw mismatch("true or false") }
            return b as! T
        }
        if T.self == Int64.self { return try decodeInteger(Int64.self) as! T }
        if T.self == Int.self { return try decodeInteger(Int.self) as! T }
        if T.self == Int32.self { return try decodeInteger(Int32.self) as! T }
        if T.self == UInt64.self { return try decodeInteger(UInt64.self) as! T }
        if T.self == Double.self { return try decodeDouble() as! T }
        if T.self == Float.self { return Float(try decodeDouble()) as! T }
        return try T(from: self)
    }
}

struct JournalKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

struct JournalKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JournalJSON]
    let codingPath: [any CodingKey]
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    func child(_ key: Key) throws -> JournalJSONDecoder {
        guard let v = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        return JournalJSONDecoder(value: v, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { members[key.stringValue].map { $0 == .null } ?? true }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decode(T.self) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let v = members[key.stringValue], v != .null else { return nil }
        return try JournalJSONDecoder(value: v, codingPath: codingPath + [key]).decode(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try child(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        JournalJSONDecoder(value: .object(members), codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

struct JournalUnkeyed: UnkeyedDecodingContainer {
    let items: [JournalJSON]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func next() throws -> JournalJSONDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self, .init(codingPath: codingPath, debugDescription: "the array ends early"))
        }
        defer { currentIndex += 1 }
        return JournalJSONDecoder(
            value: items[currentIndex], codingPath: codingPath + [JournalKey(intValue: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(T.self) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

struct JournalSingle: SingleValueDecodingContainer {
    let decoder: JournalJSONDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    func decodeNil() -> Bool { decoder.value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(T.self) }
}
