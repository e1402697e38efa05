import HumTestSupport
import Testing

@testable import HumCore

/// `hum export --format ical`, checked against RFC 5545's rules by a reader of the test's own: CRLF lines of at most
/// 75 octets, folding that never cuts a UTF-8 character, matched BEGIN/END, the properties each component must
/// have, escaped TEXT, a VTIMEZONE for every TZID used; and every round's start and end read back to the same
/// instant with the same offset.
@Suite struct ICalendarTests {
    struct Property {
        var name: String
        var parameters: [String: String]
        var value: String
    }

    struct Component {
        var name: String
        var properties: [Property] = []
        var children: [Component] = []
        func all(_ name: String) -> [Property] { properties.filter { $0.name == name } }
        func one(_ name: String) -> Property? { all(name).count == 1 ? all(name)[0] : nil }
    }

    enum Invalid: Error { case rule(String) }

    /// Reads an iCalendar stream, failing on any rule of RFC 5545 (section 3.1, 3.3.11, 3.4, 3.6) it breaks.
    static func read(_ text: String) throws -> Component {
        let bytes = Array(text.utf8)
        // Lines: CRLF only, at most 75 octets each, continuation lines start with a space or a tab.
        var physical: [[UInt8]] = []
        var current: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0D {
                guard i + 1 < bytes.count, bytes[i + 1] == 0x0A else { throw Invalid.rule("a CR without LF") }
                physical.append(current)
                current = []
                i += 2
                continue
            }
            guard bytes[i] != 0x0A else { throw Invalid.rule("a LF without CR") }
            current.append(bytes[i])
            i += 1
        }
        guard current.isEmpty else { throw Invalid.rule("the last line does not end in CRLF") }
        var logical: [[UInt8]] = []
        for line in physical {
            guard line.count <= 75 else { throw Invalid.rule("a line of \(line.count) octets") }
            guard String(validating: line, as: UTF8.self) != nil else {
                throw Invalid.rule("a fold cut a UTF-8 character: \(line)")
            }
            if let first = line.first, first == 0x20 || first == 0x09 {
                guard !logical.isEmpty else { throw Invalid.rule("a continuation first") }
                logical[logical.count - 1] += line.dropFirst()
            } else {
                logical.append(line)
            }
        }
        var stack: [Component] = []
        var root: Component? = nil
        for bytes in logical {
            let line = String(decoding: bytes, as: UTF8.self)
            guard let colon = line.firstIndex(of: ":") else { throw Invalid.rule("no colon: \(line)") }
            let head = line[..<colon]
            let value = String(line[line.index(after: colon)...])
            var parts = head.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            let name = parts.removeFirst()
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber || $0 == "-") }) else {
                throw Invalid.rule("a bad name: \(name)")
            }
            var parameters: [String: String] = [:]
            for p in parts {
                let kv = p.split(separator: "=", maxSplits: 1).map(String.init)
                guard kv.count == 2, !kv[1].contains(where: { $0 == ";" || $0 == ":" || $0 == "," }) else {
                    throw Invalid.rule("a bad parameter: \(p)")
                }
                parameters[kv[0]] = kv[1]
            }
            for c in value.unicodeScalars where (c.value < 0x20 && c != "\t") || c.value == 0x7F {
                throw Invalid.rule("a control character in \(name)")
            }
            switch name {
            case "BEGIN": stack.append(Component(name: value))
            case "END":
                guard let top = stack.popLast(), top.name == value else { throw Invalid.rule("END:\(value) unmatched") }
                if stack.isEmpty {
                    guard root == nil else { throw Invalid.rule("two calendars") }
                    root = top
                } else {
                    stack[stack.count - 1].children.append(top)
                }
            default:
                guard !stack.isEmpty else { throw Invalid.rule("\(name) outside a component") }
                stack[stack.count - 1].properties.append(Property(name: name, parameters: parameters, value: value))
            }
        }
        guard stack.isEmpty, let calendar = root, calendar.name == "VCALENDAR" else {
            throw Invalid.rule("not one whole VCALENDAR")
        }
        guard calendar.one("VERSION")?.value == "2.0", calendar.one("PRODID") != nil else {
            throw Invalid.rule("VERSION or PRODID")
        }
        return calendar
    }

    /// A TEXT value unescaped; a backslash before anything but \ ; , n N is an error.
    static func unescape(_ text: String) throws -> String {
        var out = ""
        var escaped = false
        for c in text {
            if escaped {
                switch c {
                case "\\", ";", ",": out.append(c)
                case "n", "N": out.append("\n")
                default: throw Invalid.rule("a bad escape \\\(c)")
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                guard c != ";" && c != "," else { throw Invalid.rule("an unescaped \(c) in text") }
                out.append(c)
            }
        }
        guard !escaped else { throw Invalid.rule("a lone backslash at the end") }
        return out
    }

    /// `20250330T093000` at the offset of its TZID, as a Timestamp.
    static func time(_ property: Property, zones: [String: Int32]) throws -> Timestamp {
        guard let tzid = property.parameters["TZID"], let offset = zones[tzid] else {
            throw Invalid.rule("\(property.name) without a defined TZID")
        }
        let v = Array(property.value.utf8)
        guard v.count == 15, v[8] == UInt8(ascii: "T") else { throw Invalid.rule("a bad DATE-TIME") }
        let s = property.value
        let text =
            "\(s.prefix(4))-\(s.dropFirst(4).prefix(2))-\(s.dropFirst(6).prefix(2))T\(s.dropFirst(9).prefix(2)):\(s.dropFirst(11).prefix(2)):\(s.dropFirst(13).prefix(2))Z"
        guard let utcLocal = Timestamp(rfc3339: text) else { throw Invalid.rule("a bad DATE-TIME \(s)") }
        return Timestamp(epochSeconds: utcLocal.epochSeconds - Int64(offset), offsetSeconds: offset)
    }

    static func offset(_ text: String) throws -> Int32 {
        let b = Array(text.utf8)
        guard b.count == 5 || b.count == 7, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"),
            let h = Int32(text.dropFirst().prefix(2)), let m = Int32(text.dropFirst(3).prefix(2))
        else { throw Invalid.rule("a bad UTC offset \(text)") }
        let s = b.count == 7 ? Int32(text.suffix(2)) ?? 0 : 0
        return (h * 3600 + m * 60 + s) * (b[0] == UInt8(ascii: "-") ? -1 : 1)
    }

    static func rounds() -> [RoundRecord] {
        var rounds = HistoryReportTests.fixture()
        // Text that needs every escape, a long line of multi-byte characters, a round that took no time.
        var odd = HistoryReportTests.round("odd", "2025-03-31", 20, tags: ["a,b", "c;d"], goal: nil)
        odd.goal = "draft; part 2, \\ end\nsecond line \u{1B}[2J " + String(repeating: "é€😀", count: 30)
        rounds.append(odd)
        rounds.append(HistoryReportTests.round("zero", "2025-03-31", 21, active: 0, status: .interrupted))
        return rounds
    }

    static func render(_ rounds: [RoundRecord]) -> String {
        var text = ""
        ICalendar.write(rounds: rounds, exportedAt: Timestamp(rfc3339: "2025-04-01T10:00:00+02:00")!, version: "0.1.0")
        {
            text += $0
        }
        return text
    }

    @Test func followsRFC5545AndRoundTripsTimesWithTheirOffsets() throws {
        let rounds = Self.rounds()
        let calendar = try Self.read(Self.render(rounds))
        var zones: [String: Int32] = [:]
        for zone in calendar.children where zone.name == "VTIMEZONE" {
            let tzid = try #require(zone.one("TZID")?.value)
            let standard = try #require(zone.children.first { $0.name == "STANDARD" })
            #expect(standard.one("DTSTART") != nil)
            let from = try Self.offset(try #require(standard.one("TZOFFSETFROM")?.value))
            let to = try Self.offset(try #require(standard.one("TZOFFSETTO")?.value))
            #expect(from == to)
            zones[tzid] = to
        }
        #expect(Set(zones.values) == [-14_400, 3600, 7200])
        let events = calendar.children.filter { $0.name == "VEVENT" }
        let finished = rounds.filter { $0.status != .running }
        #expect(events.count == finished.count)
        var uids = Set<String>()
        for (event, round) in zip(events, finished) {
            let uid = try #require(event.one("UID")?.value)
            #expect(uids.insert(uid).inserted)
            #expect(try Self.unescape(uid) == round.id + "@hum")
            #expect(event.one("DTSTAMP")?.value == "20250401T080000Z")
            let start = try Self.time(try #require(event.one("DTSTART")), zones: zones)
            #expect(start == round.start && start.rfc3339 == round.start.rfc3339)
            if let dtend = event.one("DTEND") {
                let end = try Self.time(dtend, zones: zones)
                #expect(end == round.end && end > start)
            } else {
                #expect(round.end?.epochSeconds == round.start.epochSeconds)
            }
            let summary = try Self.unescape(try #require(event.one("SUMMARY")?.value))
            #expect(summary.hasPrefix(round.kind == .focus ? "Focus" : "Short break"))
            _ = try Self.unescape(try #require(event.one("DESCRIPTION")?.value))
            if !round.tags.isEmpty {
                // CATEGORIES is a list: split on unescaped commas.
                let raw = try #require(event.one("CATEGORIES")?.value)
                var items: [String] = []
                var item = ""
                var escaped = false
                for c in raw {
                    if escaped {
                        item.append("\\")
                        item.append(c)
                        escaped = false
                    } else if c == "\\" {
                        escaped = true
                    } else if c == "," {
                        items.append(item)
                        item = ""
                    } else {
                        item.append(c)
                    }
                }
                items.append(item)
                #expect(try items.map(Self.unescape) == round.tags)
            }
        }
        let odd = try #require(events.first { $0.one("UID")?.value == "odd@hum" })
        let summary = try Self.unescape(try #require(odd.one("SUMMARY")?.value))
        #expect(summary.hasPrefix("Focus: draft; part 2, \\ end\nsecond line \u{FFFD}[2J é€😀"))
    }

    @Test func foldingNeverCutsACharacterAndUnfoldsToTheLine() {
        var rng = SplitMix64(seed: 15)
        let pieces = ["a", "é", "€", "😀", " ", "\\;", "x"]
        for _ in 0..<500 {
            let line = "DESCRIPTION:" + (0..<Int(rng.next() % 200)).map { _ in pieces[Int(rng.next() % 7)] }.joined()
            let folded = ICalendar.fold(line)
            #expect(folded.hasSuffix("\r\n"))
            // "\r\n" is one Character in Swift.
            let parts = folded.dropLast().split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
            #expect(parts.allSatisfy { $0.utf8.count <= 75 })
            #expect(parts.dropFirst().allSatisfy { $0.hasPrefix(" ") })
            #expect(parts.first! + parts.dropFirst().map { String($0.dropFirst()) }.joined() == line)
        }
    }

    @Test func textIsEscaped() {
        #expect(ICalendar.text("a;b,c\\d\ne\r\nf\u{7}") == "a\\;b\\,c\\\\d\\ne\\nf\u{FFFD}")
        #expect(ICalendar.zoneName(-16_200) == "UTC-0430" && ICalendar.zoneName(0) == "UTC+0000")
    }
}
