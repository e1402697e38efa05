import CLinux
import FoundationEssentials
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The root helper of strong mode (docs/shields.md, "Strong mode"): it keeps, per uid, the domains to shield and
/// their lifts, resolves the names itself and makes nftables' table `inet hum_shield` match, in one `nft -f -`
/// transaction per change. Every request is attributed to the uid at the other end of the socket (SO_PEERCRED).
///
/// Where nftables is missing it keeps a section of /etc/hosts instead (the hosts backend, weak: machine-wide, and
/// relocked by this process's own timer, not by the kernel; docs/shields.md, "Where nftables is missing").
///
/// It serves one connection at a time, one request line each, with a 2 s limit to read it: a client that stalls
/// delays others' changes by that much at most, and never any lift's end, which is the kernel's.
final class ShieldHelper {
    struct Options {
        var socket = StrongShield.defaultSocket
        var nft = "/usr/sbin/nft"
        var state = "/run/hum-shieldd.state"
        var refresh = StrongShield.refreshSeconds
        var backend = Backend.auto
        var hosts = "/etc/hosts"
    }

    /// How the helper enforces: nftables' table, or /etc/hosts' section. `auto` picks nftables when `nft` runs.
    enum Backend: String {
        case auto, nftables, hosts
    }

    /// What one uid asked for last, as kept in the state file.
    struct Held: Codable, Equatable {
        var domains: [String]
        var lifts: [String: Double]
    }

    let options: Options
    /// The backend in use: never `auto` once `start()` has chosen.
    private(set) var backend: Backend
    /// The wall-clock time at which the hosts section must be written again (a lift's end), if any.
    private var relockAt: Double?
    /// Whether the last write of the hosts section failed (tried again every second).
    private var retryHosts = false
    private var users: [UInt32: Held] = [:]
    /// The addresses of each name, as last resolved (a name that stops resolving keeps what it had).
    private var addresses: [String: [String]] = [:]
    private var lastRefresh = 0.0
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()

    init(options: Options) {
        self.options = options
        backend = options.backend
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    static func wallNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    static func monotonicNow() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    // MARK: State

    /// Reads what the last run held (lifts that ended are dropped) and applies it; with no state file, the table is
    /// made empty. Throws when nft refuses: the helper then does not start.
    func start() throws(StrongShieldRefusal) {
        if backend == .auto { backend = Self.nftWorks(options.nft) ? .nftables : .hosts }
        log("backend: \(backend.rawValue)\(backend == .hosts ? " (weak: /etc/hosts; see docs/shields.md)" : "")")
        if let data = FileManager.default.contents(atPath: options.state),
            let held = try? decoder.decode([String: Held].self, from: data)
        {
            for (key, value) in held {
                guard let uid = UInt32(key) else { continue }
                users[uid] = value
            }
        }
        if backend == .nftables { refreshAddresses() }
        try apply(users)
    }

    /// Whether `nft` exists and works here: it can list the ruleset (a read, which needs CAP_NET_ADMIN and
    /// nf_tables in the kernel).
    static func nftWorks(_ nft: String) -> Bool {
        guard access(nft, X_OK) == 0,
            let result = try? CapturedCommand.run([nft, "list", "tables"], input: [], timeout: 10)
        else { return false }
        return result.exitCode == 0 && !result.timedOut
    }

    private func saveState() {
        var out: [String: Held] = [:]
        for (uid, held) in users { out[String(uid)] = held }
        guard let data = try? encoder.encode(out) else { return }
        let temporary = options.state + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        fsync(fd)
        close(fd)
        if written == data.count { rename(temporary, options.state) } else { unlink(temporary) }
    }

    /// The entries of the ruleset for `users`, from the addresses known.
    private func entries(_ users: [UInt32: Held], now: Double) -> [UInt32: [StrongShieldEntry]] {
        users.mapValues { held in
            held.domains.map { name in
                StrongShieldEntry(
                    domain: name, addresses: addresses[name] ?? [],
                    liftedUntil: held.lifts[name].flatMap { $0 > now ? $0 : nil })
            }
        }
    }

    /// Makes the table match `wanted` in one transaction; on failure nothing changed (nft applies all or nothing).
    private func apply(_ wanted: [UInt32: Held]) throws(StrongShieldRefusal) {
        let now = Self.wallNow()
        if backend == .hosts { return try applyHosts(wanted, now: now) }
        let script = StrongShieldRuleset.text(entries(wanted, now: now), now: now)
        let result: CapturedCommand.Result
        do {
            result = try CapturedCommand.run([options.nft, "-f", "-"], input: Array(script.utf8), timeout: 10)
        } catch {
            throw StrongShieldRefusal(
                "the helper cannot run \(options.nft): \((error as? any UserFacingError)?.message ?? "\(error)"); install nftables"
            )
        }
        guard result.exitCode == 0, !result.timedOut else {
            throw StrongShieldRefusal(
                "nft refused the ruleset (exit \(result.exitCode)); nothing was changed; see the helper's log")
        }
    }

    /// The hosts backend: /etc/hosts' section lists every name some uid holds unlifted (the file is the whole
    /// machine's), and the timer is armed for the earliest lift's end, when the file is written again. The file is
    /// written only when its text changes.
    private func applyHosts(_ wanted: [UInt32: Held], now: Double) throws(StrongShieldRefusal) {
        let states = wanted.mapValues { StrongShieldWanted(domains: $0.domains, lifts: $0.lifts) }
        let names = StrongShieldHosts.listed(states, now: now)
        relockAt = StrongShieldHosts.nextEnd(states, now: now)
        do throws(StrongShieldRefusal) {
            let old = try HostsFile.read(options.hosts)
            let new = StrongShieldHosts.spliced(old, names: names)
            if new != old { try HostsFile.write(options.hosts, new) }
            retryHosts = false
        } catch {
            retryHosts = true
            throw StrongShieldRefusal("cannot update \(options.hosts): \(error.message)")
        }
    }

    /// Seconds until the hosts section is due to be written again (a lift ended, or a write to retry); nil when
    /// nothing is due. Always nil with nftables, whose lifts the kernel ends.
    var relockDue: Double? {
        guard backend == .hosts else { return nil }
        if retryHosts { return 1 }
        return relockAt.map { max(0, $0 - Self.wallNow()) }
    }

    /// Writes the hosts section again when a lift has ended (or the last write failed).
    func relockIfDue() {
        guard backend == .hosts, retryHosts || (relockAt.map { $0 <= Self.wallNow() } ?? false) else { return }
        do throws(StrongShieldRefusal) { try apply(users) } catch { log(error.message) }
    }

    // MARK: Names

    /// The IPv4 and IPv6 addresses of `name` through the system's resolver (getaddrinfo), as text; nil when it does
    /// not resolve. getaddrinfo says nothing of TTLs: names are resolved again every `options.refresh` seconds.
    static func resolve(_ name: String) -> [String]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var out: [String] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let entry = node {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            if entry.pointee.ai_family == AF_INET {
                entry.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                }
            } else if entry.pointee.ai_family == AF_INET6 {
                entry.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                }
            }
            let text = String(cString: buffer)
            if !text.isEmpty, !out.contains(text) { out.append(text) }
            node = entry.pointee.ai_next
        }
        return Array(out.prefix(2 * StrongShield.mostAddressesPerDomain))
    }

    /// Resolves the names of `domains` not known yet.
    private func resolveNew(_ domains: [String]) {
        for name in domains where addresses[name] == nil {
            addresses[name] = Self.resolve(name) ?? []
        }
    }

    /// Resolves every held name again; returns whether any address changed.
    @discardableResult
    private func refreshAddresses() -> Bool {
        lastRefresh = Self.monotonicNow()
        let names = Set(users.values.flatMap(\.domains))
        var changed = false
        var fresh: [String: [String]] = [:]
        for name in names {
            let found = Self.resolve(name) ?? addresses[name] ?? []
            if found != addresses[name] { changed = true }
            fresh[name] = found
        }
        addresses = fresh
        return changed
    }

    /// Seconds until the next refresh is due.
    var refreshDue: Double { max(0, lastRefresh + options.refresh - Self.monotonicNow()) }

    /// The refresh: names resolved again, the table applied again when an address changed. A failure is logged and
    /// tried again at the next refresh; the old table stays meanwhile.
    func refresh() {
        if backend == .hosts {
            // No addresses to follow; the section is checked again (put back if someone took it out).
            lastRefresh = Self.monotonicNow()
            do throws(StrongShieldRefusal) { try apply(users) } catch { log(error.message) }
            return
        }
        if refreshAddresses() {
            do throws(StrongShieldRefusal) { try apply(users) } catch { log(error.message) }
        }
    }

    // MARK: Requests

    /// The answer to one line from `uid`.
    func handle(line: [UInt8], uid: UInt32) -> StrongShieldReply {
        guard let request = try? decoder.decode(StrongShieldRequest.self, from: Data(line)) else {
            return .refused("the request is not a JSON object of protocol version \(StrongShield.version)")
        }
        let now = Self.wallNow()
        let command: StrongShieldCommand
        do throws(StrongShieldRefusal) {
            command = try StrongShieldCommand.checked(request, peer: uid, now: now)
        } catch {
            return .refused(error.message)
        }
        switch command {
        case .status:
            return reply(uid: uid, now: now)
        case .set(let wanted):
            var next = users
            if wanted.domains.isEmpty {
                next[uid] = nil
            } else {
                guard users[uid] != nil || users.count < StrongShield.mostUsers else {
                    return .refused("the helper holds \(StrongShield.mostUsers) users already, the most it takes")
                }
                next[uid] = Held(domains: wanted.domains, lifts: wanted.lifts)
            }
            if backend == .nftables { resolveNew(wanted.domains) }
            do throws(StrongShieldRefusal) { try apply(next) } catch { return .refused(error.message) }
            users = next
            let names = Set(users.values.flatMap(\.domains))
            addresses = addresses.filter { names.contains($0.key) }
            saveState()
            return reply(uid: uid, now: now)
        }
    }

    private func reply(uid: UInt32, now: Double) -> StrongShieldReply {
        let held = users[uid] ?? Held(domains: [], lifts: [:])
        return StrongShieldReply(
            ok: true, uid: uid, backend: backend.rawValue, refreshSeconds: options.refresh,
            domains: held.domains.map { name in
                StrongShieldDomainState(
                    name: name, addresses: addresses[name] ?? [],
                    liftedUntil: held.lifts[name].flatMap { $0 > now ? $0 : nil })
            })
    }

    func encode(_ reply: StrongShieldReply) -> [UInt8] {
        var bytes = (try? encoder.encode(reply)).map { Array($0) } ?? Array(#"{"ok":false,"version":1}"#.utf8)
        bytes.append(10)
        return bytes
    }
}

func log(_ message: String) {
    let line = "hum-shieldd: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}
