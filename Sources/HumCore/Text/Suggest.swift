/// "Did you mean" for commands, options, sounds and settings: the closest candidate by edit distance (a swap of
/// two neighbouring letters counts as one edit, so `rian` finds `rain` and `strom` finds `storm`), or a candidate
/// the word begins (`--volum` finds `--volume`).
public enum Suggest {
    public static func closest(to word: String, in candidates: [String]) -> String? {
        let lower = word.lowercased()
        guard !lower.isEmpty, lower != "--" else { return nil }
        let length = lower.count
        let allowed = max(1, min(3, length / 3))
        // The distance is at least the difference of the lengths: a candidate further than `allowed` by length
        // alone is scored by it, so a word of 100 kB typed by mistake costs no table of 100 kB by each candidate.
        let scored = candidates.map { candidate in
            let gap = abs(candidate.count - length)
            return (candidate, gap > allowed ? gap : distance(lower, candidate.lowercased()))
        }
        // The nearest candidates; a tie is broken by the one that starts like the word, then by table order.
        guard let best = scored.map(\.1).min() else { return nil }
        let nearest = scored.filter { $0.1 == best }
        if best <= allowed {
            return (nearest.first { $0.0.lowercased().hasPrefix(String(lower.prefix(1))) } ?? nearest[0]).0
        }
        let prefixed = candidates.filter { $0.lowercased().hasPrefix(lower) && length >= 3 }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var twoBack = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, twoBack[j - 2] + 1) }
                current[j] = d
            }
            (twoBack, previous, current) = (previous, current, twoBack)
        }
        return previous[b.count]
    }
}
