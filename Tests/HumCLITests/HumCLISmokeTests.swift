import Testing
@testable import HumCLI

@Test func HumCLIBuilds() { #expect(Bool(true)) }
