import Testing

@testable import HumCore

/// The journal's fast paths against the general ones they stand in for: a line written straight into bytes is the
/// canonical form of its members (as a `JournalJSON` tree writes it), and the one-pass read of a line accepts only
/// what the checked read accepts, with the same result, for lines as written and for lines damaged in many ways.
@Suite struct JournalFastPathTests {
    /// A line as the general writer makes it: the members as a `JournalJSON` object, the hash over its canonical
    /// bytes, then the object again with the hash.
    static func reference(_ line: JournalLine) throws -> [UInt8] {
        var members: [String: JournalJSON] = [
            "format": .string(JournalLine.format), "v": .int(JournalLine.version), "device": .string(line.device),
            "seq": .int(line.seq), "hlc": line.time.json, "prev": .string(line.prev),
            "kind": .string(line.event.kind.rawValue), "event": try line.event.payload(),
        ]
        members["hash"] = .string(SHA256.hex(JournalJSON.object(members).canonicalBytes))
        return JournalJSON.object(members).canonicalBytes
    }

    static let awkward = [
        "plain", "", "quote \" and \\ backslash", "line\nfeed\r\ttab", "\u{01}\u{1f}\u{7f}", "é ünï 😀", "/slash",
        "{\"json\":[1]}",
    ]

    /// Entries of every kind with every optional field present or not, and awkward strings.
    static func entries(_ rng: inout SplitMix64) -> [LedgerEntry] {
        var out: [LedgerEntry] = []
        for n in 0..<400 {
            let kind = EntryKind.allCases[n % EntryKind.allCases.count]
            let pick = { (rng: inout SplitMix64) in awkward[Int(rng.next() % UInt64(awkward.count))] }
            let offset = Int32(Int(rng.next() % 57) - 28) * 1800
            var e = LedgerEntry(
                id: "id-\(n)-\(pick(&rng))", key: rng.next() % 2 == 0 ? nil : "key \(pick(&rng))", kind: kind,
                amount: Int64(rng.next() % 20_000) - 10_000,
                at: Timestamp(epochSeconds: 1_600_000_000 + Int64(rng.next() % 300_000_000), offsetSeconds: offset),
                device: "dev\(n % 3)", payload: pick(&rng))
            func maybe<T>(_ value: T, _ rng: inout SplitMix64) -> T? { rng.next() % 2 == 0 ? nil : value }
            e.label = maybe(pick(&rng), &rng)
            e.reason = maybe(pick(&rng), &rng)
            e.roundID = maybe("r\(n)", &rng)
            e.passID = maybe("p\(n)", &rng)
            e.contractID = maybe("c\(n)", &rng)
            e.requested = maybe(Int64(rng.next() % 10_000), &rng)
            e.cut = maybe(Int64(rng.next() % 100), &rng)
            e.cap = maybe(0, &rng)
            e.used = maybe(Int64(rng.next() % 7200), &rng)
            e.forfeit = maybe(rng.next() % 2 == 0, &rng)
            e.reserve = maybe(Int64(rng.next() % 3600), &rng)
            e.allowance = maybe(Int64.max / 4, &rng)
            out.append(e)
        }
        return out
    }

    @Test func anEntryWrittenDirectlyIsItsCodableCanonicalForm() throws {
        var rng = SplitMix64(seed: 7)
        for e in Self.entries(&rng) {
            var direct: [UInt8] = []
            e.writeJournalPayload(to: &direct)
            let general = try JournalJSON.encoding(e).canonicalBytes
            #expect(direct == general, "\(String(decoding: general, as: UTF8.self))")
            let read = direct.withUnsafeBufferPointer { LedgerEntry.readJournalPayload($0) }
            #expect(read == e)
        }
    }

    /// An entry's payload damaged byte by byte: whatever the direct read still accepts writes back to the same bytes
    /// (it takes only the canonical form, so the fast read of a line need not write the entry back to compare).
    @Test func anEntryReadDirectlyWritesBackToTheSameBytes() throws {
        var rng = SplitMix64(seed: 31)
        let entries = Self.entries(&rng)
        var accepted = 0
        var refused = 0
        for round in 0..<8000 {
            var bytes: [UInt8] = []
            entries[round % entries.count].writeJournalPayload(to: &bytes)
            let at = Int(rng.next() % UInt64(bytes.count))
            switch round % 6 {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            case 1: bytes[at] = 0x20 + UInt8(rng.next() % 0x5F)  // printable: often still JSON, even canonical
            case 2: bytes.remove(at: at)
            case 3: bytes.insert(bytes[at], at: at)
            case 4:
                if bytes[at] >= 0x61 && bytes[at] <= 0x7A {
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.replaceSubrange(
                        at...at, with: [0x5C, 0x75, 0x30, 0x30, hex[Int(bytes[at] >> 4)], hex[Int(bytes[at] & 15)]])
                } else {
                    bytes.insert(0x30, at: at)
                }
            default: bytes.insert(0x20, at: at)
            }
            guard let read = bytes.withUnsafeBufferPointer({ LedgerEntry.readJournalPayload($0) }) else {
                refused += 1
                continue
            }
            accepted += 1
            var written: [UInt8] = []
            read.writeJournalPayload(to: &written)
            #expect(written == bytes, "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(accepted > 500)
        #expect(refused > 3000)
    }

    /// A timestamp in any form but the one `rfc3339` writes is refused by the direct read (the checked read then
    /// says what is wrong).
    @Test func anEntryWithATimestampInAnotherFormIsNotReadDirectly() throws {
        var rng = SplitMix64(seed: 37)
        for e in Self.entries(&rng).prefix(60) {
            var bytes: [UInt8] = []
            e.writeJournalPayload(to: &bytes)
            let at = Array(e.at.rfc3339.utf8)
            let marker = Array(#""at":""#.utf8) + at
            let from = try #require(
                (0...(bytes.count - marker.count)).first { bytes[$0..<$0 + marker.count].elementsEqual(marker) })
            let start = from + marker.count - at.count
            let forms: [[UInt8]] = [
                Array(at[..<19]) + Array(".0".utf8) + Array(at[19...]),  // a fraction
                Array(at[..<10]) + Array("t".utf8) + Array(at[11...]),
                Array(at[..<10]) + Array(" ".utf8) + Array(at[11...]),  // separators
                Array(at[..<17]) + Array("60".utf8) + Array(at[19...]),  // a leap second
                Array(at[..<19]) + Array("Z".utf8), Array(at[..<19]) + Array("-00:00".utf8),  // UTC written otherwise
            ]
            for form in forms {
                #expect(form.withUnsafeBufferPointer { Timestamp(rfc3339UTF8: $0) } != nil)
                var damaged = bytes
                damaged.replaceSubrange(start..<start + at.count, with: form)
                #expect(damaged.withUnsafeBufferPointer { LedgerEntry.readJournalPayload($0) } == nil)
            }
            #expect(bytes.withUnsafeBufferPointer { LedgerEntry.readJournalPayload($0) } == e)
        }
    }

    static func lines() throws -> [JournalLine] {
        var rng = SplitMix64(seed: 11)
        var writer = JournalWriter(device: "k3v9dev")
        let at = Timestamp(epochSeconds: 1_767_225_600, offsetSeconds: 3600)
        var events: [JournalEvent] = Self.entries(&rng).compactMap { e in
            var e = e
            e.device = "k3v9dev"
            // What each kind needs (`validationProblem`), the rest left as drawn.
            switch e.kind {
            case .grant:
                if (e.roundID == nil) == (e.contractID == nil) { e.contractID = e.roundID == nil ? "c" : nil }
                e.requested = e.requested ?? 1500
                e.cut = min(e.cut ?? 0, e.requested!)
                e.amount = e.requested! - e.cut!
            case .spend: e.amount = -abs(e.amount) - 1
            case .hold:
                e.amount = -abs(e.amount) - 1
                e.passID = e.passID ?? "p"
            case .settle:
                e.amount = abs(e.amount)
                e.passID = e.passID ?? "p"
                e.used = e.used ?? 60
            case .emergency:
                e.amount = 0
                e.reserve = (e.reserve ?? 0) + 1
            case .adjustment:
                e.amount = e.amount == 0 ? 60 : e.amount
                e.reason = e.reason ?? "r"
            }
            return e.validationProblem() == nil ? .entry(e) : nil
        }
        events += [
            .round(
                RoundRecord(
                    id: "r1", kind: .focus, status: .completed, start: at,
                    end: Timestamp(epochSeconds: at.epochSeconds + 1500, offsetSeconds: 3600), plannedSeconds: 1500,
                    activeSeconds: 1500, pausedSeconds: 0, mix: [MixItem(sound: "rain", volume: 0.6)],
                    goal: "chapter \"3\"\n", tags: ["writing", "é"], earnedSeconds: 500)),
            .mixSaved(name: "night \u{01}", mix: Mix(tracks: [.init(sound: "brown", volume: 33.5, muted: true)])),
            .mixRemoved(name: "night"), .played(mix: [MixToken(name: "rain", volume: 75)], at: at),
            .setting(key: SettingCatalog.focusLength, value: "50m"),
            .setting(key: SettingCatalog.focusLength, value: nil),
            .hoursLogged(
                HourLogRecord(
                    id: "h \u{01}", day: at.localDate, verdict: .distracting, seconds: 60, source: "nudge", at: at)),
        ]
        #expect(events.count > 150)
        return try events.enumerated().map { i, event in
            try writer.append(event, wallMs: 1_767_225_600_000 + Int64(i % 5) * 1000)
        }
    }

    @Test func aLineWrittenDirectlyIsTheCanonicalFormOfItsMembers() throws {
        for line in try Self.lines() {
            #expect(line.bytes == (try Self.reference(line)), "\(String(decoding: line.bytes, as: UTF8.self))")
        }
    }

    /// Every line as written takes the fast path, and reads as the checked read reads it.
    @Test func theFastReadTakesEveryLineAsWrittenAndAgreesWithTheCheckedRead() throws {
        for line in try Self.lines() {
            let fast = line.bytes.withUnsafeBufferPointer { JournalLine.readWritten($0) }
            #expect(fast == line)
            #expect(JournalLine.readChecked(line.bytes[...]) == .success(line))
        }
    }

    /// Puts in the hash of the damaged line as the fast read computes it (over the bytes without the `hash`
    /// member), so that the rest of its checks are what refuses it: a forged line, not just an edited one.
    static func rehash(_ bytes: inout [UInt8]) {
        let marker = Array(#","hash":""#.utf8)
        guard
            let from = (0..<max(0, bytes.count - marker.count)).first(where: {
                bytes[$0..<$0 + marker.count].elementsEqual(marker)
            }),
            from + marker.count + 65 <= bytes.count
        else { return }
        let hexAt = from + marker.count
        var sha = SHA256()
        sha.update(bytes[..<from])
        sha.update(bytes[(hexAt + 65)...])
        bytes.replaceSubrange(hexAt..<hexAt + 64, with: SHA256.hexText(sha.finish()).utf8)
    }

    /// Lines damaged byte by byte (changed, removed, doubled, spaced, escaped another way, upper-case hex): the fast
    /// read never accepts one the checked read refuses, and when both accept they read the same.
    @Test func theFastReadNeverAcceptsMoreThanTheCheckedRead() throws {
        var rng = SplitMix64(seed: 23)
        var refused = 0
        let lines = try Self.lines()
        for round in 0..<6000 {
            var bytes = lines[round % lines.count].bytes
            let at = Int(rng.next() % UInt64(bytes.count))
            switch round % 8 {
            case 0: bytes[at] = UInt8(truncatingIfNeeded: rng.next())
            case 1: bytes.remove(at: at)
            case 2: bytes.insert(bytes[at], at: at)
            case 3: bytes.insert(0x20, at: at)
            case 4:
                // A character escaped as \u00xx (valid JSON, not canonical), or a short escape for a slash.
                if bytes[at] >= 0x61 && bytes[at] <= 0x7A {
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.replaceSubrange(
                        at...at, with: [0x5C, 0x75, 0x30, 0x30, hex[Int(bytes[at] >> 4)], hex[Int(bytes[at] & 15)]])
                } else {
                    bytes.insert(contentsOf: [0x5C, 0x2F], at: at)
                }
            case 5:
                if bytes[at] >= 0x61 && bytes[at] <= 0x66 { bytes[at] -= 0x20 } else { bytes[at] = 0x30 }
            case 6:
                // A digit changed, so numbers go out of form (leading zeros, -0) or out of range.
                if let d = bytes[at...].firstIndex(where: { $0 >= 0x30 && $0 <= 0x39 }) { bytes.insert(0x30, at: d) }
            default:
                // A member dropped or doubled at a comma.
                if let comma = bytes[at...].firstIndex(of: 0x2C) {
                    let next = bytes[(comma + 1)...].firstIndex(of: 0x2C) ?? bytes.count - 1
                    if rng.next() % 2 == 0 {
                        bytes.removeSubrange(comma..<next)
                    } else {
                        bytes.insert(contentsOf: Array(bytes[comma..<next]), at: comma)
                    }
                }
            }
            if round % 2 == 1 { Self.rehash(&bytes) }
            let fast = bytes.withUnsafeBufferPointer { JournalLine.readWritten($0) }
            let checked = JournalLine.readChecked(bytes[...])
            // What the reader expects (the device, the hash of the line before) changes nothing in what is read,
            // whether the line holds it or not.
            let original = lines[round % lines.count]
            let plain = JournalLine.parse(bytes[...])
            #expect(JournalLine.parse(bytes[...], device: original.device, prev: original.prev) == plain)
            #expect(JournalLine.parse(bytes[...], device: "k3v9dew", prev: JournalLine.genesis) == plain)
            if let fast {
                #expect(checked == .success(fast), "\(String(decoding: bytes, as: UTF8.self))")
            } else {
                refused += 1
                #expect(JournalLine.parse(bytes[...]) == checked)
            }
        }
        #expect(refused > 5000)  // nearly every change is damage
    }
}
