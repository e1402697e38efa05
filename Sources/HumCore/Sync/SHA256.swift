/// SHA-256 (FIPS 180-4), in plain Swift: HumCore links no C, and the toolchain on Linux ships no CryptoKit. It
/// chains the lines of a sync journal, so a line edited by hand, or cut, is noticed; it is not used for secrets.
public struct SHA256: Sendable {
    private var state = State()
    /// The bytes of a block not yet complete (fewer than 64).
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    public init() { buffer.reserveCapacity(64) }

    /// The digest of `bytes`, as 32 bytes.
    public static func digest<S: Sequence>(_ bytes: S) -> [UInt8] where S.Element == UInt8 {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finish()
    }

    /// The digest of `bytes` as 64 lower-case hexadecimal digits.
    public static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        hexText(digest(bytes))
    }

    /// The digest of `a` followed by `b` as 64 lower-case hexadecimal digits: one line of a journal without its
    /// `hash` member, hashed where it lies. Whole blocks are compressed from the caller's bytes, and the block across
    /// the two parts and the padding go through one buffer on the stack: nothing is allocated but the result.
    public static func hex(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> String {
        var state = State()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer in
            let block = buffer.baseAddress!
            var filled = 0
            func feed(_ part: UnsafeBufferPointer<UInt8>) {
                guard let base = part.baseAddress else { return }
                var at = 0
                if filled > 0 {
                    at = min(64 - filled, part.count)
                    (block + filled).update(from: base, count: at)
                    filled += at
                    guard filled == 64 else { return }
                    state.compress(block)
                    filled = 0
                }
                while part.count - at >= 64 {
                    state.compress(base + at)
                    at += 64
                }
                if at < part.count {
                    block.update(from: base + at, count: part.count - at)
                    filled = part.count - at
                }
            }
            feed(a)
            feed(b)
            // The padding: 0x80, zeros, and the length in bits as a big-endian 64-bit number, in one or two blocks.
            let end = filled < 56 ? 64 : 128
            block[filled] = 0x80
            (block + filled + 1).update(repeating: 0, count: end - 8 - filled - 1)
            let bits = UInt64(a.count + b.count) &* 8
            for i in 0..<8 { block[end - 8 + i] = UInt8(truncatingIfNeeded: bits >> (56 - 8 * UInt64(i))) }
            state.compress(block)
            if end == 128 { state.compress(block + 64) }
        }
        let words = (state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h)
        return String(unsafeUninitializedCapacity: 64) { out in
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { digits in
                withUnsafeBytes(of: words) { raw in
                    for i in 0..<8 {
                        let word = raw.load(fromByteOffset: 4 * i, as: UInt32.self)
                        for j in 0..<8 { out[8 * i + j] = digits[Int((word >> (28 - 4 * UInt32(j))) & 15)] }
                    }
                }
            }
            return 64
        }
    }

    public static func hexText(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { digits in
                for (i, b) in bytes.enumerated() {
                    out[2 * i] = digits[Int(b >> 4)]
                    out[2 * i + 1] = digits[Int(b & 15)]
                }
            }
            return bytes.count * 2
        }
    }

    public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(contiguous: $0) }
        if done == nil { Array(bytes).withUnsafeBufferPointer { update(contiguous: $0) } }
    }

    /// Whole blocks straight from the caller's bytes; only a block's head or tail goes through `buffer`.
    private mutating func update(contiguous bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        length &+= UInt64(bytes.count)
        var at = 0
        if !buffer.isEmpty {
            at = min(64 - buffer.count, bytes.count)
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<at]))
            guard buffer.count == 64 else { return }
            let block = buffer
            block.withUnsafeBufferPointer { state.compress($0.baseAddress!) }
            buffer.removeAll(keepingCapacity: true)
        }
        while bytes.count - at >= 64 {
            state.compress(base + at)
            at += 64
        }
        if at < bytes.count { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[at...])) }
    }

    /// The digest; the value must not be updated afterwards.
    public mutating func finish() -> [UInt8] {
        let bits = length &* 8
        var tail = buffer
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
        tail.withUnsafeBufferPointer { tail in
            for block in stride(from: 0, to: tail.count, by: 64) { state.compress(tail.baseAddress! + block) }
        }
        buffer.removeAll()
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in state.words {
            for shift in [24, 16, 8, 0] as [UInt32] { out.append(UInt8(truncatingIfNeeded: word >> shift)) }
        }
        return out
    }

    /// The eight working words, compressed one 64-byte block at a time.
    private struct State: Sendable {
        var a: UInt32 = 0x6a09_e667, b: UInt32 = 0xbb67_ae85, c: UInt32 = 0x3c6e_f372, d: UInt32 = 0xa54f_f53a
        var e: UInt32 = 0x510e_527f, f: UInt32 = 0x9b05_688c, g: UInt32 = 0x1f83_d9ab, h: UInt32 = 0x5be0_cd19

        var words: [UInt32] { [a, b, c, d, e, f, g, h] }

        @inline(__always) static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

        mutating func compress(_ block: UnsafePointer<UInt8>) {
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                for i in 0..<16 {
                    w[i] =
                        UInt32(block[4 * i]) << 24 | UInt32(block[4 * i + 1]) << 16 | UInt32(block[4 * i + 2]) << 8
                        | UInt32(block[4 * i + 3])
                }
                for i in 16..<64 {
                    let s0 = Self.rotr(w[i - 15], 7) ^ Self.rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                    let s1 = Self.rotr(w[i - 2], 17) ^ Self.rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                    w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                }
                var (a, b, c, d, e, f, g, h) = (self.a, self.b, self.c, self.d, self.e, self.f, self.g, self.h)
                SHA256.k.withUnsafeBufferPointer { k in
                    for i in 0..<64 {
                        let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
                        let ch = (e & f) ^ (~e & g)
                        let t1 = h &+ s1 &+ ch &+ k[i] &+ w[i]
                        let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
                        let maj = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = s0 &+ maj
                        (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                    }
                }
                self.a &+= a
                self.b &+= b
                self.c &+= c
                self.d &+= d
                self.e &+= e
                self.f &+= f
                self.g &+= g
                self.h &+= h
            }
        }
    }

    fileprivate static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}
