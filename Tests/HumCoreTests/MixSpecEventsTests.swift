import Testing

@testable import HumCore

/// `NAME~N`: a sound as one-shot events alone, about N an hour.
@Suite struct MixSpecEventsTests {
    @Test func aMarkedWordRoundTrips() throws {
        for word in ["thunder~20=60", "thunder~20", "./cups.wav~7.5=30", "rain=40"] {
            let token = try MixSpec.parse(word)
            let printed = MixSpec.format([token])
            #expect(try MixSpec.parse(printed) == token)
            #expect(printed == (word.contains("=") ? word : word + "=75"))
        }
        #expect(try MixSpec.parse("thunder~20=60") == MixToken(name: "thunder~20", volume: 60))
        #expect(MixSpec.eventMark("thunder~20")! == ("thunder", 20))
        #expect(MixSpec.eventMark("./cups.wav~7.5")! == ("./cups.wav", 7.5))
        #expect(MixSpec.eventMark("thunder") == nil)
    }

    @Test func aTildeInAPathIsNoMark() throws {
        #expect(MixSpec.eventMark("~/sounds/rain.wav") == nil)
        #expect(MixSpec.eventMark("/tmp/a~b/rain.wav") == nil)
        #expect(try MixSpec.parse("~/sounds/rain.wav=40") == MixToken(name: "~/sounds/rain.wav", volume: 40))
        #expect(try MixSpec.parse("/tmp/a~b/rain.wav") == MixToken(name: "/tmp/a~b/rain.wav", volume: 75))
    }

    @Test(arguments: ["thunder~0", "thunder~", "thunder~lots", "thunder~3601", "thunder~-2=40", "thunder~1e3=40"])
    func aBadRateIsRefusedNamingTheWord(word: String) {
        #expect(throws: MixSpec.ParseError.badEventRate(word)) { try MixSpec.parse(word) }
        #expect(MixSpec.ParseError.badEventRate(word).message.contains("\"\(word)\""))
        #expect(MixSpec.ParseError.badEventRate(word).message.contains("SOUND~N"))
    }

    @Test func theHighestRateIsOneASecond() throws {
        #expect(try MixSpec.parse("tick~3600") == MixToken(name: "tick~3600", volume: 75))
        #expect(MixSpec.eventMark("tick~3600")!.perHour == MixSpec.maximumEventsPerHour)
    }
}
