import HumCore
import Testing

/// Strong mode's pure part: which names and addresses pass, which requests are refused, and the ruleset's text.
@Suite struct StrongShieldTests {
    @Test func domainsAreCheckedAndMadeCanonical() {
        #expect(StrongShield.checkedDomain("YouTube.com.") == "youtube.com")
        #expect(StrongShield.checkedDomain("xn--bcher-kva.example") == "xn--bcher-kva.example")
        #expect(StrongShield.checkedDomain("a-b.c0.test") == "a-b.c0.test")
        for bad in [
            "", "localhost", "youtube.com/shorts", "*.reddit.com", "-a.com", "a-.com", "a..com", ".com", "1.2.3.4",
            "a b.com", "a;b.com", "a.com\n", "ü.com", String(repeating: "a", count: 64) + ".com",
            String(repeating: "abcdefghi.", count: 26) + "com",
        ] {
            #expect(StrongShield.checkedDomain(bad) == nil, "\(bad.debugDescription)")
        }
    }

    @Test func addressesAreRecognizedStrictly() {
        for good in ["127.0.0.2", "0.0.0.0", "255.255.255.255"] { #expect(StrongShield.isIPv4(good)) }
        for bad in ["256.0.0.1", "1.2.3", "01.2.3.4", "1.2.3.4 ", "1.2.3.4}", "a.b.c.d", ""] {
            #expect(!StrongShield.isIPv4(bad), "\(bad)")
        }
        for good in ["::1", "2001:db8::1", "fe80::", "::", "2001:db8:0:0:0:0:0:1", "::ffff:1.2.3.4"] {
            #expect(StrongShield.isIPv6(good), "\(good)")
        }
        for bad in ["1::2::3", "12345::", "2001:db8::1 accept", ":", "1:2:3:4:5:6:7", "g::1", "1.2.3.4"] {
            #expect(!StrongShield.isIPv6(bad), "\(bad)")
        }
    }

    let now = 1_796_200_000.0

    @Test func aSetIsCheckedForTheCallersOwnUid() throws {
        let request = StrongShieldRequest(
            op: "set", uid: 1000, domains: ["YouTube.com", "youtube.com", "reddit.com"],
            lifts: [StrongShieldLift(domain: "youtube.com", until: now + 2)])
        let command = try StrongShieldCommand.checked(request, peer: 1000, now: now)
        #expect(
            command
                == .set(StrongShieldWanted(domains: ["youtube.com", "reddit.com"], lifts: ["youtube.com": now + 2])))
        // The same request from another uid: refused, whatever it names.
        #expect(throws: StrongShieldRefusal.self) { try StrongShieldCommand.checked(request, peer: 65534, now: now) }
        // Without a uid it is the caller's own.
        var mine = request
        mine.uid = nil
        #expect(throws: Never.self) { try StrongShieldCommand.checked(mine, peer: 65534, now: now) }
    }

    @Test func malformedRequestsAreRefusedWithOneLine() {
        let lift = { (domain: String, until: Double) in StrongShieldLift(domain: domain, until: until) }
        let bad: [StrongShieldRequest] = [
            StrongShieldRequest(op: "drop"),
            StrongShieldRequest(op: "set", domains: ["not a domain"]),
            StrongShieldRequest(op: "set", domains: Array(repeating: "a.com", count: 257)),
            StrongShieldRequest(op: "set", domains: ["a.com"], lifts: [lift("b.com", now + 5)]),
            StrongShieldRequest(op: "set", domains: ["a.com"], lifts: [lift("a.com", now)]),
            StrongShieldRequest(op: "set", domains: ["a.com"], lifts: [lift("a.com", now - 1)]),
            StrongShieldRequest(op: "set", domains: ["a.com"], lifts: [lift("a.com", .infinity)]),
            StrongShieldRequest(op: "set", domains: ["a.com"], lifts: [lift("a.com", .nan)]),
            StrongShieldRequest(op: "set", domains: ["a.com"], lifts: [lift("a.com", now + 86_401)]),
            StrongShieldRequest(
                op: "set", domains: ["a.com"], lifts: [lift("a.com", now + 5), lift("A.com", now + 6)]),
            StrongShieldRequest(op: "status", domains: ["a.com"]),
            {
                var old = StrongShieldRequest.status
                old.version = 2
                return old
            }(),
        ]
        for request in bad {
            do {
                _ = try StrongShieldCommand.checked(request, peer: 1000, now: now)
                Issue.record("accepted \(request)")
            } catch {
                #expect(!error.message.isEmpty && !error.message.contains("\n"))
            }
        }
        #expect(throws: Never.self) {
            try StrongShieldCommand.checked(
                StrongShieldRequest(op: "set", domains: ["a.com"], lifts: [lift("a.com", now + 86_400)]), peer: 1000,
                now: now)
        }
    }

    @Test func theRulesetRejectsEachUidsAddressesUnlessLifted() {
        let text = StrongShieldRuleset.text(
            [
                1000: [
                    StrongShieldEntry(
                        domain: "youtube.com", addresses: ["142.250.1.1", "2a00:1450::e"], liftedUntil: now + 2),
                    StrongShieldEntry(domain: "reddit.com", addresses: ["151.101.1.140"]),
                ],
                65534: [StrongShieldEntry(domain: "shielded.test", addresses: ["127.0.0.2"], liftedUntil: now + 0.25)],
            ], now: now)
        let expected = """
            table inet hum_shield {}
            delete table inet hum_shield
            table inet hum_shield {
            \tset lifted4 {
            \t\ttypeof meta skuid . ip daddr
            \t\tflags timeout
            \t\telements = { 1000 . 142.250.1.1 timeout 2000ms, 65534 . 127.0.0.2 timeout 250ms }
            \t}
            \tset lifted6 {
            \t\ttypeof meta skuid . ip6 daddr
            \t\tflags timeout
            \t\telements = { 1000 . 2a00:1450::e timeout 2000ms }
            \t}
            \tset shielded4 {
            \t\ttypeof meta skuid . ip daddr
            \t\telements = { 1000 . 142.250.1.1, 1000 . 151.101.1.140, 65534 . 127.0.0.2 }
            \t}
            \tset shielded6 {
            \t\ttypeof meta skuid . ip6 daddr
            \t\telements = { 1000 . 2a00:1450::e }
            \t}
            \tchain output {
            \t\ttype filter hook output priority filter; policy accept;
            \t\tmeta skuid . ip daddr @lifted4 accept
            \t\tmeta skuid . ip6 daddr @lifted6 accept
            \t\tmeta skuid . ip daddr @shielded4 meta l4proto tcp reject with tcp reset
            \t\tmeta skuid . ip daddr @shielded4 reject with icmpx admin-prohibited
            \t\tmeta skuid . ip6 daddr @shielded6 meta l4proto tcp reject with tcp reset
            \t\tmeta skuid . ip6 daddr @shielded6 reject with icmpx admin-prohibited
            \t}
            }

            """
        #expect(text == expected)
    }

    @Test func endedLiftsAndNonAddressesStayOut() {
        let text = StrongShieldRuleset.text(
            [
                7: [
                    StrongShieldEntry(
                        domain: "a.com", addresses: ["10.0.0.1", "10.0.0.1", "1.2.3.4 accept", "::1 }"],
                        liftedUntil: now - 1)
                ]
            ], now: now)
        #expect(text.contains("elements = { 7 . 10.0.0.1 }"))
        #expect(!text.contains("timeout 0") && !text.contains("accept\n\t\telements") && !text.contains("1.2.3.4"))
        #expect(!text.contains("::1"))
        // Nothing shielded: the table and its rules, with empty sets.
        let empty = StrongShieldRuleset.text([:], now: now)
        #expect(!empty.contains("elements"))
        #expect(empty.hasPrefix("table inet hum_shield {}\ndelete table inet hum_shield\n"))
    }

    @Test func aSharedAddressIsLiftedOnlyWhileAllItsDomainsAre() {
        let shared = { (a: Double?, b: Double?) in
            StrongShieldRuleset.text(
                [
                    5: [
                        StrongShieldEntry(domain: "a.com", addresses: ["10.0.0.1", "::2"], liftedUntil: a),
                        StrongShieldEntry(domain: "b.com", addresses: ["10.0.0.1", "::2"], liftedUntil: b),
                    ]
                ], now: now)
        }
        #expect(shared(now + 1, now + 3).contains("elements = { 5 . 10.0.0.1 timeout 1000ms }"))
        #expect(shared(now + 1, now + 3).contains("elements = { 5 . ::2 timeout 1000ms }"))
        #expect(!shared(now + 3, nil).contains("timeout 3000ms"))
        #expect(!shared(nil, now + 3).contains("timeout 3000ms"))
        #expect(shared(nil, now + 3).contains("elements = { 5 . 10.0.0.1 }"))
    }

    @Test func theWantedStateBecomesASetRequest() {
        let request = StrongShieldRequest.set(
            StrongShieldWanted(domains: ["b.com", "a.com"], lifts: ["b.com": 9, "a.com": 8]))
        #expect(request.op == "set" && request.version == 1 && request.uid == nil)
        #expect(
            request.lifts == [StrongShieldLift(domain: "a.com", until: 8), StrongShieldLift(domain: "b.com", until: 9)])
    }

    /// What the player sends the helper: every site's domain and its www. name, lifted only while no shield naming
    /// it is up, until the earliest end, never past the helper's longest lease; programs' targets send nothing.
    @Test func theWantedStateFollowsTheShieldsAndTheirStates() throws {
        let at = Timestamp(epochSeconds: 0, offsetSeconds: 0)
        func site(_ text: String) throws -> ShieldTarget { .site(try SitePattern.checked(text)) }
        let video = Shield(name: "video", targets: [try site("youtube.com/shorts"), .app("mpv")], created: at)
        let social = Shield(
            name: "social", targets: [try site("reddit.com/r/*"), try site("youtube.com")], created: at)
        let news = Shield(name: "news", targets: [try site("lwn.net")], created: at)
        let now = 1_000_000.0
        let all = StrongShieldWanted.from(shields: [video, social, news], states: [:], now: now)
        #expect(
            all.domains == ["lwn.net", "reddit.com", "www.lwn.net", "www.reddit.com", "www.youtube.com", "youtube.com"])
        #expect(all.lifts.isEmpty, "a shield with no state yet is up")
        let lifted = StrongShieldWanted.from(
            shields: [video, social, news],
            states: [
                "video": .lifted(until: 1_000_900, lift: "l"), "social": .up,
                "news": .off(until: 1_000_000 + 5 * 86_400),
            ], now: now)
        #expect(lifted.lifts["youtube.com"] == nil, "social, which is up, names it too")
        #expect(lifted.lifts["lwn.net"] == now + StrongShield.longestLease - 1)
        #expect(lifted.lifts["www.lwn.net"] == now + StrongShield.longestLease - 1)
        let both = StrongShieldWanted.from(
            shields: [video, social],
            states: ["video": .lifted(until: 1_000_900, lift: "l"), "social": .free(until: 1_000_300, schedule: "s")],
            now: now)
        #expect(
            both.lifts == [
                "youtube.com": 1_000_300, "www.youtube.com": 1_000_300, "reddit.com": 1_000_300,
                "www.reddit.com": 1_000_300,
            ])
        let ended = StrongShieldWanted.from(
            shields: [news], states: ["news": .lifted(until: 999_999, lift: "l")], now: now)
        #expect(ended.lifts.isEmpty, "an end already past lifts nothing")
        #expect(
            StrongShieldWanted.from(
                shields: [Shield(name: "g", targets: [.app("steam")], created: at)], states: [:], now: now
            ).domains.isEmpty)
    }
}
