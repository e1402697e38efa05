import Testing

@testable import HumCore

@Suite struct MixSpecTests {
    @Test func parsesNamesAndVolumes() throws {
        #expect(try MixSpec.parse("rain=40") == MixToken(name: "rain", volume: 40))
        #expect(try MixSpec.parse("brown") == MixToken(name: "brown", volume: 75))
        #expect(try MixSpec.parse("./my=file.wav=30") == MixToken(name: "./my=file.wav", volume: 30))
        #expect(try MixSpec.parse("fan=0") == MixToken(name: "fan", volume: 0))
        #expect(try MixSpec.parse("fan=100%") == MixToken(name: "fan", volume: 100))
        #expect(try MixSpec.parse("fan=12.5") == MixToken(name: "fan", volume: 12.5))
    }

    @Test(arguments: [
        ("=40", MixSpec.ParseError.emptyName("=40")),
        ("rain=", .badVolume("rain=")),
        ("rain=loud", .badVolume("rain=loud")),
        ("rain=1e2", .badVolume("rain=1e2")),
        ("rain=nan", .badVolume("rain=nan")),
        ("rain=101", .volumeOutOfRange("rain=101")),
        ("rain=-5", .volumeOutOfRange("rain=-5")),
        ("", .emptyName("")),
    ])
    func rejectsMalformedWords(word: String, error: MixSpec.ParseError) {
        #expect(throws: error) { try MixSpec.parse(word) }
        #expect(error.message.contains("\"\(word)\""))
    }

    @Test func formatsForPeople() {
        #expect(
            MixSpec.format([MixToken(name: "rain", volume: 40), MixToken(name: "fan", volume: 12.5)])
                == "rain=40 fan=12.5")
    }

    @Test func fuzzNeverCrashesAndKeepsVolumesInRange() {
        var rng = SplitMix64(seed: 11)
        let alphabet = Array("rain=0123456789.-+%/é ")
        for _ in 0..<20_000 {
            let word = String(
                (0..<Int(rng.next() % 10)).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            if let token = try? MixSpec.parse(word) {
                #expect(Volume.range.contains(token.volume))
                #expect(!token.name.isEmpty)
            }
        }
    }
}
