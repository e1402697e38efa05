import HumCore

/// The lines the runtime says about a contract (HumCLI's `ContractText` says the rest).
public enum ContractLines {
    /// `2 files changed (intro.md: modified, +3 lines, +40 words; …), 1 commit (“Cite sources”)`.
    public static func evidence(_ e: ContractEvidence) -> String {
        let count = e.files.count + e.moreFiles
        var parts: [String] = []
        if count == 0 {
            parts.append("no watched file changed")
        } else {
            let shown = e.files.prefix(3).map { "\(name($0.path)): \($0.summary)" }.joined(separator: "; ")
            parts.append("\(count) file\(count == 1 ? "" : "s") changed (\(shown)\(count > 3 ? "; …" : ""))")
        }
        if e.commits.isEmpty {
            parts.append("no commit")
        } else {
            let shown = e.commits.prefix(2).map { "“\($0.subject.visible)”" }.joined(separator: ", ")
            parts.append(
                "\(e.commits.count) commit\(e.commits.count == 1 ? "" : "s") "
                    + "(\(shown)\(e.commits.count > 2 ? ", …" : ""))"
            )
        }
        return parts.joined(separator: ", ")
    }

    /// A path's last part, with control characters shown escaped.
    static func name(_ path: String) -> String { (path.split(separator: "/").last.map(String.init) ?? path).visible }
}
