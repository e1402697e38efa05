/// One file of a watched path as it was seen at one moment: its size and modification time, and its lines and words
/// when hum counted them (text files up to a size; nil for binary files and larger ones).
public struct WatchedFile: Sendable, Equatable, Codable {
    /// Absolute path.
    public var path: String
    public var size: Int64
    /// Modification time, nanoseconds since the epoch.
    public var modified: Int64
    public var lines: Int64?
    public var words: Int64?

    public init(path: String, size: Int64, modified: Int64, lines: Int64?, words: Int64?) {
        self.path = path
        self.size = size
        self.modified = modified
        self.lines = lines
        self.words = words
    }
}

/// What one watched path held at one moment.
public struct WatchSnapshot: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// A git work tree (or a folder inside one): its files as git lists them (ignored files left out), and its
        /// commits.
        case git
        case directory
        case file
        /// Nothing at that path.
        case missing
    }

    /// The watched path, absolute.
    public var path: String
    public var kind: Kind
    /// The top of the git work tree, for `.git`.
    public var repository: String?
    public var files: [WatchedFile]
    /// More files than hum lists (`ContractEvidence.fileLimit`): the rest were not looked at.
    public var truncated: Bool
    /// For `.git`: the commits the branches pointed to, so that only commits made after this look count.
    public var heads: [String]?

    public init(
        path: String, kind: Kind, repository: String? = nil, files: [WatchedFile], truncated: Bool = false,
        heads: [String]? = nil
    ) {
        self.path = path
        self.kind = kind
        self.repository = repository
        self.files = files
        self.truncated = truncated
        self.heads = heads
    }
}

/// A file that changed during a session: added, modified or deleted, with its line and word counts before and after.
public struct FileChange: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case added, modified, deleted }
    public var path: String
    public var change: Kind
    public var bytesBefore: Int64?
    public var bytesAfter: Int64?
    public var linesBefore: Int64?
    public var linesAfter: Int64?
    public var wordsBefore: Int64?
    public var wordsAfter: Int64?

    public init(
        path: String, change: Kind, bytesBefore: Int64? = nil, bytesAfter: Int64? = nil, linesBefore: Int64? = nil,
        linesAfter: Int64? = nil, wordsBefore: Int64? = nil, wordsAfter: Int64? = nil
    ) {
        self.path = path
        self.change = change
        self.bytesBefore = bytesBefore
        self.bytesAfter = bytesAfter
        self.linesBefore = linesBefore
        self.linesAfter = linesAfter
        self.wordsBefore = wordsBefore
        self.wordsAfter = wordsAfter
    }

    /// Lines after minus before (a new file counts from 0, a deleted one to 0); nil when either was not counted.
    public var lineDelta: Int64? { delta(linesBefore, linesAfter) }
    public var wordDelta: Int64? { delta(wordsBefore, wordsAfter) }

    private func delta(_ before: Int64?, _ after: Int64?) -> Int64? {
        let b = change == .added ? 0 : before
        let a = change == .deleted ? 0 : after
        guard let a, let b else { return nil }
        return a.subtracting(saturating: b)
    }

    /// `added, +12 lines, +340 words` (or the bytes when the words were not counted).
    public var summary: String {
        func signed(_ v: Int64) -> String { v >= 0 ? "+\(v)" : "\(v)" }
        var parts = [change.rawValue]
        if let l = lineDelta, let w = wordDelta {
            parts.append("\(signed(l)) line\(l.magnitude == 1 ? "" : "s")")
            parts.append("\(signed(w)) word\(w.magnitude == 1 ? "" : "s")")
        } else {
            let delta = (bytesAfter ?? 0).subtracting(saturating: bytesBefore ?? 0)
            parts.append("\(signed(delta)) bytes, not counted")
        }
        return parts.joined(separator: ", ")
    }

    enum CodingKeys: String, CodingKey {
        case path, change
        case bytesBefore = "bytes_before"
        case bytesAfter = "bytes_after"
        case linesBefore = "lines_before"
        case linesAfter = "lines_after"
        case wordsBefore = "words_before"
        case wordsAfter = "words_after"
    }
}

/// A commit made during a session, as git reports it.
public struct CommitRecord: Sendable, Equatable, Codable {
    public var repository: String
    public var hash: String
    public var at: Timestamp
    public var subject: String
    public var files: [String]
    public var insertions: Int64
    public var deletions: Int64

    public init(
        repository: String, hash: String, at: Timestamp, subject: String, files: [String], insertions: Int64,
        deletions: Int64
    ) {
        self.repository = repository
        self.hash = hash
        self.at = at
        self.subject = subject
        self.files = files
        self.insertions = insertions
        self.deletions = deletions
    }
}

/// A file a criterion names (`intro.md`), looked up under the watch list when the session ended.
public struct FileMention: Sendable, Equatable, Codable {
    /// The criterion, by number (1 is the first).
    public var criterion: Int
    public var name: String
    /// The watched files of that name (absolute paths), as the session ended.
    public var found: [String]

    public init(criterion: Int, name: String, found: [String]) {
        self.criterion = criterion
        self.name = name
        self.found = found
    }
}

/// What hum could check itself about a session: the files under the watch list that changed during it and the
/// commits made during it, with what it could not look at.
public struct ContractEvidence: Sendable, Equatable, Codable {
    public struct Watched: Sendable, Equatable, Codable {
        public var path: String
        public var kind: WatchSnapshot.Kind
        public var files: Int
        public var truncated: Bool
        public init(path: String, kind: WatchSnapshot.Kind, files: Int, truncated: Bool) {
            self.path = path
            self.kind = kind
            self.files = files
            self.truncated = truncated
        }
    }

    public var from: Timestamp
    public var to: Timestamp
    public var watch: [Watched]
    public var files: [FileChange]
    /// Changed files beyond the ones listed.
    public var moreFiles: Int
    public var commits: [CommitRecord]
    public var mentions: [FileMention]
    /// What hum could not check, in plain words.
    public var limits: [String]

    public init(
        from: Timestamp, to: Timestamp, watch: [Watched], files: [FileChange], moreFiles: Int = 0,
        commits: [CommitRecord], mentions: [FileMention] = [], limits: [String] = []
    ) {
        self.from = from
        self.to = to
        self.watch = watch
        self.files = files
        self.moreFiles = moreFiles
        self.commits = commits
        self.mentions = mentions
        self.limits = limits
    }

    enum CodingKeys: String, CodingKey {
        case from, to, watch, files, commits, mentions, limits
        case moreFiles = "more_files"
    }

    /// At most this many files are looked at per watched path, and this many changes kept.
    public static let fileLimit = 20_000
    public static let changeLimit = 200
    /// Files larger than this are compared by size and time only (their lines and words are not counted).
    public static let countLimit: Int64 = 4 << 20

    /// Whether hum saw anything it could check: a changed file or a commit.
    public var hasCheckable: Bool { !files.isEmpty || !commits.isEmpty }

    /// The files that changed between two looks at the same watched paths (a file seen in either counts).
    public static func changes(before: [WatchSnapshot], after: [WatchSnapshot]) -> [FileChange] {
        var old: [String: WatchedFile] = [:]
        for root in before { for f in root.files { old[f.path] = f } }
        var new: [String: WatchedFile] = [:]
        for root in after { for f in root.files { new[f.path] = f } }
        var out: [FileChange] = []
        for path in Set(old.keys).union(new.keys).sorted() {
            switch (old[path], new[path]) {
            case (nil, let a?):
                out.append(
                    FileChange(path: path, change: .added, bytesAfter: a.size, linesAfter: a.lines, wordsAfter: a.words)
                )
            case (let b?, nil):
                out.append(
                    FileChange(
                        path: path, change: .deleted, bytesBefore: b.size, linesBefore: b.lines, wordsBefore: b.words))
            case (let b?, let a?) where b.size != a.size || b.modified != a.modified:
                out.append(
                    FileChange(
                        path: path, change: .modified, bytesBefore: b.size, bytesAfter: a.size, linesBefore: b.lines,
                        linesAfter: a.lines, wordsBefore: b.words, wordsAfter: a.words))
            default:
                break
            }
        }
        return out
    }

    /// What is wrong with its numbers and sizes, or nil (an import is checked before anything is written).
    public func validationProblem() -> String? {
        if let p = LedgerBounds.problem(from, "evidence: its start") ?? LedgerBounds.problem(to, "evidence: its end") {
            return p
        }
        guard watch.count <= ContractBounds.listCount, files.count <= ContractEvidence.changeLimit,
            commits.count <= ContractEvidence.changeLimit, mentions.count <= ContractEvidence.changeLimit,
            limits.count <= ContractEvidence.changeLimit, (0...Int(Int32.max)).contains(moreFiles)
        else { return "evidence holds more files, commits or notes than hum keeps" }
        for c in commits {
            if let p = LedgerBounds.problem(c.at, "evidence: commit \(c.hash)") { return p }
            guard c.files.count <= ContractEvidence.fileLimit else { return "evidence: a commit lists too many files" }
        }
        return nil
    }
}

/// Lines and words of a text, as `wc -l` and `wc -w` count them: newlines (plus one for a last line without its
/// newline), and runs of characters between white space. Binary content (a NUL byte) is not counted.
public enum TextCount {
    public static func count<C: Collection>(_ bytes: C) -> (lines: Int64, words: Int64)? where C.Element == UInt8 {
        var lines: Int64 = 0
        var words: Int64 = 0
        var inWord = false
        var last: UInt8 = 10
        for b in bytes {
            if b == 0 { return nil }
            let space = b == 32 || (9...13).contains(b)
            if b == 10 { lines += 1 }
            if space {
                inWord = false
            } else if !inWord {
                inWord = true
                words += 1
            }
            last = b
        }
        if last != 10 { lines += 1 }
        return (lines, words)
    }
}
