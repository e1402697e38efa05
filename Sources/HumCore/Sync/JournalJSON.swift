/// A JSON value as a journal line holds it, written in one canonical form so that its bytes, and so its hash, depend
/// only on the value: object keys sorted by their UTF-8 bytes, no spaces, integers as plain digits, strings escaped
/// the one way `JSONByteWriter` escapes them. A number that is not whole (a volume of 33.5) keeps the text it was
/// written with, which Swift's shortest round-trip form makes unique.
public indirect enum JournalJSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    /// A number with a fraction or an exponent, as written.
    case decimal(String)
    case string(String)
    case array([JournalJSON])
    case object([String: JournalJSON])

    /// The canonical bytes of the value.
    public var canonicalBytes: [UInt8] {
        var out: [UInt8] = []
        write(into: &out)
        return out
    }

    public var canonicalText: String { String(decoding: canonicalBytes, as: UTF8.self) }

    func write(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: Array("null".utf8))
        case .bool(let b): out.append(contentsOf: Array((b ? "true" : "false").utf8))
        case .int(let i): JSONByteWriter.appendInteger(i, to: &out)
        case .decimal(let text): out.append(contentsOf: Array(text.utf8))
        case .string(let s): Self.writeString(s, into: &out)
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                item.write(into: &out)
            }
            out.append(0x5D)
        case .object(let members):
            out.append(0x7B)
            for (i, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if i > 0 { out.append(0x2C) }
                Self.writeString(key, into: &out)
                out.append(0x3A)
                members[key]?.write(into: &out)
            }
            out.append(0x7D)
        }
    }

    static func writeString(_ s: String, into out: inout [UInt8]) { JSONByteWriter.appendString(s, to: &out) }

    /// The member `key` of an object; nil for anything else or a missing key.
    public subscript(key: String) -> JournalJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var intValue: Int64? {
        if case .int(let i) = self { return i }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Any `Encodable` value as a journal value: written by `CompactJSONEncoder`, then read back.
    public static func encoding<T: Encodable>(_ value: T) throws -> JournalJSON {
        try JournalJSONParser.parse(try CompactJSONEncoder().encode(value))
    }

    /// A `Decodable` value read from this journal value (`JournalJSONDecoder`).
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try T(from: JournalJSONDecoder(value: self, codingPath: []))
    }
}

/// Why a line is not JSON.
public struct JournalJSONError: Error, Equatable, Sendable {
    public var offset: Int
    public var reason: String
}

/// A strict JSON reader (RFC 8259): one value, nothing after it, nesting at most 64 deep, no duplicate keys, integers
/// within Int64. Lines of a journal come from another machine through a file-sync tool, so nothing in them may
/// trap or grow without bound.
public struct JournalJSONParser {
    private let bytes: [UInt8]
    private var at = 0
    private var depth = 0

    public static func parse<C: Collection>(_ bytes: C) throws(JournalJSONError) -> JournalJSON
    where C.Element == UInt8 {
        var parser = JournalJSONParser(bytes: Array(bytes))
        let value = try parser.value()
        parser.skipSpace()
        guard parser.at == parser.bytes.count else { throw parser.fail("text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ reason: String) -> JournalJSONError { JournalJSONError(offset: at, reason: reason) }

    private mutating func skipSpace() {
        while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    private mutating func literal(_ word: String, _ value: JournalJSON) throws(JournalJSONError) -> JournalJSON {
        let w = Array(word.utf8)
        guard at + w.count <= bytes.count, Array(bytes[at..<at + w.count]) == w else { throw fail("not JSON") }
        at += w.count
        return value
    }

    private mutating func value() throws(JournalJSONError) -> JournalJSON {
        skipSpace()
        guard at < bytes.count else { throw fail("the line ends early") }
        switch bytes[at] {
        case 0x6E: return try literal("null", .null)
        case 0x74: return try literal("true", .bool(true))
        case 0x66: return try literal("false", .bool(false))
        case 0x22: return .string(try string())
        case 0x5B, 0x7B:
            depth += 1
            defer { depth -= 1 }
            guard depth <= 64 else { throw fail("nested too deep") }
            return bytes[at] == 0x5B ? try array() : try object()
        default: return try number()
        }
    }

    private mutating func array() throws(JournalJSONError) -> JournalJSON {
        at += 1
        var items: [JournalJSON] = []
        skipSpace()
        if at < bytes.count, bytes[at] == 0x5D {
            at += 1
            return .array(items)
        }
        while true {
            items.append(try value())
            skipSpace()
            guard at < bytes.count else { throw fail("the line ends early") }
            if bytes[at] == 0x5D {
                at += 1
                return .array(items)
            }
            guard bytes[at] == 0x2C else { throw fail("expected , or ]") }
            at += 1
        }
    }

    private mutating func object() throws(JournalJSONError) -> JournalJSON {
        at += 1
        var members: [String: JournalJSON] = [:]
        skipSpace()
        if at < bytes.count, bytes[at] == 0x7D {
            at += 1
            return .object(members)
        }
        while true {
            skipSpace()
            guard at < bytes.count, bytes[at] == 0x22 else { throw fail("expected a key") }
            let key = try string()
            skipSpace()
            guard at < bytes.count, bytes[at] == 0x3A else { throw fail("expected :") }
            at += 1
            guard members[key] == nil else { throw fail("the key \(key) twice") }
            members[key] = try value()
            skipSpace()
            guard at < bytes.count else { throw fail("the line ends early") }
            if bytes[at] == 0x7D {
                at += 1
                return .object(members)
            }
            guard bytes[at] == 0x2C else { throw fail("expected , or }") }
            at += 1
        }
    }

    private mutating func hex4() throws(JournalJSONError) -> UInt32 {
        guard at + 4 <= bytes.count else { throw fail("a short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[at]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            default: throw fail("a bad \\u escape")
            }
            v = v << 4 | d
            at += 1
        }
        return v
    }

    private mutating func string() throws(JournalJSONError) -> String {
        at += 1
        var out: [UInt8] = []
        while true {
            guard at < bytes.count else { throw fail("a string is not closed") }
            let c = bytes[at]
            at += 1
            if c == 0x22 { break }
            guard c >= 0x20 else { throw fail("a control character in a string") }
            guard c == 0x5C else {
                out.append(c)
                continue
            }
            guard at < bytes.count else { throw fail("a string is not closed") }
            let e = bytes[at]
            at += 1
            switch e {
            case 0x22, 0x5C, 0x2F: out.append(e)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard at + 2 <= bytes.count, bytes[at] == 0x5C, bytes[at + 1] == 0x75 else {
                        throw fail("a lone surrogate")
                    }
                    at += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("a lone surrogate") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: throw fail("a bad escape")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("a string that is not UTF-8") }
        return s
    }

    private mutating func number() throws(JournalJSONError) -> JournalJSON {
        let start = at
        func digits() -> Int {
            let from = at
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) { at += 1 }
            return at - from
        }
        if at < bytes.count, bytes[at] == 0x2D { at += 1 }
        let intStart = at
        let count = digits()
        guard count > 0 else { throw fail("not JSON") }
        guard count == 1 || bytes[intStart] != 0x30 else { throw fail("a number with a leading zero") }
        var whole = true
        if at < bytes.count, bytes[at] == 0x2E {
            at += 1
            whole = false
            guard digits() > 0 else { throw fail("a bad number") }
        }
        if at < bytes.count, bytes[at] == 0x65 || bytes[at] == 0x45 {
            at += 1
            whole = false
            if at < bytes.count, bytes[at] == 0x2B || bytes[at] == 0x2D { at += 1 }
            guard digits() > 0 else { throw fail("a bad number") }
        }
        let text = String(decoding: bytes[start..<at], as: UTF8.self)
        guard whole else { return .decimal(text) }
        guard let value = Int64(text) else { throw fail("an integer beyond 64 bits") }
        return .int(value)
    }
}
