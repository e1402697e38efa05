import Testing

@testable import HumPlayer

/// The end of `hum play --verbose`'s underrun line: when the device ran dry, so a 10-minute benchmark says whether
/// its underruns came together (docs/PERFORMANCE.md, issue 27).
@Suite struct UnderrunLineTests {
    @Test func theLineSaysWhenEachUnderrunHappenedAndWhenItKeptOnlyTheFirst() {
        #expect(Player.underrunTimes([], of: 0) == "")
        #expect(Player.underrunTimes([62.9, 270.2], of: 2) == " (at 01:02, 04:30)")
        #expect(Player.underrunTimes([1, 3661], of: 5) == " (the first 2 at 00:01, 1:01:01)")
    }
}
