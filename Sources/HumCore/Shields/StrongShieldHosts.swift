/// Strong mode's weak fallback (docs/shields.md, "Where nftables is missing"): where the helper cannot use nftables
/// it keeps one marked section at the start of `/etc/hosts` that sends every shielded name to `0.0.0.0` and `::`.
/// Pure: what the section says, and how it is put into (and taken out of) the file's text. The text is handled as
/// bytes, so a file that is not UTF-8 is kept byte for byte too.
///
/// /etc/hosts is the whole machine's: it cannot say "for uid 1000 only". A name is listed while any user's state
/// shields it and it is not lifted for every user that holds it.
public enum StrongShieldHosts {
    /// The section's first and last lines.
    public static let begin = "# BEGIN hum-shieldd (managed; do not edit)"
    public static let end = "# END hum-shieldd"

    /// The names to list: every domain some uid holds without a lift in force at `now` (epoch seconds), sorted.
    public static func listed(_ users: [UInt32: StrongShieldWanted], now: Double) -> [String] {
        var names = Set<String>()
        for wanted in users.values {
            for name in wanted.domains where !(wanted.lifts[name].map { $0 > now } ?? false) {
                names.insert(name)
            }
        }
        return names.sorted()
    }

    /// The earliest end of a lift in force at `now`: the file must be written again then, since no kernel relocks it.
    public static func nextEnd(_ users: [UInt32: StrongShieldWanted], now: Double) -> Double? {
        users.values.flatMap { wanted in wanted.lifts.values.filter { $0 > now } }.min()
    }

    /// The section for `names`, each line ended by `newline`; empty when there are no names. Only well-formed domain
    /// names are written (`StrongShield.checkedDomain`), so nothing else from a request reaches the file.
    public static func section(_ names: [String], newline: [UInt8] = [10]) -> [UInt8] {
        let names = names.filter { StrongShield.checkedDomain($0) == $0 }
        guard !names.isEmpty else { return [] }
        var out = Array(begin.utf8) + newline
        for name in names {
            out += Array("0.0.0.0 \(name)".utf8) + newline
            out += Array(":: \(name)".utf8) + newline
        }
        return out + Array(end.utf8) + newline
    }

    /// `text` without hum-shieldd's section(s), everything else byte for byte. A section is a `begin` line up to the
    /// next `end` line; of it, the marker lines and the lines of the section's own form (`0.0.0.0 name`, `:: name`)
    /// are taken out, and any other line someone wrote in there is kept. A `begin` with no `end` after it (a file cut
    /// short) loses only itself and the lines of the section's form right after it. An `end` with no `begin` before it
    /// is not ours to judge and is kept.
    public static func stripped(_ text: [UInt8]) -> [UInt8] {
        let lines = splitLines(text)
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var index = 0
        while index < lines.count {
            let line = lines[index]
            guard content(line) == begin else {
                out += line
                index += 1
                continue
            }
            let closing = lines[(index + 1)...].firstIndex { content($0) == end || content($0) == begin }
            if let closing, content(lines[closing]) == end {
                for inner in lines[(index + 1)..<closing] where !isOwnForm(inner) { out += inner }
                index = closing + 1
            } else {
                index += 1
                while index < lines.count, isOwnForm(lines[index]) { index += 1 }
            }
        }
        return out
    }

    /// `text` with its section (if any) replaced by one for `names`, put first: glibc reads /etc/hosts from the top,
    /// and the rest of the file follows untouched, whatever its last line ends with. The section's lines end as the
    /// file's do (`\r\n` when its first line ends so). With no names, the section is only taken out.
    public static func spliced(_ text: [UInt8], names: [String]) -> [UInt8] {
        let rest = stripped(text)
        let first = splitLines(rest).first ?? []
        let newline: [UInt8] = first.count >= 2 && first[first.count - 2] == 13 && first.last == 10 ? [13, 10] : [10]
        return section(names, newline: newline) + rest
    }

    /// The lines of `text`, each with its terminator (the last may have none).
    private static func splitLines(_ text: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = text.startIndex
        for index in text.indices where text[index] == 10 {
            lines.append(text[start...index])
            start = index + 1
        }
        if start < text.endIndex { lines.append(text[start...]) }
        return lines
    }

    /// A line without its `\n` or `\r\n`, as text (invalid UTF-8 never equals a marker).
    private static func content(_ line: ArraySlice<UInt8>) -> String {
        var body = line
        if body.last == 10 { body.removeLast() }
        if body.last == 13 { body.removeLast() }
        return String(decoding: body, as: UTF8.self)
    }

    /// Whether a line is one the section itself writes.
    private static func isOwnForm(_ line: ArraySlice<UInt8>) -> Bool {
        let text = content(line)
        for prefix in ["0.0.0.0 ", ":: "] where text.hasPrefix(prefix) {
            let name = String(text.dropFirst(prefix.count))
            return StrongShield.checkedDomain(name) == name
        }
        return false
    }
}
