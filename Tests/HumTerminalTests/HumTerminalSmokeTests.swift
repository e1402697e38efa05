import Testing
@testable import HumTerminal

@Test func HumTerminalBuilds() { #expect(Bool(true)) }
