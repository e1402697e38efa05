import Testing

@testable import HumCore

@Suite struct DurationTextTests {
    @Test(
        arguments: [
            ("90s", 90_000), ("25m", 1_500_000), ("1h", 3_600_000), ("1h30m", 5_400_000), ("1h30m15s", 5_415_000),
            ("25", 1_500_000), ("1.5h", 5_400_000), ("500ms", 500), ("1s", 1_000), ("0", 0), ("2min", 120_000),
        ] as [(String, Int64)])
    func parses(text: String, milliseconds: Int64) throws {
        #expect(try DurationText.parseMilliseconds(text) == milliseconds)
    }

    @Test(arguments: ["", "m", "10x", "1m1h", "5m5m", "-5m", "1.2.3s", ".5m", "5.m", "1 h", "h1", "25mm", "1e3s", "∞"])
    func rejects(text: String) {
        #expect(throws: DurationText.ParseError.self) { try DurationText.parseMilliseconds(text) }
    }

    @Test func rejectsAbsurdlyLarge() {
        #expect(throws: DurationText.ParseError.tooLarge("99999999h")) {
            try DurationText.parseMilliseconds("99999999h")
        }
    }

    @Test func formats() {
        #expect(DurationText.format(seconds: 500) == "8m20s")
        #expect(DurationText.format(seconds: 3900) == "1h5m")
        #expect(DurationText.format(seconds: 0) == "0s")
        #expect(DurationText.format(seconds: -90) == "-1m30s")
        #expect(DurationText.clock(seconds: 1499) == "24:59")
        #expect(DurationText.clock(seconds: 3723) == "1:02:03")
    }

    @Test func fuzzNeverCrashes() {
        var rng = SplitMix64(seed: 7)
        let alphabet = Array("0123456789.hmsin -xé")
        for _ in 0..<20_000 {
            let length = Int(rng.next() % 8)
            let text = String((0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            if let ms = try? DurationText.parseMilliseconds(text) {
                #expect(ms >= 0 && ms <= DurationText.maximumMilliseconds)
            }
        }
    }
}
