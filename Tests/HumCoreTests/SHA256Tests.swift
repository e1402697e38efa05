import Testing

@testable import HumCore

/// The NIST test vectors (FIPS 180-4 examples and the CAVP short/long messages) and the padding edges.
@Suite struct SHA256Tests {
    static func hex(_ s: String) -> String { SHA256.hex(Array(s.utf8)) }

    @Test func nistVectors() {
        #expect(Self.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Self.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            Self.hex(
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"
            ) == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        #expect(
            SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SHA256.hex([0xbd]) == "68325720aabd7c82f30f554b313d0570c95accbb7dc4b5aae11204c08ffe732b")
        #expect(
            SHA256.hex([0xc9, 0x8c, 0x8e, 0x55])
                == "7abc22c0ae5af26ce93dbb94433a0e0b2e119d014f8e7f65bd56c61ccccd9504")
    }

    /// Lengths around the block and padding boundaries (55, 56, 63, 64, 65 bytes), fed whole and byte by byte.
    @Test func paddingEdgesAndIncrementalFeedingAgree() {
        let known: [Int: String] = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
        ]
        for n in [0, 1, 55, 56, 57, 63, 64, 65, 127, 128, 129] {
            let bytes = [UInt8](repeating: 0x61, count: n)
            var h = SHA256()
            for b in bytes { h.update([b]) }
            let whole = SHA256.hex(bytes)
            #expect(SHA256.hexText(h.finish()) == whole, "length \(n)")
            if let k = known[n] { #expect(whole == k, "length \(n)") }
        }
    }
    /// The two-part digest a journal line is checked with equals the digest of the two parts joined, for every
    /// split of every length around the block and padding boundaries.
    @Test func twoPartsHashAsOne() {
        for n in [0, 1, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 300] {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let whole = SHA256.hex(bytes)
            for split in 0...n {
                let two = bytes.withUnsafeBufferPointer { all in
                    SHA256.hex(
                        UnsafeBufferPointer(rebasing: all[..<split]), UnsafeBufferPointer(rebasing: all[split...]))
                }
                #expect(two == whole, "length \(n), split at \(split)")
            }
        }
        #expect(
            Array("ab".utf8).withUnsafeBufferPointer { ab in
                SHA256.hex(UnsafeBufferPointer(rebasing: ab[..<1]), UnsafeBufferPointer(rebasing: ab[1...]))
                    + Array("c".utf8).withUnsafeBufferPointer { c in SHA256.hex(ab, c) }
            } == Self.hex("ab") + "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
