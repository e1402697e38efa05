import FoundationEssentials
import HumCore
import HumSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The evidence hum gathers itself for a contract: a look at every watched path when the rounds start and again when
/// they end (files with their sizes, times, lines and words), and the commits made in between. Git is read through
/// the `git` command, every call built by `GitCommand` (a fixed configuration that runs nothing the repository names,
/// run directly, in a process group of its own, 10 s at most per call); without git, plain folders are still watched
/// and the evidence says commits could not be read.
public struct EvidenceGatherer {
    /// PATH, to find git.
    var searchPath: String?
    /// Bytes read in all to count lines and words in one look (the rest are compared by size and time only).
    var readBudget = 256 << 20
    private var notes: Set<String> = []

    public init(searchPath: String?) { self.searchPath = searchPath }

    var git: GitCommand? { GitCommand.find(searchPath: searchPath) }

    /// The top of the git work tree that holds `path` (a folder, or the folder of a file), if any.
    public func repository(of path: String) -> String? {
        guard let git else { return nil }
        var info = stat()
        let directory = stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR ? path : parent(path)
        guard
            let result = git.run(["rev-parse", "--show-toplevel"], in: directory, limit: 1 << 16),
            !result.timedOut, result.exitCode == 0
        else { return nil }
        var top = String(decoding: result.output, as: UTF8.self)
        while top.last?.isWhitespace == true { top.removeLast() }
        return top.hasPrefix("/") ? top : nil
    }

    private func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// Looks at every watched path now.
    public mutating func snapshot(_ watch: [String]) -> [WatchSnapshot] {
        var budget = readBudget
        return watch.map { snapshot(of: $0, budget: &budget) }
    }

    private mutating func snapshot(of path: String, budget: inout Int) -> WatchSnapshot {
        var info = stat()
        guard lstat(path, &info) == 0 else { return WatchSnapshot(path: path, kind: .missing, files: []) }
        let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
        var names: [String] = []
        var truncated = false
        var kind: WatchSnapshot.Kind = isDirectory ? .directory : .file
        var top: String? = nil
        if let git, let repository = repository(of: path) {
            kind = .git
            top = repository
            let listing = git.run(
                ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", path], in: repository,
                limit: 64 << 20)
            if let listing, !listing.timedOut, !listing.tooLong, listing.exitCode == 0 {
                var seen = Set<String>()
                for name in listing.output.split(separator: 0) {
                    let full = repository + "/" + String(decoding: name, as: UTF8.self)
                    if seen.insert(full).inserted { names.append(full) }
                }
            } else {
                notes.insert("git could not list the files of \(path); it was looked at as a plain folder")
                kind = isDirectory ? .directory : .file
                top = nil
            }
        }
        if top == nil {
            if isDirectory { walk(path, into: &names, truncated: &truncated) } else { names = [path] }
        } else if !isDirectory, names.isEmpty {
            names = [path]  // a file watched by name counts even when git ignores it
        }
        if names.count > ContractEvidence.fileLimit {
            names = Array(names.sorted().prefix(ContractEvidence.fileLimit))
            truncated = true
        }
        let files = names.compactMap { look(at: $0, budget: &budget) }
        return WatchSnapshot(
            path: path, kind: kind, repository: top, files: files, truncated: truncated,
            heads: top.flatMap { heads(of: $0) })
    }

    /// The commits the branches of a repository point to now.
    private func heads(of repository: String) -> [String]? {
        guard let git,
            let result = git.run(["rev-parse", "--branches"], in: repository, limit: 1 << 20),
            !result.timedOut, !result.tooLong, result.exitCode == 0
        else { return nil }
        return result.output.split(separator: 10).map { String(decoding: $0, as: UTF8.self) }.filter {
            $0.count >= 40 && $0.allSatisfy(\.isHexDigit)
        }
    }

    /// The files under a folder, hidden ones (and hidden folders) left out, symbolic links not followed.
    private func walk(_ root: String, into names: inout [String], truncated: inout Bool) {
        var pending = [root]
        while let directory = pending.popLast() {
            guard let handle = opendir(directory) else { continue }
            defer { closedir(handle) }
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard !name.hasPrefix(".") else { continue }
                let full = directory == "/" ? "/" + name : directory + "/" + name
                var info = stat()
                guard lstat(full, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: pending.append(full)
                case S_IFREG:
                    guard names.count <= ContractEvidence.fileLimit else {
                        truncated = true
                        return
                    }
                    names.append(full)
                default: break
                }
            }
        }
    }

    /// One regular file: its size and time, and its lines and words while the budget lasts.
    private mutating func look(at path: String, budget: inout Int) -> WatchedFile? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int64(info.st_size)
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        var file = WatchedFile(path: path, size: size, modified: modified, lines: nil, words: nil)
        guard size <= ContractEvidence.countLimit else { return file }
        guard size <= budget else {
            notes.insert("the watched files hold more than \(readBudget >> 20) MiB: some were compared by size only")
            return file
        }
        budget -= Int(size)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return file }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { raw in
                CapturedCommand.retrying { read(fd, raw.baseAddress! + got, raw.count - got) }
            }
            if n <= 0 { break }
            got += n
        }
        if let counted = TextCount.count(bytes[0..<got]) {
            file.lines = counted.lines
            file.words = counted.words
        }
        return file
    }

    /// The evidence of a session that started with `baseline` and ends now.
    public mutating func evidence(
        baseline: [WatchSnapshot], watch: [String], criteria: [String], from: Timestamp, to: Timestamp,
        calendar: LocalCalendar
    ) -> ContractEvidence {
        let now = snapshot(watch)
        var changes = ContractEvidence.changes(before: baseline, after: now)
        let uncounted = changes.filter { $0.change != .deleted && $0.linesAfter == nil }.count
        if uncounted > 0 {
            notes.insert(
                "\(uncounted) changed file\(uncounted == 1 ? " was" : "s were") binary or larger than "
                    + "\(ContractEvidence.countLimit >> 20) MiB: compared by size, lines and words not counted"
            )
        }
        let more = max(0, changes.count - ContractEvidence.changeLimit)
        changes = Array(changes.prefix(ContractEvidence.changeLimit))
        for root in now where root.truncated {
            notes.insert("only the first \(ContractEvidence.fileLimit) files under \(root.path) were looked at")
        }
        var commits: [CommitRecord] = []
        let repositories = Dictionary(grouping: now.filter { $0.kind == .git }, by: { $0.repository ?? "" })
        if git == nil, !watch.isEmpty {
            notes.insert("git was not found on PATH, so no commit could be read")
        }
        for (repository, roots) in repositories.sorted(by: { $0.key < $1.key }) where !repository.isEmpty {
            let known = baseline.first { $0.repository == repository }?.heads ?? []
            commits += self.commits(
                in: repository, paths: roots.map(\.path), after: known, from: from, to: to, calendar: calendar)
        }
        var mentions: [FileMention] = []
        for (i, criterion) in criteria.enumerated() {
            for name in ReviewWords.fileNames(criterion) {
                let found = now.flatMap(\.files).map(\.path).filter { ReviewWords.path($0, is: name) }
                mentions.append(FileMention(criterion: i + 1, name: name, found: Array(found.prefix(20))))
            }
        }
        return ContractEvidence(
            from: from, to: to,
            watch: now.map { .init(path: $0.path, kind: $0.kind, files: $0.files.count, truncated: $0.truncated) },
            files: changes, moreFiles: more, commits: Array(commits.prefix(ContractEvidence.changeLimit)),
            mentions: Array(mentions.prefix(ContractEvidence.changeLimit)),
            limits: notes.sorted())
    }

    /// The commits of a repository's branches that were not there at the first look (`after`: the heads then), whose
    /// commit time lies in [from, to], touching the watched paths.
    private mutating func commits(
        in repository: String, paths: [String], after heads: [String], from: Timestamp, to: Timestamp,
        calendar: LocalCalendar
    ) -> [CommitRecord] {
        guard let git else { return [] }
        let whole = paths.contains(repository)
        let result = git.run(
            [
                "log", "--branches", "--since=@\(from.epochSeconds - 1)", "--until=@\(to.epochSeconds + 1)",
                "--format=%x1e%H%x1f%ct%x1f%s", "--numstat", "--no-renames",
            ] + heads.prefix(1000).map { "^" + $0 } + (whole ? [] : ["--"] + paths), in: repository, limit: 16 << 20)
        guard let result, !result.timedOut, !result.tooLong, result.exitCode == 0 else {
            notes.insert("git could not read the commits of \(repository)")
            return []
        }
        var out: [CommitRecord] = []
        for record in result.output.split(separator: 0x1E) {
            let lines = record.split(separator: 10, omittingEmptySubsequences: true)
            guard let head = lines.first else { continue }
            let fields = head.split(separator: 0x1F, maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let time = Int64(String(decoding: fields[1], as: UTF8.self)),
                time >= from.epochSeconds, time <= to.epochSeconds
            else { continue }
            var files: [String] = []
            var insertions: Int64 = 0
            var deletions: Int64 = 0
            for line in lines.dropFirst() {
                let parts = line.split(separator: 9, maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count == 3 else { continue }
                insertions += Int64(String(decoding: parts[0], as: UTF8.self)) ?? 0
                deletions += Int64(String(decoding: parts[1], as: UTF8.self)) ?? 0
                if files.count < 1000 { files.append(repository + "/" + String(decoding: parts[2], as: UTF8.self)) }
            }
            out.append(
                CommitRecord(
                    repository: repository, hash: String(decoding: fields[0], as: UTF8.self), at: calendar.stamp(time),
                    subject: String(decoding: fields[2], as: UTF8.self), files: files, insertions: insertions,
                    deletions: deletions))
        }
        return out
    }

    /// The path with symbolic links resolved, or nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
