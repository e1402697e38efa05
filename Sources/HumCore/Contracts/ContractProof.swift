/// The proof of a contract as the user gives it: a text, files, links and the criteria ticked off. It stays editable
/// (`hum proof ID --text … --file … --link … --check N`) until it is submitted for review.
public struct ContractProof: Sendable, Equatable, Codable {
    public var text: String?
    /// Absolute paths (resolved when they were given).
    public var files: [String]
    public var links: [String]
    /// Criteria ticked off, by their number (1 is the first `--done-when`), ascending.
    public var checked: [Int]

    public init(text: String? = nil, files: [String] = [], links: [String] = [], checked: [Int] = []) {
        self.text = text
        self.files = files
        self.links = links
        self.checked = checked
    }

    /// Nothing given at all (a text of white space counts as nothing).
    public var isEmpty: Bool {
        !(text ?? "").contains(where: { !$0.isWhitespace }) && files.isEmpty && links.isEmpty && checked.isEmpty
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(text, forKey: .text)
        try c.encode(files, forKey: .files)
        try c.encode(links, forKey: .links)
        try c.encode(checked, forKey: .checked)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        text = try c.decodeIfPresent(String.self, forKey: .text)
        files = try c.decodeIfPresent([String].self, forKey: .files) ?? []
        links = try c.decodeIfPresent([String].self, forKey: .links) ?? []
        checked = try c.decodeIfPresent([Int].self, forKey: .checked) ?? []
    }

    enum CodingKeys: String, CodingKey { case text, files, links, checked }

    /// What is wrong with it, or nil (`criteria`: how many criteria its contract has).
    public func validationProblem(criteria: Int) -> String? {
        if let text, !ContractBounds.text(text, required: false) {
            return "a proof's text is longer than \(ContractBounds.textBytes) bytes"
        }
        guard files.count + links.count <= ContractBounds.listCount else {
            return "a proof holds at most \(ContractBounds.listCount) files and links"
        }
        for item in files + links where item.isEmpty || item.utf8.count > 4096 {
            return "a proof's file or link is empty or longer than 4096 bytes"
        }
        guard checked.allSatisfy({ (1...max(1, criteria)).contains($0) }) else {
            return "a proof ticks a criterion its contract does not have"
        }
        return nil
    }
}

/// What hum found of one file or link of a proof, when it was submitted.
public struct ProofCheck: Sendable, Equatable, Codable {
    public enum Finding: String, Sendable, Codable {
        /// Under the watch list, and changed during the session (`change` says how).
        case changed
        /// Under the watch list, but not changed during the session.
        case unchanged
        /// Not under the watch list: hum did not read it.
        case outsideWatch = "outside_watch"
        /// There is no such file.
        case missing
        /// A link: hum does not open links, so what it shows is not checked.
        case link
    }

    public var item: String
    public var finding: Finding
    public var change: FileChange?

    public init(item: String, finding: Finding, change: FileChange? = nil) {
        self.item = item
        self.finding = finding
        self.change = change
    }

    /// Where a file of the proof stands, from what the session's evidence says and where the watch list is.
    /// `path` is absolute and resolved (symbolic links followed, when it exists).
    public static func file(_ path: String, exists: Bool, watch: [String], evidence: ContractEvidence?) -> ProofCheck {
        if let change = evidence?.files.first(where: { $0.path == path }) {
            return ProofCheck(item: path, finding: .changed, change: change)
        }
        let watched = watch.contains { root in path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/") }
        guard exists else { return ProofCheck(item: path, finding: .missing) }
        return ProofCheck(item: path, finding: watched ? .unchanged : .outsideWatch)
    }

    /// What this finding means for a reader, in a few words.
    public var note: String {
        switch finding {
        case .changed:
            return change.map { "changed during the session (\($0.summary))" } ?? "changed during the session"
        case .unchanged: return "under the watch list, but not changed during the session"
        case .outsideWatch: return "outside the watch list: hum did not read it"
        case .missing: return "does not exist"
        case .link: return "a link: hum does not open links, so what it shows is not checked"
        }
    }
}
