import Testing
@testable import HumAudio

@Test func HumAudioBuilds() { #expect(Bool(true)) }
