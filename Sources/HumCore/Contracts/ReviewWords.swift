/// The words a reviewer compares: what a criterion, a proof's text, a commit's subject or a file's name are about.
/// Deterministic and crude on purpose: lower case, short and common words dropped, a few English endings cut
/// (`cited`, `cites` and `cite` are the same word; `sources` and `source` too).
public enum ReviewWords {
    /// Words too common, or too vague, to tie a proof to a criterion.
    static let ignored: Set<String> = [
        "the", "and", "for", "with", "has", "have", "had", "are", "was", "were", "been", "being", "this", "that",
        "these", "those", "from", "into", "onto", "all", "any", "some", "done", "did", "does", "doing", "not", "but",
        "its", "our", "your", "their", "there", "then", "than", "also", "just", "more", "most", "very", "each", "who",
        "what", "when", "where", "which", "how", "why", "out", "about", "over", "under", "can", "will", "would",
        "should", "could", "may", "might", "must", "shall", "get", "got", "make", "made", "work", "worked", "working",
        "stuff", "thing", "things", "lot", "lots", "bit", "bits", "good", "well", "fine", "ok", "okay", "now", "today",
        "yes", "finished", "finish", "complete", "completed", "ready", "per",
    ]

    /// The significant words of a text, cut to their stems.
    public static func stems(_ text: String) -> Set<String> {
        var out = Set<String>()
        for word in words(text) {
            guard word.count >= 3, !ignored.contains(word) else { continue }
            let s = stem(word)
            if s.count >= 3 { out.insert(s) }
        }
        return out
    }

    /// Lower-case runs of letters and digits.
    static func words(_ text: String) -> [String] {
        var out: [String] = []
        var current = ""
        for c in text.lowercased() {
            if c.isLetter || c.isNumber {
                current.append(c)
            } else if !current.isEmpty {
                out.append(current)
                current = ""
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    static func stem(_ word: String) -> String {
        var w = word
        for suffix in ["ing", "ed", "es", "s"] where w.count > suffix.count + 2 && w.hasSuffix(suffix) {
            w.removeLast(suffix.count)
            break
        }
        if w.count > 3, w.hasSuffix("e") { w.removeLast() }
        return w
    }

    /// The file names a text mentions: words with a name and an extension (`intro.md`, `src/main.swift`), links
    /// left out.
    public static func fileNames(_ text: String) -> [String] {
        var out: [String] = []
        for raw in text.split(whereSeparator: { $0.isWhitespace || "\"'`“”‘’(),;<>[]{}".contains($0) }) {
            var token = Substring(raw)
            while let last = token.last, ".!?:".contains(last) { token.removeLast() }
            while let first = token.first, first == ":" { token.removeFirst() }
            guard !token.contains(":"), let dot = token.lastIndex(of: "."), dot != token.startIndex else { continue }
            let ext = token[token.index(after: dot)...]
            let base = token[..<dot]
            guard (1...8).contains(ext.count), ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
                ext.contains(where: \.isLetter), base.contains(where: { $0.isLetter || $0.isNumber }),
                !base.hasSuffix("."), (base.split(separator: "/").last?.count ?? 0) + ext.count > 2  // not e.g, i.e
            else { continue }
            let name = String(token)
            if !out.contains(name) { out.append(name) }
        }
        return out
    }

    /// Whether a path is the file a criterion names: the same name, or a path ending in it.
    public static func path(_ path: String, is name: String) -> Bool {
        path == name || path.hasSuffix("/" + name)
    }

    /// The significant words of a path's last component (`chapter-3.md`: chapter).
    public static func nameStems(_ path: String) -> Set<String> {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        let base = last.lastIndex(of: ".").map { String(last[..<$0]) } ?? last
        return stems(base)
    }
}
