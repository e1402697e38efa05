/// The history as an iCalendar file (RFC 5545): one VEVENT per finished round, so rounds show in a calendar app.
///
/// Times keep the offset they were recorded with: each distinct offset gets a VTIMEZONE of its own (TZID
/// `UTC+0100`, one STANDARD rule with that fixed offset), and DTSTART and DTEND name theirs, so a reader gets
/// back the same instant and the same local time. Lines end in CRLF and are folded at 75 octets without splitting
/// a UTF-8 character; text values are escaped (`\\`, `\;`, `\,`, `\n`) and other control characters are replaced.
/// Running rounds have no end yet and are left out.
public enum ICalendar {
    /// Writes the calendar through `write`, a few kilobytes at a time.
    public static func write(
        rounds: [RoundRecord], exportedAt: Timestamp, version: String, _ write: (String) throws -> Void
    ) rethrows {
        var out = ""
        func line(_ text: String) { out += fold(text) }
        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:-//hum//hum \(text(version))//EN")
        line("CALSCALE:GREGORIAN")
        line("METHOD:PUBLISH")
        line("X-WR-CALNAME:hum")
        let finished = rounds.filter { $0.end != nil && $0.status != .running }
        var offsets = Set<Int32>()
        for r in finished {
            offsets.insert(r.start.offsetSeconds)
            if let end = r.end { offsets.insert(end.offsetSeconds) }
        }
        for offset in offsets.sorted() {
            let name = zoneName(offset)
            line("BEGIN:VTIMEZONE")
            line("TZID:\(name)")
            line("BEGIN:STANDARD")
            line("DTSTART:19700101T000000")
            line("TZOFFSETFROM:\(utcOffset(offset))")
            line("TZOFFSETTO:\(utcOffset(offset))")
            line("TZNAME:\(name)")
            line("END:STANDARD")
            line("END:VTIMEZONE")
        }
        let stamp = utc(exportedAt)
        for r in finished {
            guard let end = r.end else { continue }
            line("BEGIN:VEVENT")
            line("UID:\(text(r.id))@hum")
            line("DTSTAMP:\(stamp)")
            line("DTSTART;TZID=\(zoneName(r.start.offsetSeconds)):\(local(r.start))")
            // An event that takes no time has no DTEND (RFC 5545: it ends where it starts).
            if end.epochSeconds > r.start.epochSeconds {
                line("DTEND;TZID=\(zoneName(end.offsetSeconds)):\(local(end))")
            }
            line("SUMMARY:\(text(summary(r)))")
            line("DESCRIPTION:\(text(description(r)))")
            if !r.tags.isEmpty { line("CATEGORIES:" + r.tags.map(text).joined(separator: ",")) }
            line("TRANSP:OPAQUE")
            line("X-HUM-KIND:\(r.kind.rawValue)")
            line("X-HUM-STATUS:\(r.status.rawValue)")
            line("X-HUM-ACTIVE-SECONDS:\(r.activeSeconds)")
            line("X-HUM-PAUSED-SECONDS:\(r.pausedSeconds)")
            line("X-HUM-EARNED-SECONDS:\(r.earnedSeconds)")
            line("END:VEVENT")
            if out.utf8.count >= 1 << 16 {
                try write(out)
                out = ""
            }
        }
        line("END:VCALENDAR")
        try write(out)
    }

    static func summary(_ r: RoundRecord) -> String {
        var s: String
        switch r.kind {
        case .focus: s = "Focus"
        case .shortBreak: s = "Short break"
        case .longBreak: s = "Long break"
        }
        if let goal = r.goal, !goal.isEmpty { s += ": " + goal }
        if r.status != .completed { s += " (\(r.status.rawValue))" }
        return s
    }

    static func description(_ r: RoundRecord) -> String {
        let f = DurationText.format
        var parts = [
            "\(r.status.rawValue): \(f(r.activeSeconds)) active, \(f(r.pausedSeconds)) paused, "
                + "\(f(r.plannedSeconds)) planned"
        ]
        if r.kind == .focus { parts.append("earned \(f(r.earnedSeconds))") }
        if !r.tags.isEmpty { parts.append("tags " + r.tags.joined(separator: " ")) }
        if !r.mix.isEmpty {
            parts.append(
                "mix "
                    + r.mix.map { "\($0.sound)=\(MixSpec.formatVolume(($0.volume * 100).rounded()))" }.joined(
                        separator: " "))
        }
        parts.append("hum round \(r.id)")
        return parts.joined(separator: "\n")
    }

    /// `UTC+0100`, `UTC-0330`, `UTC+0000`: no colon, which a parameter value may not hold unquoted.
    public static func zoneName(_ offset: Int32) -> String { "UTC" + utcOffset(offset) }

    /// RFC 5545's utc-offset: `+0100`, `-0330` (`+013015` with seconds).
    static func utcOffset(_ offset: Int32) -> String {
        let a = Int(offset.magnitude)
        return (offset < 0 ? "-" : "+") + two(a / 3600) + two(a % 3600 / 60) + (a % 60 == 0 ? "" : two(a % 60))
    }

    /// The local time on the recorded clock: `20250330T093000`.
    static func local(_ t: Timestamp) -> String {
        let d = t.localDate
        let s = Int(t.localSecondOfDay)
        return four(d.year) + two(d.month) + two(d.day) + "T" + two(s / 3600) + two(s % 3600 / 60) + two(s % 60)
    }

    /// UTC: `20250330T083000Z`.
    static func utc(_ t: Timestamp) -> String {
        local(Timestamp(epochSeconds: t.epochSeconds, offsetSeconds: 0)) + "Z"
    }

    static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    static func four(_ n: Int) -> String { String(repeating: "0", count: max(0, 4 - String(n).count)) + String(n) }

    /// A TEXT value: backslash, semicolon, comma and line ends escaped; other control characters (which RFC 5545
    /// does not allow in text) replaced by U+FFFD.
    public static func text(_ value: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(value.unicodeScalars.count)
        var previousCR = false
        for c in value.unicodeScalars {
            defer { previousCR = c == "\r" }
            switch c {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": if !previousCR { out += "\\n" }
            case "\r": out += "\\n"
            case "\t": out.unicodeScalars.append(c)
            default:
                if c.value < 0x20 || c.value == 0x7F || (0x80...0x9F).contains(c.value) {
                    out.unicodeScalars.append("\u{FFFD}")
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out
    }

    /// A content line folded at 75 octets (a CRLF and a space before each continuation), never inside a UTF-8
    /// character, with its CRLF.
    public static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        guard bytes.count > 75 else { return line + "\r\n" }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 70 * 3 + 2)
        var start = 0
        var limit = 75
        while start < bytes.count {
            var end = min(bytes.count, start + limit)
            // Back off to the start of a character (a continuation byte is 10xxxxxx).
            while end < bytes.count, end > start, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            if start > 0 { out += [0x0D, 0x0A, 0x20] }
            out += bytes[start..<end]
            start = end
            limit = 74  // the leading space counts
        }
        out += [0x0D, 0x0A]
        return String(decoding: out, as: UTF8.self)
    }
}
