import HumCore
import Testing

/// The hosts backend's pure part: which names the machine-wide section lists, and how the section goes into and out
/// of /etc/hosts' text with everything else kept byte for byte.
@Suite struct StrongShieldHostsTests {
    let now = 1_796_200_000.0

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    let section = """
        # BEGIN hum-shieldd (managed; do not edit)
        0.0.0.0 a.test
        :: a.test
        0.0.0.0 b.test
        :: b.test
        # END hum-shieldd

        """

    @Test func aNameIsListedWhileAnyUserHoldsItUnlifted() {
        let users: [UInt32: StrongShieldWanted] = [
            1000: StrongShieldWanted(
                domains: ["a.test", "b.test", "c.test"], lifts: ["a.test": now + 5, "c.test": now + 9]),
            1001: StrongShieldWanted(domains: ["a.test", "c.test"], lifts: ["c.test": now + 3]),
            1002: StrongShieldWanted(domains: ["d.test"], lifts: ["d.test": now - 1]),
        ]
        // a.test: lifted for 1000 but 1001 holds it unlifted; b.test: held; c.test: lifted for both; d.test: ended.
        #expect(StrongShieldHosts.listed(users, now: now) == ["a.test", "b.test", "d.test"])
        #expect(StrongShieldHosts.nextEnd(users, now: now) == now + 3)
        #expect(StrongShieldHosts.listed(users, now: now + 3) == ["a.test", "b.test", "c.test", "d.test"])
        #expect(StrongShieldHosts.nextEnd(users, now: now + 9) == nil)
        #expect(StrongShieldHosts.listed([:], now: now) == [])
    }

    @Test func theSectionGoesFirstAndTheRestIsKept() {
        let mine = "127.0.0.1 localhost\n# my own\n10.1.2.3 mine.test\n"
        let spliced = StrongShieldHosts.spliced(bytes(mine), names: ["a.test", "b.test"])
        #expect(text(spliced) == section + mine)
        #expect(text(StrongShieldHosts.stripped(spliced)) == mine)
    }

    @Test func anExistingSectionIsReplacedWhereverItIs() {
        let old =
            "127.0.0.1 localhost\n# BEGIN hum-shieldd (managed; do not edit)\n0.0.0.0 old.test\n:: old.test\n"
            + "# END hum-shieldd\n10.1.2.3 mine.test\n"
        let spliced = StrongShieldHosts.spliced(bytes(old), names: ["a.test", "b.test"])
        #expect(text(spliced) == section + "127.0.0.1 localhost\n10.1.2.3 mine.test\n")
        // Written again with the same names, nothing changes (the helper then does not write).
        #expect(StrongShieldHosts.spliced(spliced, names: ["a.test", "b.test"]) == spliced)
        // No names: only taken out.
        #expect(text(StrongShieldHosts.spliced(spliced, names: [])) == "127.0.0.1 localhost\n10.1.2.3 mine.test\n")
    }

    @Test func aFileWithNoTrailingNewlineOrEmptyIsKeptExactly() {
        let mine = "127.0.0.1 localhost\n10.1.2.3 mine.test"
        let spliced = StrongShieldHosts.spliced(bytes(mine), names: ["a.test", "b.test"])
        #expect(text(spliced) == section + mine)
        #expect(text(StrongShieldHosts.stripped(spliced)) == mine)
        #expect(text(StrongShieldHosts.spliced([], names: ["a.test", "b.test"])) == section)
        #expect(StrongShieldHosts.stripped(StrongShieldHosts.spliced([], names: ["a.test"])) == [])
        #expect(StrongShieldHosts.spliced(bytes(mine), names: []) == bytes(mine))
    }

    @Test func aCRLFFileGetsACRLFSection() {
        let mine = "127.0.0.1 localhost\r\n10.1.2.3 mine.test\r\n"
        let spliced = StrongShieldHosts.spliced(bytes(mine), names: ["a.test"])
        #expect(
            text(spliced)
                == "# BEGIN hum-shieldd (managed; do not edit)\r\n0.0.0.0 a.test\r\n:: a.test\r\n# END hum-shieldd\r\n"
                + mine)
        #expect(text(StrongShieldHosts.stripped(spliced)) == mine)
    }

    @Test func bytesThatAreNotUTF8AreKept() {
        let mine: [UInt8] = bytes("10.1.2.3 ") + [0xFF, 0xFE] + bytes(" # caf") + [0xE9] + bytes("\n")
        let spliced = StrongShieldHosts.spliced(mine, names: ["a.test"])
        #expect(Array(spliced.suffix(mine.count)) == mine)
        #expect(StrongShieldHosts.stripped(spliced) == mine)
    }

    @Test func anUnterminatedSectionLosesOnlyItsOwnLines() {
        // Cut short after one of its lines: the marker and the lines of its form go, the user's lines stay.
        let cut = "127.0.0.1 localhost\n# BEGIN hum-shieldd (managed; do not edit)\n0.0.0.0 old.test\n:: old."
        #expect(text(StrongShieldHosts.stripped(bytes(cut))) == "127.0.0.1 localhost\n:: old.")
        let followed =
            "# BEGIN hum-shieldd (managed; do not edit)\n0.0.0.0 old.test\n10.1.2.3 mine.test\n"
            + "0.0.0.0 myblock.test\n"
        #expect(text(StrongShieldHosts.stripped(bytes(followed))) == "10.1.2.3 mine.test\n0.0.0.0 myblock.test\n")
        // Two begins, one end: the first is unterminated, the second a section.
        let twice =
            "# BEGIN hum-shieldd (managed; do not edit)\n0.0.0.0 x.test\n"
            + "# BEGIN hum-shieldd (managed; do not edit)\n:: y.test\n# END hum-shieldd\nkeep\n"
        #expect(text(StrongShieldHosts.stripped(bytes(twice))) == "keep\n")
    }

    @Test func aUsersLineInsideTheSectionOrAStrayEndIsKept() {
        let edited =
            "# BEGIN hum-shieldd (managed; do not edit)\n0.0.0.0 a.test\n10.1.2.3 mine.test\n:: a.test\n"
            + "# END hum-shieldd\n# END hum-shieldd\nlast\n"
        #expect(text(StrongShieldHosts.stripped(bytes(edited))) == "10.1.2.3 mine.test\n# END hum-shieldd\nlast\n")
        // A marker with other text on its line, or indented, is the user's.
        let lookalike = "  # BEGIN hum-shieldd (managed; do not edit)\n0.0.0.0 a.test\n# END hum-shieldd!\n"
        #expect(text(StrongShieldHosts.stripped(bytes(lookalike))) == lookalike)
    }

    @Test func onlyWellFormedNamesAreWritten() {
        #expect(
            text(StrongShieldHosts.section(["a.test", "bad name.test", "x\n127.0.0.1 evil.test", "B.test"]))
                == "# BEGIN hum-shieldd (managed; do not edit)\n0.0.0.0 a.test\n:: a.test\n# END hum-shieldd\n")
        #expect(StrongShieldHosts.section([]) == [])
    }
}
