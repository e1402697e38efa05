import Testing
@testable import HumCore

@Test func HumCoreBuilds() { #expect(Bool(true)) }
