import Testing

@testable import HumCore

@Suite struct NftShieldTableTests {
    @Test func theTableHoldsEachShieldsUidsAddressesAndLifts() throws {
        let text = try NftShieldTable.ruleset([
            .init(
                shield: "video", uids: [1000, 65534], v4: ["127.0.0.2", "10.0.0.0/8"].filter(NftShieldTable.isIPv4),
                v6: ["::1"])
        ])
        let p = NftShieldTable.prefix("video")
        #expect(p == "s_766964656f")
        #expect(text.hasPrefix("table inet hum_shield\ndelete table inet hum_shield\ntable inet hum_shield {\n"))
        #expect(text.contains("set \(p)_uids { typeof meta skuid; comment \"video\"; elements = { 1000, 65534 }; }"))
        #expect(
            text.contains(
                "set \(p)_v4 { type ipv4_addr; flags interval; comment \"video\"; elements = { 127.0.0.2 }; }"))
        #expect(text.contains("set \(p)_v6 { type ipv6_addr; flags interval; comment \"video\"; elements = { ::1 }; }"))
        #expect(
            text.contains("meta skuid @\(p)_uids meta skuid != @\(p)_lifted ip daddr @\(p)_v4 reject with tcp reset"))
        #expect(NftShieldTable.prefix("a-b") != NftShieldTable.prefix("a_b"))
    }

    @Test func nothingButWellFormedNamesAndAddressesGetsIntoAScript() {
        for bad in [
            "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4 }", "1.2.3.4; flush ruleset", "", "١.2.3.4",
        ] {
            #expect(!NftShieldTable.isIPv4(bad), "\(bad)")
            #expect(throws: NftShieldTable.Problem.self) {
                try NftShieldTable.ruleset([.init(shield: "video", uids: [1], v4: [bad], v6: [])])
            }
        }
        for good in ["::1", "2001:db8::1", "fe80::", "::", "1:2:3:4:5:6:7:8", "2001:DB8:0:0:0:0:0:1"] {
            #expect(NftShieldTable.isIPv6(good), "\(good)")
        }
        for bad in ["1:2:3:4:5:6:7:8:9", "1::2::3", ":::", "12345::", "g::1", "::1 }", "1:2:3:4:5:6:7", ""] {
            #expect(!NftShieldTable.isIPv6(bad), "\(bad)")
        }
        #expect(throws: NftShieldTable.Problem.self) {
            try NftShieldTable.lift(shield: "Video }", uid: 1, milliseconds: 5)
        }
        #expect(throws: NftShieldTable.Problem.self) {
            try NftShieldTable.lift(shield: "video", uid: 1, milliseconds: 0)
        }
    }

    @Test func aLiftReplacesTheOldOneInOneTransaction() throws {
        let p = NftShieldTable.prefix("video")
        #expect(
            try NftShieldTable.lift(shield: "video", uid: 65534, milliseconds: 2000) == """
                add element inet hum_shield \(p)_lifted { 65534 }
                delete element inet hum_shield \(p)_lifted { 65534 }
                add element inet hum_shield \(p)_lifted { 65534 timeout 2000ms }

                """)
    }
}
