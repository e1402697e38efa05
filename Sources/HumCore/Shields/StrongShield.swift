/// Strong mode (docs/shields.md, "Strong mode"): the messages between hum and the root helper `hum-shieldd`, their
/// checks, and the nftables ruleset the helper applies. Pure: the helper reads the socket, resolves names and runs
/// `nft`; everything it decides is decided here.
///
/// The protocol is one JSON object per line each way, on a Unix socket. Every request carries `version`; the helper
/// answers every line with one line, `{"version":1,"ok":true,…}` or `{"version":1,"ok":false,"error":"…"}`, and
/// attributes every request to the uid of the process at the other end (SO_PEERCRED), never to one it names.
public enum StrongShield {
    /// The protocol's version; a request of another version is refused.
    public static let version = 1
    /// Where the system unit's helper listens.
    public static let defaultSocket = "/run/hum-shieldd.sock"
    /// The longest request line, newline included.
    public static let maximumLineBytes = 64 * 1024
    /// The most domains one uid may shield.
    public static let mostDomains = 256
    /// The longest domain name (RFC 1035: 253 characters written without the final dot) and label.
    public static let longestDomain = 253
    public static let longestLabel = 63
    /// The longest lease, in seconds: a day. Longer lifts are renewed by the player.
    public static let longestLease = 86_400.0
    /// The most addresses of one domain put in the ruleset (of each family).
    public static let mostAddressesPerDomain = 32
    /// The most uids the helper holds at once.
    public static let mostUsers = 1024
    /// How often the helper resolves its names again. getaddrinfo gives no TTL, so addresses are kept fresh by this
    /// fixed interval instead of the records' own lifetimes.
    public static let refreshSeconds = 300.0
    /// The nftables table the helper owns, and nothing else.
    public static let table = "hum_shield"

    /// The domain in its canonical form (lower case, no final dot), or nil when it is not a well-formed host name:
    /// 2 to 127 labels of 1 to 63 letters, digits and hyphens (not at either end), at most 253 characters, the last
    /// label not all digits (so no address passes for a name).
    public static func checkedDomain(_ text: String) -> String? {
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= longestDomain else { return nil }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return nil }
        for label in labels {
            guard !label.isEmpty, label.utf8.count <= longestLabel, label.first != "-", label.last != "-",
                label.unicodeScalars.allSatisfy({
                    ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                })
            else { return nil }
        }
        if labels.last!.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) { return nil }
        return name
    }

    /// Whether `text` is an IPv4 address in dotted-quad form (four decimal numbers 0…255, no leading zeros).
    public static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { part in
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit), let n = Int(part), n <= 255 else {
                return false
            }
            return part.count == 1 || part.first != "0"
        }
    }

    /// Whether `text` is an IPv6 address as inet_ntop writes it: hex groups and colons (one `::` at most), or such a
    /// form ending in a dotted quad. Only these characters ever reach the ruleset.
    public static func isIPv6(_ text: String) -> Bool {
        guard text.utf8.count >= 2, text.utf8.count <= 45, text.contains(":") else { return false }
        var body = Substring(text)
        var groupsLeft = 8
        if let lastColon = text.lastIndex(of: ":"), text[text.index(after: lastColon)...].contains(".") {
            guard isIPv4(String(text[text.index(after: lastColon)...])) else { return false }
            body = text[...lastColon]
            if body.hasSuffix(":") && !body.hasSuffix("::") { body.removeLast() }
            groupsLeft = 6
        }
        let halves = body.components("::")
        guard halves.count <= 2 else { return false }
        var groups = 0
        for half in halves where !half.isEmpty {
            for group in half.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), group.allSatisfy(\.isHexDigit) else { return false }
                groups += 1
            }
        }
        return halves.count == 2 ? groups < groupsLeft : groups == groupsLeft
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension Substring {
    /// The pieces between occurrences of `separator` (a string of two or more characters).
    fileprivate func components(_ separator: String) -> [Substring] {
        var out: [Substring] = []
        var rest = self[...]
        while let range = rest.firstRange(of: separator) {
            out.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        out.append(rest)
        return out
    }
}

// MARK: Messages

/// A lift of one domain until `until` (epoch seconds, fractions allowed): the kernel relocks it then.
public struct StrongShieldLift: Codable, Sendable, Equatable {
    public var domain: String
    public var until: Double

    public init(domain: String, until: Double) {
        self.domain = domain
        self.until = until
    }
}

/// A request to the helper, one JSON line.
///
/// - `{"version":1,"op":"status"}`: what the helper holds for the caller's uid.
/// - `{"version":1,"op":"set","domains":["youtube.com"],"lifts":[{"domain":"youtube.com","until":1796200000.5}]}`:
///   the caller's whole wanted state, replacing what it held before (an empty `domains` shields nothing). `uid` may
///   be given; the helper refuses the request unless it is the caller's own.
public struct StrongShieldRequest: Codable, Sendable, Equatable {
    public var version: Int
    public var op: String
    public var uid: UInt32?
    public var domains: [String]?
    public var lifts: [StrongShieldLift]?

    public init(op: String, uid: UInt32? = nil, domains: [String]? = nil, lifts: [StrongShieldLift]? = nil) {
        version = StrongShield.version
        self.op = op
        self.uid = uid
        self.domains = domains
        self.lifts = lifts
    }

    /// The request that sends `wanted`.
    public static func set(_ wanted: StrongShieldWanted) -> StrongShieldRequest {
        StrongShieldRequest(
            op: "set", domains: wanted.domains,
            lifts: wanted.lifts.keys.sorted().map { StrongShieldLift(domain: $0, until: wanted.lifts[$0]!) })
    }

    public static let status = StrongShieldRequest(op: "status")
}

/// What one uid wants shielded: domains, and for some of them the end of a lift (epoch seconds).
public struct StrongShieldWanted: Sendable, Equatable {
    public var domains: [String]
    public var lifts: [String: Double]

    public init(domains: [String], lifts: [String: Double] = [:]) {
        self.domains = domains
        self.lifts = lifts
    }
}

/// A domain as the helper holds it for one uid.
public struct StrongShieldDomainState: Codable, Sendable, Equatable {
    public var name: String
    /// The addresses it resolved to at the last refresh (IPv4 and IPv6 as text); empty when it did not resolve.
    public var addresses: [String]
    /// The end of its lift, in epoch seconds, when one is in force.
    public var liftedUntil: Double?

    public init(name: String, addresses: [String], liftedUntil: Double? = nil) {
        self.name = name
        self.addresses = addresses
        self.liftedUntil = liftedUntil
    }
}

/// The helper's answer to one line.
public struct StrongShieldReply: Codable, Sendable, Equatable {
    public var version: Int
    public var ok: Bool
    public var error: String?
    /// The caller's uid, as the helper saw it (SO_PEERCRED).
    public var uid: UInt32?
    /// How the helper enforces: `nftables`, or `hosts` (the weak /etc/hosts fallback where nftables is missing).
    public var backend: String?
    /// The seconds between two resolutions of the names.
    public var refreshSeconds: Double?
    public var domains: [StrongShieldDomainState]?

    public init(
        ok: Bool, error: String? = nil, uid: UInt32? = nil, backend: String? = nil, refreshSeconds: Double? = nil,
        domains: [StrongShieldDomainState]? = nil
    ) {
        version = StrongShield.version
        self.ok = ok
        self.error = error
        self.uid = uid
        self.backend = backend
        self.refreshSeconds = refreshSeconds
        self.domains = domains
    }

    public static func refused(_ message: String) -> StrongShieldReply { StrongShieldReply(ok: false, error: message) }
}

/// Why a request was refused: one line, said back to the client.
public struct StrongShieldRefusal: UserFacingError, Equatable, Sendable {
    public var kind: FailureKind { .refused }
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// A request the helper may act on.
public enum StrongShieldCommand: Equatable, Sendable {
    case status
    /// The caller's whole wanted state: canonical domains in the order given (no duplicates), and the lifts in force.
    case set(StrongShieldWanted)

    /// Checks a decoded request from `peer` (the uid SO_PEERCRED gave) at wall-clock time `now` (epoch seconds).
    public static func checked(_ request: StrongShieldRequest, peer: UInt32, now: Double) throws(StrongShieldRefusal)
        -> StrongShieldCommand
    {
        guard request.version == StrongShield.version else {
            throw StrongShieldRefusal(
                "protocol version \(request.version) is not spoken here (this helper speaks \(StrongShield.version)); "
                    + "install matching hum and hum-shieldd")
        }
        if let uid = request.uid, uid != peer {
            throw StrongShieldRefusal(
                "uid \(peer) may not ask for uid \(uid): requests act for the caller's own uid only")
        }
        switch request.op {
        case "status":
            guard request.domains == nil, request.lifts == nil else {
                throw StrongShieldRefusal("status takes no domains or lifts")
            }
            return .status
        case "set":
            let given = request.domains ?? []
            guard given.count <= StrongShield.mostDomains else {
                throw StrongShieldRefusal("\(given.count) domains are too many: at most \(StrongShield.mostDomains)")
            }
            var domains: [String] = []
            var seen = Set<String>()
            for text in given {
                guard let name = StrongShield.checkedDomain(text) else {
                    throw StrongShieldRefusal(
                        "\(String(text.prefix(80)).debugDescription) is not a domain name (for example youtube.com)")
                }
                if seen.insert(name).inserted { domains.append(name) }
            }
            var lifts: [String: Double] = [:]
            for lift in request.lifts ?? [] {
                guard let name = StrongShield.checkedDomain(lift.domain), seen.contains(name) else {
                    throw StrongShieldRefusal(
                        "a lift of \(String(lift.domain.prefix(80)).debugDescription), which is not among the domains")
                }
                guard lift.until.isFinite, lift.until > now else {
                    throw StrongShieldRefusal("the lift of \(name) ends in the past; send only lifts in force")
                }
                guard lift.until - now <= StrongShield.longestLease else {
                    throw StrongShieldRefusal(
                        "the lift of \(name) ends more than \(Int(StrongShield.longestLease)) s from now; renew it "
                            + "instead")
                }
                guard lifts[name] == nil else { throw StrongShieldRefusal("\(name) is lifted twice") }
                lifts[name] = lift.until
            }
            return .set(StrongShieldWanted(domains: domains, lifts: lifts))
        default:
            throw StrongShieldRefusal(
                "\(String(request.op.prefix(40)).debugDescription) is not a request: use set or status")
        }
    }
}

// MARK: The ruleset

/// One domain of one uid, resolved: what goes into the ruleset.
public struct StrongShieldEntry: Sendable, Equatable {
    public var domain: String
    public var addresses: [String]
    public var liftedUntil: Double?

    public init(domain: String, addresses: [String], liftedUntil: Double? = nil) {
        self.domain = domain
        self.addresses = addresses
        self.liftedUntil = liftedUntil
    }
}

public enum StrongShieldRuleset {
    /// The script for `nft -f -` that makes table `inet hum_shield` exactly this, in one transaction: the table is
    /// created if missing (so the delete cannot fail), deleted, and written again whole. Each uid's addresses are
    /// rejected on output (TCP with a reset, the rest with admin-prohibited) unless the pair uid . address is in a
    /// lift set, whose elements carry a timeout: the kernel drops them when the lift ends, with no process of ours
    /// alive. `now` (epoch seconds) turns each lift's end into its timeout; lifts that ended are left out. Anything
    /// that is not an address is left out too, so no text from outside reaches the script but uids and addresses.
    public static func text(_ users: [UInt32: [StrongShieldEntry]], now: Double) -> String {
        var shielded4: [String] = []
        var shielded6: [String] = []
        var lifted4: [String] = []
        var lifted6: [String] = []
        for uid in users.keys.sorted() {
            var seen4 = Set<String>()
            var seen6 = Set<String>()
            // An address is lifted only while every one of the uid's domains that resolves to it is lifted (a shared
            // CDN address stays shielded for the domains still up), until the earliest of their ends.
            var lift4: [String: Int64] = [:]
            var lift6: [String: Int64] = [:]
            for entry in users[uid]! {
                let timeout = entry.liftedUntil.map { Int64((($0 - now) * 1000).rounded(.up)) } ?? 0
                for address in entry.addresses.prefix(2 * StrongShield.mostAddressesPerDomain) {
                    if StrongShield.isIPv4(address) {
                        if seen4.insert(address).inserted {
                            shielded4.append("\(uid) . \(address)")
                            lift4[address] = timeout
                        } else {
                            lift4[address] = min(lift4[address]!, timeout)
                        }
                    } else if StrongShield.isIPv6(address) {
                        if seen6.insert(address).inserted {
                            shielded6.append("\(uid) . \(address)")
                            lift6[address] = timeout
                        } else {
                            lift6[address] = min(lift6[address]!, timeout)
                        }
                    }
                }
            }
            for (address, timeout) in lift4.sorted(by: { $0.key < $1.key }) where timeout > 0 {
                lifted4.append("\(uid) . \(address) timeout \(timeout)ms")
            }
            for (address, timeout) in lift6.sorted(by: { $0.key < $1.key }) where timeout > 0 {
                lifted6.append("\(uid) . \(address) timeout \(timeout)ms")
            }
        }
        let table = "inet \(StrongShield.table)"
        var out = "table \(table) {}\ndelete table \(table)\ntable \(table) {\n"
        out += set("lifted4", key: "meta skuid . ip daddr", timeout: true, lifted4)
        out += set("lifted6", key: "meta skuid . ip6 daddr", timeout: true, lifted6)
        out += set("shielded4", key: "meta skuid . ip daddr", timeout: false, shielded4)
        out += set("shielded6", key: "meta skuid . ip6 daddr", timeout: false, shielded6)
        out += """
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
        return out
    }

    /// The script that removes the table (the helper's `--remove`), tolerating its absence.
    public static let removal = "table inet \(StrongShield.table) {}\ndelete table inet \(StrongShield.table)\n"

    private static func set(_ name: String, key: String, timeout: Bool, _ elements: [String]) -> String {
        var out = "\tset \(name) {\n\t\ttypeof \(key)\n"
        if timeout { out += "\t\tflags timeout\n" }
        if !elements.isEmpty { out += "\t\telements = { " + elements.joined(separator: ", ") + " }\n" }
        return out + "\t}\n"
    }
}

// MARK: The seam

/// hum's side of strong mode: the player sends each uid's wanted state through it, `hum shield strong status` asks
/// what the helper holds. The implementation talks to the helper's socket (`ShieldHelperClient`, HumControl); tests
/// use `RecordingStrongShieldLink` (HumTestSupport).
public protocol StrongShieldLink: AnyObject {
    /// Replaces what the helper holds for this user by `wanted`; returns what it holds now. Throws when the helper
    /// is absent, does not answer, or refuses (`StrongShieldRefusal`, its one line).
    func send(_ wanted: StrongShieldWanted) throws -> StrongShieldReply
    /// What the helper holds for this user.
    func status() throws -> StrongShieldReply
}

extension StrongShieldWanted {
    /// What strong mode's helper should hold for this user, from the shields and their state now (epoch seconds):
    /// every domain a shield names as a site, with its `www.` name (the helper blocks whole names only, where the
    /// extension matches subdomains too); a domain is lifted only while no shield naming it is up, until the
    /// earliest end among those shields, and never longer than the helper takes (`longestLease`): a longer off or
    /// free window is sent again at the guard's next change, and meanwhile the kernel relocks (fail closed). A
    /// shield with no state yet counts as up.
    public static func from(shields: [Shield], states: [String: ShieldStatus], now: Double) -> StrongShieldWanted {
        var ends: [String: Double?] = [:]  // nil: held by a shield that is up
        for shield in shields {
            let state = states[shield.name] ?? .up
            let end = state.until.map { min(Double($0), now + StrongShield.longestLease - 1) }
            for target in shield.targets {
                guard case .site(let pattern) = target else { continue }
                for name in [pattern.domain, "www." + pattern.domain] where StrongShield.checkedDomain(name) != nil {
                    switch (ends[name], end) {
                    case (.none, let end): ends[name] = .some(end)
                    case (.some(.some(let old)), .some(let new)): ends[name] = min(old, new)
                    default: ends[name] = .some(nil)
                    }
                }
            }
        }
        var lifts: [String: Double] = [:]
        for (name, end) in ends { if let end, end > now { lifts[name] = end } }
        return StrongShieldWanted(domains: ends.keys.sorted(), lifts: lifts)
    }
}
