/// A website a shield names (`--site youtube.com`, `--site 'reddit.com/r/*'`): a domain, optionally with a path.
/// Checked where it enters (`SitePattern.checked`), so a stored one is always canonical: the domain in lower case,
/// no scheme, no port.
///
/// What it matches (`matches(url:)`, docs/shields.md "Sites"):
/// - the domain and every subdomain of it (`youtube.com` matches `www.youtube.com` and `m.youtube.com`, never
///   `notyoutube.com`), on any scheme (http, https) and any port;
/// - with no path, every page of it; with a path, that path and everything below it (`youtube.com/shorts` matches
///   `/shorts` and `/shorts/abc`, not `/shortsfan`), case-sensitively, the query and fragment never counted;
/// - `*` in the path stands for any run of characters, `/` included, and none (`reddit.com/r/*` matches `/r/` and
///   `/r/games/comments/1`, not `/r` itself; `reddit.com/r/*/comments` matches `/r/x/comments/1`).
///
/// The browser extension matches the same way (contrib/browser/patterns.js); `regexSource` is the one regular
/// expression both sides can use.
public struct SitePattern: Sendable, Hashable {
    /// The domain, lower case, without a trailing dot.
    public let domain: String
    /// The path, starting with `/`, or nil for every page.
    public let path: String?

    /// The text stored and shown: `youtube.com`, `reddit.com/r/*`.
    public var text: String { domain + (path ?? "") }

    /// The longest domain DNS allows; the longest pattern.
    public static let longestDomain = 253
    public static let longestText = 500

    init(domain: String, path: String?) {
        self.domain = domain
        self.path = path
    }

    /// The pattern `text` names, or why it cannot be one. `https://` or `http://` before it is dropped; a `*` in the
    /// domain, a port, a query or a fragment is refused with what to write instead.
    public static func checked(_ text: String) throws(ShieldProblem) -> SitePattern {
        let example = "for example --site youtube.com or --site 'reddit.com/r/*'"
        guard !text.isEmpty, text.utf8.count <= longestText,
            text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw ShieldProblem(
                "--site \(text.quoted) is not a website: give a domain and maybe a path, in printable ASCII without "
                    + "spaces (a domain in another script in its xn-- form), up to \(longestText) bytes; \(example)")
        }
        var rest = Substring(text)
        for scheme in ["https://", "http://"] where rest.lowercased().hasPrefix(scheme) {
            rest = rest.dropFirst(scheme.count)
        }
        guard !rest.contains("?"), !rest.contains("#") else {
            throw ShieldProblem(
                "--site \(text.quoted) has a query or fragment (? or #), which a site never matches on; give the "
                    + "domain and path alone, \(example)")
        }
        let slash = rest.firstIndex(of: "/")
        var host = slash.map { rest[..<$0] } ?? rest
        let path = slash.map { String(rest[$0...]) }
        if host.hasSuffix(".") { host = host.dropLast() }
        let domain = host.lowercased()
        guard !domain.contains("*") else {
            throw ShieldProblem(
                "--site \(text.quoted): no * in the domain; a site matches its subdomains already "
                    + "(--site youtube.com matches www.youtube.com)")
        }
        guard !domain.contains(":") else {
            throw ShieldProblem("--site \(text.quoted): give the domain without a port; a site matches every port")
        }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        let wellFormed =
            !domain.isEmpty && domain.utf8.count <= longestDomain
            && labels.allSatisfy { label in
                !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.unicodeScalars.allSatisfy {
                        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                    }
            }
        guard wellFormed else {
            throw ShieldProblem(
                "--site \(text.quoted) is not a website: the domain needs labels of letters, digits and -, joined by "
                    + "dots; \(example)")
        }
        if let path, path.contains("//") {
            throw ShieldProblem("--site \(text.quoted): the path has an empty part (//); \(example)")
        }
        // A bare "/" is every page, as no path is.
        return SitePattern(domain: domain, path: path == "/" ? nil : path)
    }

    /// Whether this pattern's domain is `host` or a parent of it. `host` is compared in lower case, without a
    /// trailing dot.
    public func matches(host: String) -> Bool {
        var h = host.lowercased()
        if h.hasSuffix(".") { h.removeLast() }
        return h == domain || h.hasSuffix("." + domain)
    }

    /// Whether this pattern's path rule holds for `path` (the URL's path, `/` when empty, without query).
    public func matches(path: String) -> Bool {
        guard let pattern = self.path else { return true }
        let p = path.isEmpty ? "/" : path
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        // Where the pattern ends in `/` or `*`, everything after it is below it; else a `/` must follow, or nothing.
        let open = pattern.hasSuffix("/") || pattern.hasSuffix("*")
        return Self.glob(parts, p, open: open)
    }

    /// Whether `url` (http or https, as the browser shows it) is a page of this site.
    public func matches(url: String) -> Bool {
        guard let (host, path) = Self.hostAndPath(url) else { return false }
        return matches(host: host) && matches(path: path)
    }

    /// The host and path of an http(s) URL, or nil for any other. The user info and port are dropped; the query
    /// and fragment are not part of the path.
    public static func hostAndPath(_ url: String) -> (host: String, path: String)? {
        let lower = url.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }) else { return nil }
        let rest = url.dropFirst(scheme.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let colon = authority.lastIndex(of: ":"), !authority.hasPrefix("[") {
            authority = authority[..<colon]
        }
        var path = rest[authorityEnd...]
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<cut] }
        return (String(authority), path.isEmpty ? "/" : String(path))
    }

    /// `parts` (the pattern cut at each `*`) cover `text`: the first part at its start, each later one somewhere
    /// after; then `text` ends, or (not `open`) continues with `/`, or (`open`) continues with anything.
    static func glob(_ parts: [String], _ text: String, open: Bool) -> Bool {
        let t = Array(text.utf8)
        let ps = parts.map { Array($0.utf8) }
        // Anchored start.
        guard t.starts(with: ps[0]) else { return false }
        if ps.count == 1 {
            let rest = t[ps[0].count...]
            return rest.isEmpty || open || rest.first == UInt8(ascii: "/")
        }
        // Backtracking over the stars: small patterns, short paths.
        func from(_ i: Int, part k: Int) -> Bool {
            if k == ps.count - 1 {
                // The last part: it may sit at any position from i on, then the rest must end or go below it.
                let last = ps[k]
                if last.isEmpty { return true }  // the pattern ends in *
                var j = i
                while j + last.count <= t.count {
                    if t[j..<(j + last.count)].elementsEqual(last) {
                        let after = j + last.count
                        if after == t.count || open || t[after] == UInt8(ascii: "/") { return true }
                    }
                    j += 1
                }
                return false
            }
            let part = ps[k]
            var j = i
            while j + part.count <= t.count {
                if t[j..<(j + part.count)].elementsEqual(part), from(j + part.count, part: k + 1) { return true }
                j += 1
            }
            return false
        }
        return from(ps[0].count, part: 1)
    }

    /// An RE2/ECMAScript regular expression that matches exactly the http(s) URLs this pattern matches (for the
    /// browser's declarativeNetRequest `regexFilter`): scheme, any user info, the domain or a subdomain, any port,
    /// then the path rule, then a query or fragment or nothing.
    public var regexSource: String {
        let host = "^https?://([^/?#@]*@)?([^/?#:@]*\\.)?" + Self.escaped(domain) + "\\.?(:[0-9]+)?"
        guard let path else { return host + "([/?#]|$)" }
        let body = path.split(separator: "*", omittingEmptySubsequences: false).map { Self.escaped(String($0)) }
            .joined(separator: "[^?#]*")
        let open = path.hasSuffix("/") || path.hasSuffix("*")
        return host + body + (open ? "" : "(/[^?#]*)?([?#]|$)")
    }

    static func escaped(_ s: String) -> String {
        var out = ""
        for c in s {
            if "\\^$.|?*+()[]{}".contains(c) { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
