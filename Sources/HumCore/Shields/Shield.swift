/// A shield: a named set of programs that stay frozen while it is up (docs/shields.md). Names and targets are
/// checked where they enter (`Shield.checkedName`, `ShieldTarget.checked`), so a stored shield is always valid.
public struct Shield: Sendable, Hashable, Codable {
    public var name: String
    public var targets: [ShieldTarget]
    public var created: Timestamp
    /// Its daily quota of lifted time that costs nothing from the bank, when it has one (docs/rules.md).
    public var quota: ShieldQuota?

    public init(name: String, targets: [ShieldTarget], created: Timestamp, quota: ShieldQuota? = nil) {
        self.name = name
        self.targets = targets
        self.created = created
        self.quota = quota
    }

    /// The longest name: short enough for a status line and a notification.
    public static let longestName = 32
    /// The most targets one shield holds: enough for a family of launchers, few enough to match quickly.
    public static let mostTargets = 64

    /// The name, or why it cannot be one: 1 to 32 of a-z, 0-9, `-` and `_`, starting with a letter or digit, so that
    /// it is one word in a shell, in `--on NAME`, and in a file name.
    public static func checkedName(_ text: String) throws(ShieldProblem) -> String {
        guard !text.isEmpty else { throw ShieldProblem("a shield needs a name, for example games or social") }
        let allowed = text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
        guard allowed, text.utf8.count <= longestName, let first = text.unicodeScalars.first,
            ("a"..."z").contains(first) || ("0"..."9").contains(first)
        else {
            throw ShieldProblem(
                "\(text.quoted) is not a shield name: use 1 to \(longestName) lower-case letters, digits, - or _, "
                    + "starting with a letter or digit (for example games or social)")
        }
        return text
    }
}

/// One program a shield names, the way people know it.
public enum ShieldTarget: Sendable, Hashable {
    /// The executable's name (`steam`): its file name, its command name (`comm`), or the name it was called by.
    case app(String)
    /// A regular expression searched in the command line, its words joined by spaces (for launchers and
    /// interpreters: `--match 'java .*minecraft'`).
    case match(String)
    /// The desktop application id (`org.telegram.desktop`), from the process's environment or its systemd scope.
    case desktopID(String)
    /// A website, for the browser extension (`--site 'reddit.com/r/*'`): it names no program.
    case site(SitePattern)

    /// The words the command line, the database and JSON use for each kind.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case app
        case match
        case desktopID = "desktop-id"
        case site
    }

    public var kind: Kind {
        switch self {
        case .app: .app
        case .match: .match
        case .desktopID: .desktopID
        case .site: .site
        }
    }

    public var value: String {
        switch self {
        case .app(let v), .match(let v), .desktopID(let v): v
        case .site(let pattern): pattern.text
        }
    }

    /// How the target is written on the command line: `--app steam`.
    public var option: String { "--\(kind.rawValue) \(value)" }

    /// The longest executable name and desktop id Linux has (NAME_MAX); the longest pattern.
    public static let longestName = 255
    public static let longestPattern = 500

    /// The target of `kind` named by `text`, or why it cannot be one.
    public static func checked(_ kind: Kind, _ text: String) throws(ShieldProblem) -> ShieldTarget {
        guard !text.isEmpty, !text.contains(where: { $0.isNewline || $0 == "\0" }) else {
            throw ShieldProblem("--\(kind.rawValue) needs a value on one line, for example \(example(kind))")
        }
        switch kind {
        case .app:
            guard !text.contains("/"), text.utf8.count <= longestName, text != ".", text != ".." else {
                throw ShieldProblem(
                    "--app \(text.quoted) is not an executable's name: give the file name alone, without a folder "
                        + "(for example --app steam); to match a path use --match")
            }
            return .app(text)
        case .match:
            guard text.utf8.count <= longestPattern else {
                throw ShieldProblem("--match pattern is longer than \(longestPattern) bytes; write a shorter one")
            }
            let regex: Regex<AnyRegexOutput>
            do { regex = try Regex(text) } catch {
                throw ShieldProblem(
                    "--match \(text.quoted) is not a regular expression (\(String(describing: error))); for example "
                        + "--match 'java .*minecraft'")
            }
            // A pattern that matches the empty text matches every process: a mistake, never a program.
            if "".contains(regex) {
                throw ShieldProblem(
                    "--match \(text.quoted) matches an empty command line, so it would match every program; name "
                        + "something the program's command line holds, for example --match 'java .*minecraft'")
            }
            return .match(text)
        case .desktopID:
            var id = Substring(text)
            if id.hasSuffix(".desktop") { id = id.dropLast(".desktop".count) }
            let allowed = id.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || $0 == "." || $0 == "-" || $0 == "_"
            }
            guard !id.isEmpty, allowed, id.utf8.count <= longestName else {
                throw ShieldProblem(
                    "--desktop-id \(text.quoted) is not a desktop application id: use letters, digits, '.', '-' "
                        + "and '_', as in the .desktop file's name (for example org.telegram.desktop)")
            }
            return .desktopID(String(id))
        case .site:
            return .site(try SitePattern.checked(text))
        }
    }

    static func example(_ kind: Kind) -> String {
        switch kind {
        case .app: "--app steam"
        case .match: "--match 'java .*minecraft'"
        case .desktopID: "--desktop-id org.telegram.desktop"
        case .site: "--site youtube.com"
        }
    }
}

extension ShieldTarget: Codable {
    private enum CodingKeys: String, CodingKey { case kind, value }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try c.decode(Kind.self, forKey: .kind)
        let value = try c.decode(String.self, forKey: .value)
        switch kind {
        case .app: self = .app(value)
        case .match: self = .match(value)
        case .desktopID: self = .desktopID(value)
        case .site: self = .site(try SitePattern.checked(value))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(value, forKey: .value)
    }
}

/// Why a shield's name or target cannot be taken (a usage error: the words say what to write instead).
public struct ShieldProblem: Error, Sendable, Equatable, UserFacingError {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var kind: FailureKind { .usage }
}

/// What a shield does to a program it names (`shield.action`): keep it frozen (its state kept, resumed by a lift), or
/// freeze it and, after `shield.grace`, ask it to end (SIGTERM, then SIGKILL if it is still there
/// `ShieldAction.killAfter` seconds later), as timekpr-nExT's PlayTime does.
public enum ShieldAction: String, Sendable, CaseIterable {
    case freeze
    case terminate

    /// Seconds from SIGTERM to SIGKILL for a program that does not end.
    public static let killAfter: Int64 = 5
}
