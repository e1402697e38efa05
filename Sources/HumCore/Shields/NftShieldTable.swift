/// The nftables table of the optional root helper (issue 23's strong mode, docs/shields.md "Sites": not wired to a
/// helper yet). Pure: it writes the `nft -f` scripts; a helper runs them.
///
/// One table, `inet hum_shield`. For each shield: the uids it holds, its sites' addresses (IPv4 and IPv6), and the
/// uids it is lifted for, each lift a set element with a **timeout**, so that the kernel itself relocks when the
/// lease ends, with no process of ours alive. One rule per shield and family in the output hook rejects (a TCP reset)
/// a held uid's connections to the shield's addresses unless the uid is in the lifted set.
public enum NftShieldTable {
    public static let table = "hum_shield"

    /// A shield as the table holds it: who it holds, and where it blocks them from.
    public struct Shielded: Sendable, Equatable {
        public var shield: String
        public var uids: [UInt32]
        public var v4: [String]
        public var v6: [String]
        public init(shield: String, uids: [UInt32], v4: [String], v6: [String]) {
            self.shield = shield
            self.uids = uids
            self.v4 = v4
            self.v6 = v6
        }
    }

    /// Why a table cannot be written: a name or address that is not one.
    public struct Problem: Error, Sendable, Equatable {
        public var message: String
    }

    /// The sets' prefix for a shield: `s_` and the name's bytes in hex, so any shield name is an nft identifier
    /// and two names never share one.
    public static func prefix(_ shield: String) -> String {
        "s_"
            + shield.utf8.map { byte in
                let digits = Array("0123456789abcdef")
                return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
            }.joined()
    }

    /// The whole table, replacing the one there in one transaction (the kernel applies a script all or nothing):
    /// lifts in force are not kept, so a helper writes them again after (`lift`), or keeps the table and changes
    /// only its sets.
    public static func ruleset(_ shields: [Shielded]) throws(Problem) -> String {
        var sets = ""
        var rules = ""
        for s in shields {
            guard (try? Shield.checkedName(s.shield)) != nil else {
                throw Problem(message: "not a shield name: \(s.shield)")
            }
            for a in s.v4 where !isIPv4(a) { throw Problem(message: "not an IPv4 address: \(a)") }
            for a in s.v6 where !isIPv6(a) { throw Problem(message: "not an IPv6 address: \(a)") }
            let p = prefix(s.shield)
            let comment = "comment \"\(s.shield)\"; "
            sets += "    set \(p)_uids { typeof meta skuid; \(comment)\(elements(s.uids.map(String.init)))}\n"
            sets += "    set \(p)_lifted { typeof meta skuid; flags timeout; \(comment)}\n"
            sets += "    set \(p)_v4 { type ipv4_addr; flags interval; \(comment)\(elements(s.v4))}\n"
            sets += "    set \(p)_v6 { type ipv6_addr; flags interval; \(comment)\(elements(s.v6))}\n"
            let held = "meta skuid @\(p)_uids meta skuid != @\(p)_lifted"
            rules += "        \(held) ip daddr @\(p)_v4 reject with tcp reset\n"
            rules += "        \(held) ip daddr @\(p)_v4 reject\n"
            rules += "        \(held) ip6 daddr @\(p)_v6 reject with tcp reset\n"
            rules += "        \(held) ip6 daddr @\(p)_v6 reject\n"
        }
        return """
            table inet \(table)
            delete table inet \(table)
            table inet \(table) {
            \(sets)    chain output {
                    type filter hook output priority 0; policy accept;
            \(rules)    }
            }

            """
    }

    /// Lifts `shield` for `uid` for `milliseconds`, replacing a lift there in the same transaction (added first so
    /// that the delete always finds it, then deleted, then added with the new timeout): an older lease can never
    /// shorten or outlast the new one.
    public static func lift(shield: String, uid: UInt32, milliseconds: Int64) throws(Problem) -> String {
        guard (try? Shield.checkedName(shield)) != nil else { throw Problem(message: "not a shield name: \(shield)") }
        guard milliseconds > 0 else { throw Problem(message: "a lift lasts more than 0 ms") }
        let set = "inet \(table) \(prefix(shield))_lifted"
        return """
            add element \(set) { \(uid) }
            delete element \(set) { \(uid) }
            add element \(set) { \(uid) timeout \(milliseconds)ms }

            """
    }

    /// Ends `shield`'s lift for `uid` now (relocks).
    public static func endLift(shield: String, uid: UInt32) throws(Problem) -> String {
        guard (try? Shield.checkedName(shield)) != nil else { throw Problem(message: "not a shield name: \(shield)") }
        let set = "inet \(table) \(prefix(shield))_lifted"
        return "add element \(set) { \(uid) }\ndelete element \(set) { \(uid) }\n"
    }

    static func elements(_ items: [String]) -> String {
        items.isEmpty ? "" : "elements = { \(items.joined(separator: ", ")) }; "
    }

    /// Four decimal numbers 0–255 joined by dots, without leading zeros.
    public static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                    && (part == "0" || !part.hasPrefix("0")) && Int(part).map { $0 <= 255 } == true
            }
    }

    /// Up to eight groups of 1–4 hex digits joined by colons, at most one `::` standing for the missing ones.
    public static func isIPv6(_ text: String) -> Bool {
        guard text.utf8.count <= 39, !text.contains(":::") else { return false }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return false }
        func groups(_ s: String) -> [Substring]? {
            if s.isEmpty { return [] }
            let g = s.split(separator: ":", omittingEmptySubsequences: false)
            let ok = g.allSatisfy { group in
                (1...4).contains(group.count) && group.allSatisfy { $0.isASCII && $0.isHexDigit }
            }
            return ok ? g : nil
        }
        guard let first = groups(halves[0]) else { return false }
        if halves.count == 1 { return first.count == 8 }
        guard let second = groups(halves[1]) else { return false }
        return first.count + second.count <= 7
    }
}
