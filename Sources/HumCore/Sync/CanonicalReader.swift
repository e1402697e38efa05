/// Reads JSON in the journal's canonical form (`JournalJSON`) straight from a line's bytes, without building a value:
/// the fast path of `JournalLine.parse`. Each read takes only the one form `JournalJSON` writes (a string escaped as
/// `JSONByteWriter.appendString` escapes, an integer without leading zeros or `-0`) and says nil for anything else;
/// the caller then reads the line the general way (`JournalJSONParser`), which says what is wrong with it. So this
/// reader may refuse more than the general one, never accept more.
struct CanonicalReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var at = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool { at == bytes.count }

    /// Takes `text` if the bytes go on with it.
    mutating func take(_ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard bytes.count - at >= n else { return false }
        let base = text.utf8Start
        for i in 0..<n where bytes[at + i] != base[i] { return false }
        at += n
        return true
    }

    /// Takes `text` written as a canonical string (`"` and its UTF-8 bytes and `"`, or its escaped form when it
    /// holds characters to escape): exactly when `string()` would read `text` here, without making a string.
    mutating func take(string text: String) -> Bool {
        let matched: Bool? =
            text.utf8.withContiguousStorageIfAvailable { utf8 in
                // Only a string with nothing to escape is written as its bytes; any other goes the general way below.
                guard !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return nil }
                let n = utf8.count
                guard bytes.count - at >= n + 2, bytes[at] == 0x22, bytes[at + n + 1] == 0x22 else { return false }
                for i in 0..<n where bytes[at + 1 + i] != utf8[i] { return false }
                at += n + 2
                return true
            } ?? nil
        if let matched { return matched }
        let start = at
        if string() == text { return true }
        at = start
        return false
    }

    /// Takes the first of `members` (each `"name":`, in their canonical order) after index `last` that the bytes go
    /// on with, and says its index: what reading the member's name as a string and finding it among the names after
    /// `last` gives (names without characters to escape), without making a string.
    mutating func member(of members: [[UInt8]], after last: Int) -> Int? {
        guard last + 1 < members.count else { return nil }
        for index in (last + 1)..<members.count {
            let name = members[index]
            let n = name.count
            guard bytes.count - at >= n else { continue }
            var same = true
            for i in 0..<n where bytes[at + i] != name[i] {
                same = false
                break
            }
            if same {
                at += n
                return index
            }
        }
        return nil
    }

    /// The bytes of a string that holds no escape (and no control character), between its quotes; nil for any other
    /// value. For values that are ASCII when canonical (a timestamp): the caller checks the bytes' form.
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        guard at < bytes.count, bytes[at] == 0x22 else { return nil }
        var i = at + 1
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x22 {
                let text = UnsafeBufferPointer(rebasing: bytes[(at + 1)..<i])
                at = i + 1
                return text
            }
            if c < 0x20 || c == 0x5C { return nil }
            i += 1
        }
        return nil
    }

    /// A canonical string, its bytes checked to be UTF-8.
    mutating func string() -> String? {
        guard at < bytes.count, bytes[at] == 0x22 else { return nil }
        var i = at + 1
        let start = i
        var ascii = true
        while i < bytes.count {
            let c = bytes[i]
            if c == 0x22 {
                // ASCII is UTF-8 as it stands: only a string with other bytes needs checking.
                let run = UnsafeBufferPointer(rebasing: bytes[start..<i])
                let text = ascii ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self)
                at = i + 1
                return text
            }
            if c < 0x20 { return nil }
            if c >= 0x80 { ascii = false }
            if c == 0x5C { return escapedString(from: start) }
            i += 1
        }
        return nil
    }

    /// A canonical string with escapes in it, from its first byte.
    private mutating func escapedString(from start: Int) -> String? {
        var out: [UInt8] = []
        var i = start
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            if c == 0x22 {
                at = i
                return String(validating: out, as: UTF8.self)
            }
            if c < 0x20 { return nil }
            guard c == 0x5C else {
                out.append(c)
                continue
            }
            guard i < bytes.count else { return nil }
            let e = bytes[i]
            i += 1
            switch e {
            case 0x22, 0x5C: out.append(e)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                // Only the control characters without a short escape, as `\u00xx` in lower case.
                guard i + 4 <= bytes.count, bytes[i] == 0x30, bytes[i + 1] == 0x30,
                    let high = Self.lowerHex(bytes[i + 2]), high <= 1, let low = Self.lowerHex(bytes[i + 3])
                else { return nil }
                let scalar = high << 4 | low
                guard scalar != 0x0A, scalar != 0x0D, scalar != 0x09 else { return nil }
                out.append(scalar)
                i += 4
            default: return nil
            }
        }
        return nil
    }

    private static func lowerHex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }

    /// A canonical integer within Int64: `0`, or an optional minus and digits without a leading zero (never `-0`).
    mutating func integer() -> Int64? {
        var i = at
        let negative = i < bytes.count && bytes[i] == 0x2D
        if negative { i += 1 }
        let first = i
        var magnitude: UInt64 = 0
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[i] - 0x30))
            guard !o1, !o2 else { return nil }
            magnitude = sum
            i += 1
        }
        guard i > first, i - first == 1 || bytes[first] != 0x30, !(negative && magnitude == 0) else { return nil }
        if i < bytes.count, bytes[i] == 0x2E || bytes[i] == 0x65 || bytes[i] == 0x45 { return nil }
        let value: Int64
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            value = magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)
        } else {
            guard magnitude <= UInt64(Int64.max) else { return nil }
            value = Int64(magnitude)
        }
        at = i
        return value
    }

    /// `true` or `false`.
    mutating func bool() -> Bool? {
        if take("true") { return true }
        if take("false") { return false }
        return nil
    }

    /// Steps over one value of any kind, without checking it beyond finding where it ends (strings, their escapes,
    /// brackets): the caller compares the bytes stepped over with a canonical writing. Nil when the value is not
    /// closed, or nests deeper than `depthLimit`.
    mutating func skipValue(depthLimit: Int) -> Range<Int>? {
        let start = at
        var i = at
        var depth = 0
        repeat {
            guard i < bytes.count else { return nil }
            switch bytes[i] {
            case 0x22:
                i += 1
                while i < bytes.count, bytes[i] != 0x22 { i += bytes[i] == 0x5C ? 2 : 1 }
                guard i < bytes.count else { return nil }
                i += 1
            case 0x7B, 0x5B:
                depth += 1
                guard depth <= depthLimit else { return nil }
                i += 1
            case 0x7D, 0x5D:
                depth -= 1
                guard depth >= 0 else { return nil }
                i += 1
            default:
                // A number or a literal: up to the next delimiter.
                while i < bytes.count, ![0x2C, 0x7D, 0x5D, 0x22, 0x7B, 0x5B].contains(bytes[i]) { i += 1 }
            }
            if depth > 0, i < bytes.count, bytes[i] == 0x2C || bytes[i] == 0x3A { i += 1 }
        } while depth > 0
        guard i > start else { return nil }
        at = i
        return start..<i
    }
}
