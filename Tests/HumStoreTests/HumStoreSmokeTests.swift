import Testing
@testable import HumStore

@Test func HumStoreBuilds() { #expect(Bool(true)) }
