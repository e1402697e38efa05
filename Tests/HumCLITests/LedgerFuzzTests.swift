import Foundation
import HumCore
import HumTestSupport
import Testing

@testable import HumCLI

/// Generated and mutated input for every parser that takes outside data: imports (JSON lines and one JSON document),
/// the duration, date, instant, volume and mix words of the command line, and the settings. Each runs thousands of
/// inputs and asserts the exit code (or the parsed value's range), and that nothing traps (a trap ends the run).
@Suite struct LedgerFuzzTests {
    /// Words that make parsers work at their edges.
    static let edges = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "1e308", "-1", "0", "1e-9", "NaN",
        "\"\"", "null", "true", "[]", "{}", "366", "31622400", "316224000", "316224001", "253402300799",
        "\"0001-01-01T00:00:00Z\"", "\"9999-12-31T23:59:59+23:59\"", "\"1969-12-31T23:59:59Z\"",
    ]

    /// A small real ledger to mutate: corrections, rounds of each kind with mixes and tags, a spend, an emergency.
    static func sourceLedger() -> Sandbox {
        let s = Sandbox()
        _ = s.run("ledger", "adjust", "+2h", "--reason", "seed")
        // One after the other: rounds recorded by hand may not overlap.
        _ = s.run("history", "record", "--active", "25m", "--id", "r1", "--tag", "a", "--sound", "rain=40")
        _ = s.run(
            "history", "record", "--active", "5m", "--kind", "short-break", "--id", "r2", "--start",
            "2025-03-30T09:00:00+02:00")
        _ = s.run(
            "history", "record", "--active", "10m", "--status", "interrupted", "--id", "r3", "--goal", "g", "--start",
            "2025-03-30T09:10:00+02:00")
        _ = s.run("spend", "5m", "--on", "video", "--key", "k1")
        _ = s.run("emergency", "1m", "--reason", "call")
        return s
    }

    struct Mutator {
        var rng: SplitMix64
        mutating func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(max(1, n))) }

        /// One mutation of a JSON text: a value swapped for an edge, a byte changed, a line cut, doubled, moved or
        /// dropped, a word of a kind changed, or a generated record added.
        mutating func mutate(_ text: String) -> String {
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            switch pick(8) {
            case 0, 1:  // a number or a string value replaced by an edge
                let i = pick(lines.count)
                var line = Array(lines[i])
                let colons = line.indices.filter { line[$0] == ":" }
                guard let colon = colons.isEmpty ? nil : colons[pick(colons.count)] else { break }
                var end = colon + 1
                var inString = false
                while end < line.count {
                    let c = line[end]
                    if c == "\"" { inString.toggle() }
                    if !inString && (c == "," || c == "}" || c == "]") { break }
                    end += 1
                }
                line.replaceSubrange(
                    (colon + 1)..<end, with: Array(LedgerFuzzTests.edges[pick(LedgerFuzzTests.edges.count)]))
                lines[i] = String(line)
            case 2:  // bytes changed
                var bytes = Array(lines.joined(separator: "\n").utf8)
                for _ in 0..<(1 + pick(3)) where !bytes.isEmpty {
                    bytes[pick(bytes.count)] = UInt8(truncatingIfNeeded: rng.next())
                }
                return String(decoding: bytes, as: UTF8.self)
            case 3:  // a line doubled or dropped
                let i = pick(lines.count)
                if pick(2) == 0 { lines.insert(lines[i], at: i) } else { lines.remove(at: i) }
            case 4:  // lines swapped
                lines.swapAt(pick(lines.count), pick(lines.count))
            case 5:  // a word changed for another of the same family
                let words = [
                    "grant", "spend", "hold", "settle", "emergency", "adjustment", "completed", "interrupted",
                    "running", "skipped", "focus", "short-break", "session", "entry", "header",
                ]
                let from = words[pick(words.count)]
                let to = words[pick(words.count)]
                if let i = lines.indices.filter({ lines[$0].contains("\"\(from)\"") }).first {
                    lines[i] = lines[i].replacingOccurrences(of: "\"\(from)\"", with: "\"\(to)\"")
                }
            case 6:  // cut short
                let joined = lines.joined(separator: "\n")
                return String(joined.prefix(pick(joined.count + 1)))
            default:  // a generated record: an entry that may mint time, or a session
                let id = "g\(rng.next() % 1000)"
                let at = "2025-0\(1 + pick(9))-1\(pick(10))T12:00:00+01:00"
                let amount = [60, -60, 600, 0, 36_000][pick(5)]
                // As hum writes them (text and key of their request), so that the import gets past the entry's own
                // rules to the ledger's: holds without settles, settles above their holds, grants without rounds.
                let pass = "p\(pick(3))"
                let used = pick(100)
                let held = abs(amount) + 1
                let round = "r\(pick(5))"
                let records = [
                    "{\"id\":\"\(id)\",\"key\":\"settle:\(pass)\",\"kind\":\"settle\",\"amount_seconds\":\(abs(amount)),\"at\":\"\(at)\",\"device\":\"x\",\"payload\":\"settle pass=\(pass) used=\(used)\",\"pass_id\":\"\(pass)\",\"used_seconds\":\(used),\"forfeit\":false}",
                    "{\"id\":\"\(id)\",\"key\":\"pass:\(pass)\",\"kind\":\"hold\",\"amount_seconds\":\(-held),\"at\":\"\(at)\",\"device\":\"x\",\"payload\":\"hold pass=\(pass) \(held) forfeit=false on=\",\"pass_id\":\"\(pass)\",\"forfeit\":false}",
                    "{\"id\":\"\(id)\",\"key\":\"round:\(round)\",\"kind\":\"grant\",\"amount_seconds\":\(abs(amount)),\"at\":\"\(at)\",\"device\":\"x\",\"payload\":\"grant round=\(round) active=1500\",\"round_id\":\"\(round)\",\"requested_seconds\":\(abs(amount)),\"cut_seconds\":0,\"cap_seconds\":10800}",
                    "{\"type\":\"session\",\"id\":\"r\(pick(6))\",\"kind\":\"focus\",\"status\":\"completed\",\"start\":\"\(at)\",\"end\":\"\(at)\",\"planned_seconds\":1500,\"active_seconds\":1500,\"paused_seconds\":0,\"mix\":[],\"goal\":null,\"tags\":[],\"earned_seconds\":\(abs(amount))}",
                ]
                lines.insert(records[pick(records.count)], at: pick(lines.count + 1))
            }
            return lines.joined(separator: "\n")
        }
    }

    /// What the ledger holds, to tell that a refused import changed nothing.
    func state(_ s: Sandbox) -> String {
        s.run("ledger", "export").out + s.run("history", "--json").out
    }

    func fuzzImport(format: String, seed: UInt64, count: Int, source: Sandbox = sourceLedger()) throws {
        let exported = source.run("export", "--format", format).out
        #expect(!exported.isEmpty)
        var mutator = Mutator(rng: SplitMix64(seed: seed))
        let target = Sandbox()
        let file = target.root + "/in.\(format)"
        var accepted = 0
        var refused = 0
        for i in 0..<count {
            var text = exported
            for _ in 0..<(1 + mutator.pick(3)) { text = mutator.mutate(text) }
            if format == "json" && mutator.pick(4) == 0 {
                // The document as JSON lines would carry it: one record per line (the document form's records).
                text = text.replacingOccurrences(of: "},{", with: "},\n{")
            }
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let before = state(target)
            let r = target.run("ledger", "import", file)
            #expect([0, 1, 3].contains(r.code), "input \(i): exit \(r.code) \(r.err)")
            #expect(r.err.split(separator: "\n").count <= 1, "input \(i): \(r.err)")
            if r.code == 0 {
                accepted += 1
                let check = target.run("ledger", "check")
                #expect(check.code == 0, "input \(i) was accepted and fails the check: \(check.err)\n\(text)")
                #expect(target.run("history").code == 0 && target.run("ledger").code == 0)
            } else {
                refused += 1
                #expect(state(target) == before, "input \(i) was refused but changed the ledger")
            }
        }
        #expect(accepted > count / 20 && refused > count / 20, "accepted \(accepted), refused \(refused)")
    }

    @Test func importOfMutatedJSONLines() throws { try fuzzImport(format: "jsonl", seed: 1, count: 1500) }
    @Test func importOfMutatedJSONDocuments() throws { try fuzzImport(format: "json", seed: 2, count: 1000) }

    /// Random words from an alphabet that covers every parser's grammar and its neighbours.
    static func word(_ rng: inout SplitMix64) -> String {
        let pieces = [
            "0", "1", "9", "25", "90", "366", "1000", "9999", "99999999999999999999", ".", "..", "-", "+", "e", "h",
            "m", "min", "s", "ms", "d", "=", ":", "T", "Z", "z", " ", "2025", "-03-", "30", "12:00:00", "+01:00",
            "-23:59", "1970-01-01", "0001-01-01", "9999-12-31", "today", "yesterday", "rain", "é", "\u{0}", "\n",
            "1e9", "NaN", "inf", "0x10", "٣", "monday", "Sun", "last week", "this month", "last", "week",
        ]
        return (0..<(1 + Int(rng.next() % 6))).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()
    }

    /// Every duration, date, instant, volume and mix word: thousands of generated inputs each; an accepted value is
    /// within its range, a refused one says why, nothing traps.
    @Test func valueKindsNeverTrapAndKeepTheirRanges() {
        var rng = SplitMix64(seed: 77)
        let calendar = LocalCalendar(clock: ManualClock(1_700_000_000), zone: FixedZone(offsetSeconds: 3600))
        let year = 366.0 * 86_400
        for _ in 0..<5000 {
            let text = Self.word(&rng)
            func check<T>(_ kind: ValueKind<T>, _ valid: (T) -> Bool) {
                switch kind.read(text) {
                case .success(let value): #expect(valid(value), "\(text.debugDescription) read as \(value)")
                case .failure(let problem): #expect(!problem.text.isEmpty && !problem.text.contains("\n"))
                }
            }
            check(ValueKind<Double>.duration) { $0 >= 0 && $0 <= year }
            check(ValueKind<Double>.positiveDuration) { $0 > 0 && $0 <= year }
            check(ValueKind<Double>.volume) { (0...100).contains($0) }
            check(ValueKind<Int64>.seconds) { $0 >= 1 && Double($0) <= year }
            check(ValueKind<Int64>.signedSeconds) { $0 != 0 && Double(abs($0)) <= year }
            check(ValueKind<Int64>.elapsedSeconds) { $0 >= 0 && Double($0) <= year }
            check(ValueKind<Int>.count(1...99)) { (1...99).contains($0) }
            check(ValueKind<Timestamp>.instant) { LedgerBounds.epoch.contains($0.epochSeconds) }
            check(ValueKind<MixItem>.mixItem) { $0.volume.isFinite && (0...1).contains($0.volume) }
            check(ValueKind<DateWord>.date) { word in
                let from = word.epoch(endOfDay: false, calendar: calendar)
                let to = word.epoch(endOfDay: true, calendar: calendar)
                switch word {
                case .instant: return from == to
                case .week: return to > from && to - from <= 7 * 25 * 3600
                case .month: return to > from && to - from <= 31 * 25 * 3600
                default: return to > from && to - from <= 25 * 3600
                }
            }
        }
    }

    /// The same words on the command line: usage errors exit 2 with one line, nothing else comes out.
    @Test func commandLineWordsExitByTheirKind() {
        var rng = SplitMix64(seed: 78)
        let s = Sandbox()
        _ = s.run("ledger", "adjust", "+10h", "--reason", "seed")
        for i in 0..<600 {
            // Control characters aside: showing them escaped in messages is the terminal-output work's.
            let text = String(Self.word(&rng).unicodeScalars.filter { $0.value >= 0x20 })
            let words: [[String]] = [
                ["spend", text, "--on", "x"], ["ledger", "adjust", text, "--reason", "x"],
                ["ledger", "--since", text], ["history", "--until", text],
                ["history", "record", "--active", "1m", "--start", text],
                ["history", "record", "--active", text, "--paused", text],
            ]
            let r = s.run(words[i % words.count])
            #expect([0, 2, 3].contains(r.code), "\(words[i % words.count]): exit \(r.code) \(r.err)")
            if r.code != 0 { #expect(r.err.hasPrefix("hum: ") && r.err.split(separator: "\n").count == 1) }
        }
        #expect(s.run("ledger", "check").code == 0)
        #expect(s.run("history").code == 0)
    }

    /// The settings: random values for each key; an accepted one is within its range and reads back as itself.
    @Test func configValuesNeverTrapAndRoundTrip() {
        var rng = SplitMix64(seed: 79)
        for _ in 0..<5000 {
            let text = Self.word(&rng)
            for key in LedgerConfig.keys + ["earn.rati0"] {
                var config = LedgerConfig()
                do {
                    try config.set(key, to: text)
                    #expect(LedgerConfig.ratioMilli.contains(config.earnRatioMilli))
                    #expect((0...86_400).contains(config.dailyCapSeconds))
                    #expect((0...(7 * 86_400)).contains(config.emergencyWeeklySeconds))
                    var again = LedgerConfig()
                    try again.set(key, to: try config.text(for: key))
                    #expect(again == config, "\(key) \(text.debugDescription)")
                } catch {
                    #expect(!error.message.isEmpty && !error.message.contains("\n"))
                }
            }
        }
        let s = Sandbox()
        for i in 0..<300 {
            let r = s.run("config", "set", LedgerConfig.keys[i % 3], Self.word(&rng))
            #expect([0, 2].contains(r.code), "exit \(r.code) \(r.err)")
        }
        #expect(s.run("config", "list").code == 0)
        _ = s.run("history", "record", "--active", "25m")
        #expect(s.run("ledger", "check").code == 0)
    }
}
